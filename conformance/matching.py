"""The comparison rules of the suite's "answer" expectations
(docs/conformance.md, "Comparison"), as the generator applies them to the
answers it reviews. halmactl conformance (client/halmactl/
conformance_suite.cc) implements the same rules for the answers of the
server under test.

- An object matches when every key it has matches the answer's field of
  that name; keys it does not have are not compared.
- null matches a message field that is not set (absent from the answer).
- An object matches a message field only when the field is set.
- A list matches a repeated field of the same length, element by element
  in order, or, for a path listed in `unordered`, in any order (each
  expected element matched by a different element of the answer).
- Any other value matches an equal value of the same JSON type. The answer
  is written with every field, defaults included (false, 0, "", [], the
  enum's zero name), so a field left at its proto3 default compares as
  that default.
"""

MISSING = object()


def normalised_path(path):
    """"moves[3].path" -> "moves[].path": the form `unordered` lists."""
    out = []
    i = 0
    while i < len(path):
        if path[i] == "[":
            j = path.index("]", i)
            out.append("[]")
            i = j + 1
        else:
            out.append(path[i])
            i += 1
    return "".join(out)


def same_scalar(want, got):
    if isinstance(want, bool) or isinstance(got, bool):
        return isinstance(want, bool) and isinstance(got, bool) and want == got
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return float(want) == float(got)
    return type(want) is type(got) and want == got


def differences(want, got, unordered=(), path=""):
    """The differences between an expectation and an answer, as
    "path: expected X, got Y" lines (empty when they match)."""
    out = []
    _compare(want, got, set(unordered), path, out)
    return out


def _name(path, key):
    return key if not path else path + "." + key


def _compare(want, got, unordered, path, out):
    where = path or "(answer)"
    if want is None:
        if got is not MISSING:
            out.append("%s: expected absent (not set), got %s" %
                       (where, short(got)))
        return
    if got is MISSING:
        out.append("%s: expected %s, got absent (not set)" %
                   (where, short(want)))
        return
    if isinstance(want, dict):
        if not isinstance(got, dict):
            out.append("%s: expected an object, got %s" % (where, short(got)))
            return
        for key in sorted(want):
            _compare(want[key], got.get(key, MISSING), unordered,
                     _name(path, key), out)
        return
    if isinstance(want, list):
        if not isinstance(got, list):
            out.append("%s: expected a list, got %s" % (where, short(got)))
            return
        if len(want) != len(got):
            out.append("%s: expected %d elements, got %d: %s" %
                       (where, len(want), len(got), short(got)))
            return
        if normalised_path(path) in unordered:
            used = [False] * len(got)
            for w in want:
                for j, g in enumerate(got):
                    trial = []
                    if not used[j]:
                        _compare(w, g, unordered, "%s[%d]" % (path, j), trial)
                    if not used[j] and not trial:
                        used[j] = True
                        break
                else:
                    out.append("%s: expected an element %s (in any order), "
                               "got %s" % (where, short(w), short(got)))
                    return
            return
        for i, (w, g) in enumerate(zip(want, got)):
            _compare(w, g, unordered, "%s[%d]" % (path, i), out)
        return
    if not same_scalar(want, got):
        out.append("%s: expected %s, got %s" % (where, short(want), short(got)))


def short(value, limit=200):
    import json
    text = json.dumps(value, sort_keys=True, ensure_ascii=True)
    return text if len(text) <= limit else text[:limit] + "..."


def names_field(message, field):
    """Whether an error message names `field` the way halma.v1 messages do:
    it begins with the field's path, then ":" or " "."""
    return (message.startswith(field) and len(message) > len(field) and
            message[len(field)] in ": ")
