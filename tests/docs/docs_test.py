#!/usr/bin/python3
"""The project's markdown pages: links, and which examples are checked.

Usage: /usr/bin/python3 docs_test.py ROOT --grpc PAGE... --curl PAGE...
           --halmactl PAGE... [--unchecked PAGE...] [--pending PATH...]
           [unittest args]

Reads every markdown file under ROOT (the checkout; hidden folders,
node_modules and build trees left out) and checks:
- every relative link and image resolves to a file or folder inside the
  checkout, and a link's #anchor to a heading of the page it points at (as
  GitHub makes anchors from headings);
- every page with a `$ grpcurl`/`$ buf curl`, `$ curl` or `$ halmactl`
  example (markdown_examples.py) is one of the pages the end-to-end test of
  that kind is given (--grpc: buf_curl_e2e, --curl: connect_curl_e2e,
  --halmactl: halmactl_batch_e2e; the lists are in tests/CMakeLists.txt),
  or one that is listed with --unchecked, so that an example moved to a
  new page does not silently go unchecked.
--pending names paths (from ROOT) that a link may point at before they
exist: work on another branch that brings them.
"""

import argparse
import os
import re
import sys
import tempfile
import unittest
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import markdown_examples  # noqa: E402

ROOT = None
CHECKED = {}  # kind -> set of absolute paths, from argv.
UNCHECKED = set()
PENDING = set()  # Absolute paths a link may name before they exist.

FENCED = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
# [text](target "title") and ![alt](target); the text may hold one level
# of brackets (an image inside a link).
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]"
                         r"\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$", re.M)
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$", re.M)
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def markdown_files(root):
    """Every .md file under `root`, sorted."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs
                         if not d.startswith(".") and d != "node_modules"
                         and not os.path.exists(
                             os.path.join(folder, d, "CMakeCache.txt")))
        found += [os.path.join(folder, f) for f in sorted(files)
                  if f.endswith(".md")]
    return found


def prose(text):
    """`text` without fenced blocks and code spans, where links are not
    links."""
    text = FENCED.sub("", text)
    return CODE_SPAN.sub("", text)


def relative_links(text):
    """The targets of the links, images and link definitions of a page
    that are not URLs (http:, mailto:, ...), in page order."""
    text = prose(text)
    return [t for t in INLINE_LINK.findall(text) + REFERENCE.findall(text)
            if t and not re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", t)]


def slug(heading):
    """The anchor GitHub gives a heading: the text as shown, lower case,
    without punctuation other than - and _, spaces as hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # Link text.
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text):
    """The anchors of a page: its headings' (numbered -1, -2, ... when one
    repeats, as GitHub does) and HTML anchors."""
    found = set(HTML_ANCHOR.findall(text))
    seen = {}
    for _, heading in HEADING.findall(FENCED.sub("", text)):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else "%s-%d" % (base, count))
    return found


def link_problems(root, paths, pending=()):
    """Every relative link of `paths` that does not resolve, as
    "page: target: what is wrong". A link to a path in `pending` may
    dangle."""
    root = os.path.realpath(root)
    problems = []
    cache = {}

    def page_anchors(path):
        if path not in cache:
            with open(path, encoding="utf-8") as f:
                cache[path] = anchors(f.read())
        return cache[path]

    for path in paths:
        with open(path, encoding="utf-8") as f:
            targets = relative_links(f.read())
        where = os.path.relpath(path, root)
        for target in targets:
            file_part, _, anchor = target.partition("#")
            file_part = urllib.parse.unquote(file_part)
            if file_part:
                resolved = os.path.realpath(
                    os.path.join(os.path.dirname(path), file_part))
                if os.path.commonpath([root, resolved]) != root:
                    problems.append("%s: %s: outside the checkout"
                                    % (where, target))
                    continue
                if not os.path.exists(resolved):
                    if resolved in pending:
                        continue
                    problems.append("%s: %s: no such file" % (where, target))
                    continue
            else:
                resolved = path
            if anchor and resolved.endswith(".md"):
                if urllib.parse.unquote(anchor) not in page_anchors(resolved):
                    problems.append("%s: %s: no heading with that anchor in %s"
                                    % (where, target,
                                       os.path.relpath(resolved, root)))
    return problems


def unchecked_examples(root, paths, checked, unchecked):
    """Pages with examples of a kind whose test is not given the page, as
    "page: N KIND examples, not checked"."""
    problems = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            examples = markdown_examples.examples(f.read(), path)
        for kind, select in sorted(markdown_examples.KINDS.items()):
            count = sum(1 for e in examples if select(e.command))
            if (count and os.path.realpath(path) not in checked.get(kind, ())
                    and os.path.realpath(path) not in unchecked):
                problems.append(
                    "%s: %d %s example(s) that no test runs (add the page to "
                    "that kind's list in tests/CMakeLists.txt)"
                    % (os.path.relpath(path, root), count, kind))
    return problems


class LinksTest(unittest.TestCase):
    def test_every_relative_link_resolves(self):
        pages = markdown_files(ROOT)
        readme = os.path.join(ROOT, "README.md")
        self.assertIn(readme, pages)
        with open(readme, encoding="utf-8") as f:
            # The README links every page of docs/.
            linked = {os.path.normpath(t.partition("#")[0])
                      for t in relative_links(f.read())}
        for name in os.listdir(os.path.join(ROOT, "docs")):
            if name.endswith(".md"):
                self.assertIn("docs/" + name, linked)
        problems = link_problems(ROOT, pages, PENDING)
        self.assertEqual(problems, [], "\n" + "\n".join(problems))


class ExamplesTest(unittest.TestCase):
    def test_the_pages_given_exist(self):
        for kind, pages in CHECKED.items():
            for page in pages:
                self.assertTrue(os.path.isfile(page), (kind, page))

    def test_every_page_with_examples_is_checked(self):
        problems = unchecked_examples(ROOT, markdown_files(ROOT), CHECKED,
                                      UNCHECKED)
        self.assertEqual(problems, [], "\n" + "\n".join(problems))


class CheckerTest(unittest.TestCase):
    """The checks above on pages made here: they find what is wrong."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.root = os.path.realpath(self.tmp.name)
        os.makedirs(os.path.join(self.root, "docs", "images"))
        with open(os.path.join(self.root, "docs", "images", "a.png"), "w"):
            pass

    def write(self, name, text):
        path = os.path.join(self.root, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def test_slugs_are_githubs(self):
        self.assertEqual(slug("Many records: `adjudicate --batch`"),
                         "many-records-adjudicate---batch")
        self.assertEqual(slug("The Connect endpoint beside gRPC "
                              "(`http_bench.py`)"),
                         "the-connect-endpoint-beside-grpc-http_benchpy")
        self.assertEqual(slug("2. Camps and variants"), "2-camps-and-variants")
        self.assertEqual(slug("[Metrics](x.md) here"), "metrics-here")

    def test_broken_links_and_anchors_are_found(self):
        self.write("docs/page.md", "# Page\n\n## Two words\n\n## Two words\n")
        readme = self.write("README.md", "\n".join([
            "# Title",
            "[ok](docs/page.md) [ok](docs/page.md#two-words)",
            "[ok](docs/page.md#two-words-1) ![ok](docs/images/a.png)",
            "[ok](#title) [ok](https://example.com/x) [ok](docs/)",
            "`[not a link](missing.md)`",
            "```", "[not a link](missing.md)", "```",
            "[gone](docs/gone.md) ![gone](docs/images/b.png)",
            "[bad anchor](docs/page.md#three-words) [bad](#nothing)",
            "[out](../elsewhere.md)",
            "[ref]: docs/also-gone.md",
            "[to come](later/)",
        ]) + "\n")
        problems = link_problems(self.root, [readme],
                                 {os.path.join(self.root, "later")})
        self.assertEqual(problems, [
            "README.md: docs/gone.md: no such file",
            "README.md: docs/images/b.png: no such file",
            "README.md: docs/page.md#three-words: no heading with that "
            "anchor in docs/page.md",
            "README.md: #nothing: no heading with that anchor in README.md",
            "README.md: ../elsewhere.md: outside the checkout",
            "README.md: docs/also-gone.md: no such file",
        ])

    def test_pages_with_unchecked_examples_are_found(self):
        page = self.write("docs/calls.md", "\n".join([
            "```sh",
            "$ grpcurl -plaintext localhost:50051 list",
            "halma.v1.HalmaRules",
            "$ curl -s http://localhost:8080/readyz",
            "ready",
            "```",
            "```text",
            "$ halmactl health",
            "SERVING",
            "```",
            "```python",
            "$ curl -s http://localhost:8080/healthz",
            "```",
        ]) + "\n")
        root = self.root
        self.assertEqual(len(unchecked_examples(root, [page], {}, set())), 3)
        self.assertEqual(
            unchecked_examples(root, [page],
                               {"grpc": {page}, "curl": {page}}, set()),
            ["docs/calls.md: 1 halmactl example(s) that no test runs (add "
             "the page to that kind's list in tests/CMakeLists.txt)"])
        self.assertEqual(unchecked_examples(root, [page], {}, {page}), [])
        with self.assertRaisesRegex(AssertionError, "no halmactl example"):
            markdown_examples.examples_in([self.write("docs/none.md", "x\n")],
                                          "halmactl")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("root")
    for kind in markdown_examples.KINDS:
        parser.add_argument("--" + kind, nargs="+", required=True)
    parser.add_argument("--unchecked", nargs="*", default=[])
    parser.add_argument("--pending", nargs="*", default=[])
    args, rest = parser.parse_known_args()
    ROOT = os.path.realpath(args.root)
    CHECKED = {kind: {os.path.realpath(p) for p in getattr(args, kind)}
               for kind in markdown_examples.KINDS}
    UNCHECKED = {os.path.realpath(p) for p in args.unchecked}
    PENDING = {os.path.realpath(os.path.join(ROOT, p)) for p in args.pending}
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
