"""Turns requests into conformance cases: calls the engine (a real
halma_server), reviews the answer, chooses the fields that must match and
keeps the case for its file.

Review (generation fails on any disagreement, naming the case):
- every case may carry `review`: fields the rule book, a public vector or
  docs/perft.md says the answer must have (the suite's matching rules);
- every LegalMoves answer of a game in progress is compared with an
  independent move generator (halma_rules.py): the same (origin,
  destination, hops) set, in the API's order, `count`, `mustPass`;
- every legal ValidateMove answer: the move is in that set with its hops,
  and its continuations are the hops the rule book allows from the chain's
  end, in LegalMoves' order;
- every error: the code, the field its message names and the text it must
  quote are given by the case and checked against the answer.

What must match (docs/conformance.md, "What a case expects"): every field
of the answer except the words meant for people (ValidateMove's and
IllegalMove's `message`, VariantInfo's `source`), and except a `path` where
the rule book allows several fewest-hop paths (the API says "a path with
the fewest hops"; which one is the implementation's choice), with the
continuations of a two-square shorthand move, which follow that path.
"""

import json

import halma_rules
import matching

RPC_PREFIX = "halma.v1.HalmaRules/"
# Repeated fields whose order the API leaves open (GameStatus: the seats of
# a result, finished or eliminated).
STATUS_SETS = ("winners", "finished", "eliminated")


class GenerationError(Exception):
    pass


class Builder:
    def __init__(self, api, keep_going=False):
        self.api = api
        # With keep_going, review disagreements are collected (problems)
        # and generation goes on, to see them all at once.
        self.keep_going = keep_going
        self.problems = []
        self.files = {}  # file name -> [case]
        self.ids = set()
        variants = api.call("ListVariants", {})
        assert variants[0] == "ok", variants
        self.presets = {v["name"]: v for v in variants[1]["variants"]}
        self._canonical = {}

    # ------------------------------------------------------------ helpers --

    def rules_variant(self, variant):
        if "preset" in variant:
            spec = self.presets[variant["preset"]]["spec"]
        else:
            spec = variant["custom"]
        return halma_rules.Variant(
            spec.get("boardSize", 0), spec.get("seatCount", 0),
            spec.get("campRows", []), spec.get("targetLock", False))

    def position_of(self, variant, position):
        """The canonical form of a position ("" = the start), from
        LegalMoves."""
        key = (json.dumps(variant, sort_keys=True), position)
        if key not in self._canonical:
            answer = self.api.call("LegalMoves",
                                   {"variant": variant, "position": position})
            if answer[0] != "ok":
                raise GenerationError("position %r: %r" % (position, answer))
            self._canonical[key] = answer[1]["position"]
        return self._canonical[key]

    def _new_id(self, file, slug):
        base = "%s/%s" % (file, slug)
        case_id, n = base, 2
        while case_id in self.ids:
            case_id = "%s-%d" % (base, n)
            n += 1
        self.ids.add(case_id)
        return case_id

    def _keep(self, file, slug, method, areas, request, expect, protocols):
        case = {
            "id": self._new_id(file, slug),
            "rpc": RPC_PREFIX + method,
            "areas": sorted(set(areas)),
            "request": self.api.canonical_request(method, request),
            "expect": expect,
        }
        if protocols:
            case["protocols"] = list(protocols)
        self.files.setdefault(file, []).append(case)
        return case

    def _fail(self, file, slug, what, fatal=False):
        problem = "%s/%s: %s" % (file, slug, what)
        if fatal or not self.keep_going:
            raise GenerationError(problem)
        self.problems.append(problem)

    # -------------------------------------------------------------- kinds --

    def answer(self, file, slug, method, areas, request, review=None,
               protocols=None):
        """A case whose call must succeed with the answer the engine gives
        (the chosen fields). Returns the engine's whole answer."""
        result = self.api.call(method, request)
        if result[0] != "ok":
            self._fail(file, slug, "expected an answer, got %r" % (result,),
                       fatal=True)
        answer = result[1]
        fields, unordered = self._select(method, request, answer, file, slug)
        if review:
            problems = matching.differences(review, answer, STATUS_PATHS)
            if problems:
                self._fail(file, slug, "the engine's answer disagrees with "
                           "the review: " + "; ".join(problems))
        assert not matching.differences(fields, answer, unordered)
        expect = {"kind": "answer", "fields": fields}
        if unordered:
            expect["unordered"] = unordered
        self._keep(file, slug, method, areas, request, expect, protocols)
        return answer

    def error(self, file, slug, method, areas, request, code, field=None,
              contains=(), protocols=None):
        """A case whose call must fail with `code`, the message naming
        `field` and quoting each of `contains`."""
        result = self.api.call(method, request)
        if result[0] != "error":
            self._fail(file, slug, "expected %s, got an answer %s" %
                       (code, matching.short(result[1])), fatal=True)
        _, got_code, message = result
        if got_code != code:
            self._fail(file, slug, "expected %s, got %s: %s" %
                       (code, got_code, message))
        if field is not None and not matching.names_field(message, field):
            self._fail(file, slug, "message does not name %r: %s" %
                       (field, message))
        for text in contains:
            if text not in message:
                self._fail(file, slug, "message does not contain %r: %s" %
                           (text, message))
        expect = {"kind": "error", "code": code}
        if field is not None:
            expect["field"] = field
        if contains:
            expect["contains"] = list(contains)
        self._keep(file, slug, method, areas, request, expect, protocols)
        return message

    def deterministic(self, file, slug, method, areas, request, calls=2):
        """A case whose call must succeed with the same whole answer
        `calls` times."""
        answers = [self.api.call(method, request) for _ in range(calls)]
        if answers[0][0] != "ok" or any(a != answers[0] for a in answers):
            self._fail(file, slug, "answers differ or fail: %r" % answers)
        self._keep(file, slug, method, areas, request,
                   {"kind": "deterministic", "calls": calls}, None)

    def member(self, file, slug, method, areas, request, path, in_method,
               in_request, in_path):
        """A case whose call must succeed and every value at `path` of its
        answer be among the values at `in_path` of the answer that
        `in_method` gives to `in_request`."""
        first = self.api.call(method, request)
        second = self.api.call(in_method, in_request)
        if first[0] != "ok" or second[0] != "ok":
            self._fail(file, slug, "a call failed: %r %r" % (first, second))
        values = values_at(first[1], path)
        pool = values_at(second[1], in_path)
        if not values or any(v not in pool for v in values):
            self._fail(file, slug, "%r not within %r" % (values, pool))
        expect = {
            "kind": "member", "path": path,
            "in": {"rpc": RPC_PREFIX + in_method,
                   "request": self.api.canonical_request(in_method,
                                                         in_request),
                   "path": in_path},
        }
        self._keep(file, slug, method, areas, request, expect, None)

    # ---------------------------------------------------------- selection --

    def _select(self, method, request, answer, file, slug):
        fields = json.loads(json.dumps(answer))
        unordered = []
        for status_path, status in status_objects(fields):
            for name in STATUS_SETS:
                if len(status.get(name, [])) > 1:
                    unordered.append(_join(status_path, name))
        if method == "ValidateMove":
            fields.pop("message", None)
            self._review_validate(request, answer, fields, file, slug)
        elif method == "Adjudicate":
            if "illegalMove" in fields:
                fields["illegalMove"].pop("message", None)
            else:
                fields["illegalMove"] = None
        elif method == "ListVariants":
            for info in fields["variants"]:
                info.pop("source", None)
        elif method == "LegalMoves":
            self._review_legal(request, answer, fields, file, slug)
        return fields, sorted(unordered)

    def _review_legal(self, request, answer, fields, file, slug):
        variant = self.rules_variant(request["variant"])
        position = answer["position"]
        independent = halma_rules.legal_moves(variant, position)
        for move in fields["moves"]:
            info = independent.get((move["origin"], move["destination"]))
            if info is not None and info[1] > 1:
                del move["path"]  # Several fewest-hop paths: any will do.
        if answer["count"] != len(answer["moves"]):
            self._fail(file, slug, "count %d for %d moves" %
                       (answer["count"], len(answer["moves"])))
        if answer["status"]["state"] != "STATE_IN_PROGRESS":
            if answer["moves"]:
                self._fail(file, slug, "moves listed in a finished game")
            return
        origin = request.get("origin", "")
        want = sorted(((o, d, h) for (o, d), (h, _) in independent.items()
                       if not origin or o == origin),
                      key=lambda m: halma_rules.move_order_key(m[0], m[1]))
        got = [(m["origin"], m["destination"], m["hops"])
               for m in answer["moves"]]
        if got != want:
            self._fail(file, slug, "LegalMoves differs from the independent "
                       "move generator: only engine %s, only independent %s,"
                       " or the order" % (sorted(set(got) - set(want))[:5],
                                          sorted(set(want) - set(got))[:5]))
        must_pass = not independent
        if answer["status"]["mustPass"] != must_pass:
            self._fail(file, slug, "mustPass %s, independent %s" %
                       (answer["status"]["mustPass"], must_pass))
        for move in answer["moves"]:
            squares = move["path"].split("-")
            if (squares[0] != move["origin"] or
                    squares[-1] != move["destination"] or
                    len(squares) != max(2, move["hops"] + 1)):
                self._fail(file, slug, "path %s for %s" % (move["path"], move))

    def _review_validate(self, request, answer, fields, file, slug):
        if not answer["legal"]:
            if answer["continuations"] or answer["path"]:
                self._fail(file, slug, "an illegal move with a path")
            return
        variant = self.rules_variant(request["variant"])
        position = self.position_of(request["variant"],
                                    request.get("position", ""))
        independent = halma_rules.legal_moves(variant, position)
        if answer["path"] == "pass":
            if independent:
                self._fail(file, slug, "pass found legal, but moves exist")
            return
        squares = answer["path"].split("-")
        info = independent.get((squares[0], squares[-1]))
        if info is None or info[0] != answer["hops"]:
            self._fail(file, slug, "legal %s (%d hops), independent %r" %
                       (answer["path"], answer["hops"], info))
        written = request["move"].split("-")
        shorthand = is_shorthand(written)
        if info[1] > 1:
            del fields["path"]
            if shorthand:
                del fields["continuations"]
        chain = squares if shorthand else written
        if answer["hops"] == 0:
            want = []
        else:
            board, _, _ = halma_rules.parse_position(position, variant.size)
            want = halma_rules.continuations(variant, board, chain)
        if answer["continuations"] != want:
            self._fail(file, slug, "continuations %r, independent %r" %
                       (answer["continuations"], want))


# The paths of GameStatus sets in any answer, for reviews (order-free).
STATUS_PATHS = tuple(
    "%s%s" % (prefix, name) for prefix in ("status.", "")
    for name in STATUS_SETS)


def _join(path, name):
    return name if not path else path + "." + name


def status_objects(answer):
    """(path, GameStatus) pairs of an answer."""
    if isinstance(answer.get("status"), dict):
        yield "status", answer["status"]


def values_at(value, path):
    """The values at a path such as "moves[].destination" ("[]" = every
    element)."""
    current = [value]
    for part in path.replace("[]", ".[]").split("."):
        if not part:
            continue
        following = []
        for item in current:
            if part == "[]":
                if isinstance(item, list):
                    following.extend(item)
            elif isinstance(item, dict) and part in item:
                following.append(item[part])
        current = following
    return current


def is_shorthand(squares):
    """Two squares that are neither neighbours nor two apart on a line
    (docs/rules.md section 4)."""
    if len(squares) != 2 or "pass" in squares:
        return False
    a = halma_rules.parse_square(squares[0])
    b = halma_rules.parse_square(squares[1])
    df, dr = abs(a[0] - b[0]), abs(a[1] - b[1])
    if max(df, dr) == 1:
        return False
    if max(df, dr) == 2 and df in (0, 2) and dr in (0, 2):
        return False
    return True
