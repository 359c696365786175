"""The `$ COMMAND` examples of the project's markdown pages.

An example is a line `$ COMMAND` inside a fenced block (```sh or ```text),
continued on the next lines while it ends with a backslash, followed by what
the command prints: the lines up to the next `$ ` line or the end of the
block, trailing blank lines dropped. The end-to-end tests run the examples
of their kind (tests/service/reflection/buf_curl_test.py: grpcurl and buf curl;
tests/service/connect/connect_curl_test.py: curl; tests/client/batch_test.py:
halmactl) from the pages CMake gives them (tests/CMakeLists.txt), and
tests/docs/docs_test.py checks that no other page has an example of those
kinds.
"""

import re

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)


class Example:
    """One `$ COMMAND` and the lines it prints, as a page shows them."""

    def __init__(self, path, fence, block, command, output):
        self.path = path        # The page.
        self.fence = fence      # The block's language: "sh" or "text".
        self.block = block      # The block's number in the page, from 0.
        self.command = command  # Continuation lines joined.
        self.output = output    # The lines shown after it.

    def expected(self):
        return "\n".join(self.output)

    def __repr__(self):
        return "%s: $ %s" % (self.path, self.command)


def examples(text, path="", fences=("sh", "text")):
    """Every example in `text`, in page order."""
    found = []
    for number, match in enumerate(FENCE.finditer(text)):
        fence, body = match.group(1), match.group(2)
        if fence not in fences:
            continue
        lines = body.rstrip("\n").split("\n")
        i = 0
        while i < len(lines):
            if not lines[i].startswith("$ "):
                i += 1
                continue
            command = lines[i][2:]
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1] + lines[i].strip()
            i += 1
            output = []
            while i < len(lines) and not lines[i].startswith("$ "):
                output.append(lines[i])
                i += 1
            while output and not output[-1].strip():
                output.pop()
            found.append(Example(path, fence, number, command, output))
    return found


# The kinds of examples, by the command's first words.
def is_grpc(command):
    return command.startswith(("grpcurl ", "buf curl "))


def is_curl(command):
    return command.startswith("curl ")


HALMACTL_NAMES = ("halmactl", "build/client/halmactl")


def is_halmactl(command):
    return command.split(" ", 1)[0] in HALMACTL_NAMES


KINDS = {"grpc": is_grpc, "curl": is_curl, "halmactl": is_halmactl}


def examples_in(paths, kind, fences=("sh", "text")):
    """The examples of `kind` (a KINDS key) in the pages `paths`, in order.
    Raises AssertionError naming a page that has none: a page a test is told
    to check must have something to check."""
    select = KINDS[kind]
    found = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            these = [e for e in examples(f.read(), path, fences)
                     if select(e.command)]
        if not these:
            raise AssertionError(
                "%s: no %s example (`$ ...` in a ```%s block) to check"
                % (path, kind, "/".join(fences)))
        found += these
    return found
