#!/bin/bash
# Generates, type-checks, installs and tests the Python client against the
# real server binary on 127.0.0.1.
#
# Usage: client/python/test.sh SERVER_BINARY   (e.g. build/service/halma_server)
#
# 1. generate.sh writes halma_client/_gen; mypy checks the package and the
#    tests; the tests run against the source tree.
# 2. The package is installed into a fresh venv (Debian's Python, system site
#    packages, no index: no PyPI) from a tree without _gen, so its build hook
#    generates the code; the tests run again against the installed copy,
#    including the installed halma-example console script.
# Quiet on success but for a summary; on failure prints the failing step.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 SERVER_BINARY" >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
server=$(realpath "$1")
if [[ ! -x $server ]]; then
  echo "$0: $1 is not an executable" >&2
  exit 2
fi
# Debian's Python with python3-grpcio, not whatever python3 is first on PATH.
python=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PYTHONDONTWRITEBYTECODE=1
begin=$SECONDS

# run STEP COMMAND...: runs COMMAND quietly; on failure shows its output and stops.
run() {
  local step=$1
  shift
  if ! "$@" >"$work/out" 2>&1; then
    cat "$work/out" >&2
    echo "client/python/test.sh: FAILED: $step" >&2
    exit 1
  fi
}
# The summary line pytest printed last ("30 passed in 6.5s").
summary() {
  tail -n 1 "$work/out" | tr -d '='
}

run shellcheck shellcheck "$here/generate.sh" "$here/test.sh"

cd "$here"
run generate ./generate.sh
run mypy "$python" -m mypy --cache-dir="$work/mypy-cache" halma_client tests
run "tests (source tree)" "$python" -m pytest -q -p no:cacheprovider tests --server="$server"
source_summary=$(summary)

# A clean build: no generated code or setuptools output left from before.
rm -rf halma_client/_gen build halma_client.egg-info
cd ../..
run venv "$python" -m venv --system-site-packages "$work/venv"
run "pip install" "$work/venv/bin/pip" install --no-build-isolation --no-index ./client/python
cd "$work"
# -P: do not put the current directory on sys.path; halma_client must come
# from the venv.
run "tests (installed)" "$work/venv/bin/python" -P -m pytest -q -p no:cacheprovider \
  "$here/tests" --server="$server" --installed
installed_summary=$(summary)

echo "client/python: source tree: ${source_summary# }; installed package: ${installed_summary# };" \
  "shellcheck and mypy clean; $((SECONDS - begin)) s"
