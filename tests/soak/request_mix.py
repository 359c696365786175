"""The soak test's request mix, built at start-up from real data.

Nothing here is a hard-coded answer. The presets come from ListVariants;
the positions from bench/data (dense midgame and typical sets); further
positions and the game records from seeded random playouts that the server
itself adjudicates while the mix is built (LegalMoves for the moves,
ValidateMove for the position after each); the long records from the
attack suite's records.py. Every request is serialized once, here, and
carries what its answer must be:

- `code`: the gRPC status code expected;
- for OK answers a cheap `check` (legal true or false as constructed, the
  illegal reason, the move count, moves played, the final position...);
- for errors the field the message must start with (`field`).

The soak then also requires that the same request always gets the same
answer bytes (`digest`): the first answer is the reference, or the answer
seen while building the mix when there is one.

Kinds are named "<group>/<name>". Groups: valid, illegal (an OK answer
saying the move is illegal), malformed (INVALID_ARGUMENT, or
RESOURCE_EXHAUSTED for a message over the size limit), raw (undecodable
bytes through a generic call: INVALID_ARGUMENT) and health.
"""

import bisect
import itertools
import os
import random

import grpc
from google.protobuf.message import DecodeError

from records import is_direct, parse_square, square  # tests/attack

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BENCH_DATA = os.path.join(REPO, "bench", "data")
RULES = "/halma.v1.HalmaRules/"
HEALTH_CHECK = "/grpc.health.v1.Health/Check"
HALMA_SERVICE = "halma.v1.HalmaRules"
# The presets named in issue #8; ListVariants must list at least these.
REQUIRED_PRESETS = ("brainking-8x8", "brainking-10x10", "iggamecenter-10x10",
                    "classic-16x16", "classic-16x16-4p")
FILES = "abcdefghijklmnop"
HOME = {"w": "sw", "r": "nw", "b": "ne", "g": "se"}
TARGET = {"w": "ne", "r": "se", "b": "sw", "g": "nw"}
DIRECTIONS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
              if (dx, dy) != (0, 0)]
PREP_DEADLINE = 30.0

# Custom variants (VariantSpec fields) played out while the mix is built.
# Each exercises something the presets do not: other sizes, four seats on
# a small board, a move cap that ends the game, round completion with a
# home-exit limit, the smallest board.
CUSTOM_VARIANTS = [
    ("custom-6x6", dict(board_size=6, seat_count=2, camp_rows=[3, 2, 1],
                        home_exit_limit=12)),
    ("custom-12x12-4p", dict(board_size=12, seat_count=4,
                             camp_rows=[4, 3, 2, 1], target_lock=True)),
    ("custom-9x9-rc", dict(board_size=9, seat_count=2,
                           camp_rows=[4, 3, 2, 1], round_completion=True,
                           home_exit_limit=20, move_cap=40)),
    ("custom-8x8-cap6", dict(board_size=8, seat_count=2,
                             camp_rows=[4, 3, 2, 1], move_cap=6)),
    ("custom-4x4", dict(board_size=4, seat_count=2, camp_rows=[1])),
    ("custom-16x16-4p", dict(board_size=16, seat_count=4,
                             camp_rows=[5, 5, 4, 3, 2], target_lock=True)),
]
# A 5x5 variant whose camps leave one square empty: in the position below
# 'w' has no move at all (every neighbour of a5 and every square a hop into
# a5 could start from holds a 'b' piece), so "pass" is its only legal move
# while 'b' can still move.
MUST_PASS_VARIANT = ("custom-5x5-full", dict(board_size=5, seat_count=2,
                                             camp_rows=[5, 5, 2]))
MUST_PASS_BOARD = {"a5": None, "b5": "b", "c5": "b", "a4": "b", "b4": "b",
                   "a3": "b", "c3": "b", "d5": "b", "e5": "b", "c4": "b",
                   "d4": "b", "e4": "b", "e3": "b", "b3": "w", "d3": "w"}

# Relative weights of the kinds (a kind without requests is left out).
WEIGHTS = {
    "valid/list_variants": 1.0,
    "valid/legal_moves": 10.0,
    "valid/legal_moves_origin": 5.0,
    "valid/legal_moves_over": 0.5,
    "valid/legal_moves_must_pass": 0.5,
    "valid/validate_path": 8.0,
    "valid/validate_shorthand": 5.0,
    "valid/validate_pass": 1.0,
    "valid/adjudicate_playout": 4.0,
    "valid/adjudicate_shorthand": 2.0,
    "valid/adjudicate_from_bench": 3.0,
    "valid/adjudicate_finished": 1.0,
    "valid/adjudicate_long": 0.3,
    "illegal/empty_origin": 1.0,
    "illegal/not_your_piece": 1.0,
    "illegal/destination_occupied": 1.0,
    "illegal/nothing_to_jump": 1.0,
    "illegal/not_a_hop": 1.0,
    "illegal/square_visited_twice": 1.0,
    "illegal/unreachable": 1.0,
    "illegal/pass_not_allowed": 1.0,
    "illegal/game_over": 0.5,
    "illegal/record": 2.0,
    "malformed/position": 3.0,
    "malformed/start_position": 1.0,
    "malformed/square": 2.0,
    "malformed/move": 3.0,
    "malformed/variant": 2.0,
    "malformed/no_variant": 0.3,
    "malformed/camp_rows_oversized": 1.0,
    "malformed/record_move": 2.0,
    "malformed/record_too_long": 0.2,
    "malformed/message_too_large": 0.2,
    "raw/ValidateMove": 1.0,
    "raw/LegalMoves": 1.0,
    "raw/Adjudicate": 1.0,
    "raw/ListVariants": 0.5,
    "raw/HealthCheck": 0.5,
    "health/check": 2.0,
    "health/unknown_service": 0.3,
}


class Request:
    """One request of the mix with everything needed to judge its answer."""

    __slots__ = ("kind", "variant", "method", "payload", "code", "check",
                 "field", "digest")

    def __init__(self, kind, variant, method, payload, code=grpc.StatusCode.OK,
                 check=None, field=None, digest=None):
        self.kind = kind
        self.variant = variant  # A label: preset name or custom-...
        self.method = method
        self.payload = payload
        self.code = code
        self.check = check  # bytes -> None or a problem (OK answers only).
        self.field = field  # Error details must start with "<field>:".
        self.digest = digest  # hash() of the one right answer, once known.


class Mix:
    """Requests by kind, drawn by weight: `pick` is called once per call
    of the soak, so it is two bisections and nothing more."""

    def __init__(self, by_kind, weights=WEIGHTS):
        self.by_kind = {k: v for k, v in by_kind.items() if v}
        unknown = sorted(set(self.by_kind) - set(weights))
        if unknown:
            raise ValueError("kinds without a weight: " + ", ".join(unknown))
        self.kinds = sorted(self.by_kind)
        self.cumulative = list(itertools.accumulate(
            weights[k] for k in self.kinds))

    def without(self, patterns):
        """A copy without the kinds that a pattern names (exact, or a
        prefix ending in '/')."""
        def dropped(kind):
            return any(kind == p or (p.endswith("/") and kind.startswith(p))
                       for p in patterns)
        return Mix({k: v for k, v in self.by_kind.items() if not dropped(k)})

    def pick(self, rng):
        x = rng.random() * self.cumulative[-1]
        kind = self.kinds[bisect.bisect_right(self.cumulative, x)]
        requests = self.by_kind[kind]
        return requests[int(rng.random() * len(requests))]

    def counts(self):
        return {k: len(v) for k, v in sorted(self.by_kind.items())}


# --- board geometry --------------------------------------------------------

def parse_board(text, n):
    """{(x, y): letter} of a position's board field."""
    cells = {}
    for i, rank in enumerate(text.split("/")):
        y, x, digits = n - 1 - i, 0, ""
        for ch in rank:
            if ch.isdigit():
                digits += ch
                continue
            if digits:
                x, digits = x + int(digits), ""
            cells[(x, y)] = ch
            x += 1
    return cells


def format_board(cells, n):
    ranks = []
    for y in range(n - 1, -1, -1):
        text, empty = "", 0
        for x in range(n):
            piece = cells.get((x, y))
            if piece is None:
                empty += 1
                continue
            if empty:
                text, empty = text + str(empty), 0
            text += piece
        ranks.append(text + (str(empty) if empty else ""))
    return "/".join(ranks)


def camp(n, rows, corner):
    """Squares of the camp in `corner` ("sw", "nw", "ne", "se")."""
    out = set()
    for y, length in enumerate(rows):
        for x in range(length):
            out.add((n - 1 - x if corner[1] == "e" else x,
                     n - 1 - y if corner[0] == "n" else y))
    return out


def on_board(p, n):
    return 0 <= p[0] < n and 0 <= p[1] < n


def neighbours(p, n):
    return [(p[0] + dx, p[1] + dy) for dx, dy in DIRECTIONS
            if on_board((p[0] + dx, p[1] + dy), n)]


class Board:
    """A parsed position with the geometry the illegal moves need."""

    def __init__(self, position, spec):
        fields = position.split(" ")
        self.n = spec.board_size
        self.cells = parse_board(fields[0], self.n)
        self.side = fields[1]
        self.target = camp(self.n, list(spec.camp_rows), TARGET[self.side])
        self.target_lock = spec.target_lock
        everything = [(x, y) for x in range(self.n) for y in range(self.n)]
        self.empty = [p for p in everything if p not in self.cells]
        self.own = sorted(p for p, c in self.cells.items() if c == self.side)
        self.others = sorted(p for p, c in self.cells.items()
                             if c != self.side)
        # With target lock, a piece in its target camp may not land outside
        # it: such origins could give LEAVES_TARGET before the reason a
        # construction means, so they are not used.
        self.free_own = [p for p in self.own
                         if not (self.target_lock and p in self.target)]


# --- the builder -------------------------------------------------------------

class Builder:
    """Builds the mix against a running server (a plain blocking channel)."""

    def __init__(self, channel, protos, limits, seed, log):
        self.pb = protos
        self.h = protos.halma
        self.limits = limits
        self.rng = random.Random(seed)
        self.log = log
        self.by_kind = {k: [] for k in WEIGHTS}
        self.prep_calls = 0
        h = self.h
        self._call = {}
        for name, req, resp in (
                ("ListVariants", h.ListVariantsRequest,
                 h.ListVariantsResponse),
                ("LegalMoves", h.LegalMovesRequest, h.LegalMovesResponse),
                ("ValidateMove", h.ValidateMoveRequest,
                 h.ValidateMoveResponse)):
            self._call[name] = channel.unary_unary(
                RULES + name, request_serializer=req.SerializeToString,
                response_deserializer=resp.FromString)
        self._raw_legal = channel.unary_unary(RULES + "LegalMoves")
        self.presets = []  # VariantInfo, in ListVariants order.
        self.specs = {}  # label -> VariantSpec

    # -- helpers --

    def call(self, name, request):
        self.prep_calls += 1
        return self._call[name](request, timeout=PREP_DEADLINE)

    def add(self, kind, variant, method, message, **kw):
        payload = message if isinstance(message, bytes) \
            else message.SerializeToString()
        self.by_kind[kind].append(Request(kind, variant, method, payload,
                                          **kw))

    def variant_message(self, label, custom_copy=False):
        """The Variant of a label; for a preset, optionally as a custom
        VariantSpec with the same fields (same rules, so same answers)."""
        h = self.h
        if label in self.specs and not label.startswith("custom-") and \
                not custom_copy:
            return h.Variant(preset=label)
        spec = h.VariantSpec()
        spec.CopyFrom(self.specs[label])
        return h.Variant(custom=spec)

    def pick_variant(self, label):
        """Presets are asked for by name three times out of four and as
        a custom copy otherwise; the label says which."""
        if label.startswith("custom-") or self.rng.random() < 0.75:
            return label, self.variant_message(label)
        return "custom:" + label, self.variant_message(label, True)

    # -- the parts of the mix --

    def build(self, long_records):
        self.list_variants()
        self.raw_list_variants()
        self.health()
        for info in self.presets:
            for path in self.bench_files(info.name):
                for position in self.sample_positions(path):
                    self.position_requests(info.name, position)
            self.playout_requests(info.name, info.start_position, plies=30)
            self.bench_records(info.name)
        for label, fields in CUSTOM_VARIANTS:
            self.specs[label] = self.h.VariantSpec(**fields)
            plies = 60 if "cap" not in label else 1000
            self.playout_requests(label, "", plies)
        self.must_pass_requests()
        self.malformed_variants()
        self.oversized_requests()
        self.long_records(long_records)
        return Mix(self.by_kind)

    def list_variants(self):
        answer = self.call("ListVariants", self.h.ListVariantsRequest())
        names = [v.name for v in answer.variants]
        missing = [p for p in REQUIRED_PRESETS if p not in names]
        if missing:
            raise RuntimeError("ListVariants lacks " + ", ".join(missing))
        self.presets = list(answer.variants)
        for info in self.presets:
            self.specs[info.name] = info.spec

        def check(data, names=names):
            got = [v.name for v in
                   self.h.ListVariantsResponse.FromString(data).variants]
            return None if got == names else "variants %s" % got
        self.add("valid/list_variants", "-", RULES + "ListVariants",
                 self.h.ListVariantsRequest(), check=check,
                 digest=hash(answer.SerializeToString()))

    def health(self):
        hv = self.pb.health
        serving = hv.HealthCheckResponse.SERVING

        def check(data):
            status = hv.HealthCheckResponse.FromString(data).status
            return None if status == serving else "status %d" % status
        for service in ("", HALMA_SERVICE):
            self.add("health/check", "-", HEALTH_CHECK,
                     hv.HealthCheckRequest(service=service), check=check)
        self.add("health/unknown_service", "-", HEALTH_CHECK,
                 hv.HealthCheckRequest(service="halma.v1.NoSuchService"),
                 code=grpc.StatusCode.NOT_FOUND, field="service")
        request = hv.HealthCheckRequest(service=HALMA_SERVICE)
        data = request.SerializeToString()
        for bad in (data[:-3], b"\x0a", b"\x0f", data + b"\x10"):
            self.add_raw("HealthCheck", "-", bad, request, HEALTH_CHECK)
        self.add_raw("HealthCheck", "-", field_bytes(1, b"halma\xff"),
                     request, HEALTH_CHECK, utf8=b"\xff", field="service")

    @staticmethod
    def bench_files(preset):
        paths = [os.path.join(BENCH_DATA, preset + ".txt"),
                 os.path.join(BENCH_DATA, "typical", preset + ".txt")]
        return [p for p in paths if os.path.exists(p)]

    def sample_positions(self, path, count=60):
        with open(path, encoding="utf-8") as f:
            lines = [line.strip() for line in f
                     if line.strip() and not line.startswith("#")]
        return self.rng.sample(lines, min(count, len(lines)))

    def legal_moves(self, label, position):
        """The prep's LegalMoves answer (message and bytes)."""
        request = self.h.LegalMovesRequest(
            variant=self.variant_message(label), position=position)
        self.prep_calls += 1
        data = self._raw_legal(request.SerializeToString(),
                               timeout=PREP_DEADLINE)
        return self.h.LegalMovesResponse.FromString(data), data

    def position_requests(self, label, position):
        """Everything one position gives: its legal moves (whole, and for
        one origin), moves taken from them (full path, shorthand), illegal
        moves of every reason that can be built on it, and malformed
        variations of it. Returns the LegalMoves answer."""
        answer, data = self.legal_moves(label, position)
        spec = self.specs[label]
        board = Board(answer.position, spec)
        self.legal_moves_requests(label, position, answer, data)
        state = answer.status.state
        if state != self.h.GameStatus.STATE_IN_PROGRESS:
            self.game_over_requests(label, position, board)
        elif not answer.status.must_pass:
            self.valid_moves(label, position, answer)
            for name, move, reason in self.illegal_moves(board, answer):
                self.validate_illegal(label, position, "illegal/" + name,
                                      move, reason)
        self.malformed_position_requests(label, position, answer.position,
                                         board)
        return answer

    def legal_moves_requests(self, label, position, answer, data):
        h = self.h
        n = answer.count
        state = answer.status.state
        must_pass = answer.status.must_pass
        over = state != h.GameStatus.STATE_IN_PROGRESS
        kind = ("valid/legal_moves_over" if over else
                "valid/legal_moves_must_pass" if must_pass else
                "valid/legal_moves")
        if n == 0 and not over and not must_pass:
            raise RuntimeError("no legal move and no pass in %s" % position)

        def check(data, n=n, must_pass=must_pass, state=state):
            r = h.LegalMovesResponse.FromString(data)
            if r.count != n or len(r.moves) != n or \
                    r.status.must_pass != must_pass or r.status.state != state:
                return "count %d (%d moves) must_pass %s state %d, " \
                       "expected %d %s %d" % (r.count, len(r.moves),
                                              r.status.must_pass,
                                              r.status.state, n, must_pass,
                                              state)
            return None
        # The preset's own answer is the reference; a custom copy of the
        # same rules must give the same bytes.
        label2, variant = self.pick_variant(label)
        self.add(kind, label2, RULES + "LegalMoves",
                 h.LegalMovesRequest(variant=variant, position=position),
                 check=check, digest=hash(data))
        if n == 0:
            return
        origin = self.rng.choice(answer.moves).origin
        m = sum(1 for move in answer.moves if move.origin == origin)

        def check_origin(data, m=m, origin=origin):
            r = h.LegalMovesResponse.FromString(data)
            if r.count != m or any(x.origin != origin for x in r.moves):
                return "%d moves for %s, expected %d" % (r.count, origin, m)
            return None
        label2, variant = self.pick_variant(label)
        self.add("valid/legal_moves_origin", label2, RULES + "LegalMoves",
                 h.LegalMovesRequest(variant=variant, position=position,
                                     origin=origin), check=check_origin)

    def validate_legal(self, kind, label, position, text, hops, origin,
                       destination):
        h = self.h

        def check(data):
            r = h.ValidateMoveResponse.FromString(data)
            if not r.legal:
                return "legal=false (%s: %s) for %s" % (
                    h.IllegalReason.Name(r.reason), r.message, text)
            squares = r.path.split("-")
            if r.hops != hops or squares[0] != origin or \
                    squares[-1] != destination:
                return "path %s (%d hops), expected %s..%s (%d hops)" % (
                    r.path, r.hops, origin, destination, hops)
            return None
        label2, variant = self.pick_variant(label)
        self.add(kind, label2, RULES + "ValidateMove",
                 h.ValidateMoveRequest(variant=variant, position=position,
                                       move=text), check=check)

    def valid_moves(self, label, position, answer):
        """One move of the LegalMoves answer by its full path; one with a
        chain written as two-square shorthand, when there is one."""
        move = self.rng.choice(answer.moves)
        self.validate_legal("valid/validate_path", label, position,
                            move.path, move.hops, move.origin,
                            move.destination)
        chains = [m for m in answer.moves if m.hops > 0 and not is_direct(
            parse_square(m.origin), parse_square(m.destination))]
        if chains:
            move = self.rng.choice(chains)
            self.validate_legal("valid/validate_shorthand", label, position,
                                move.origin + "-" + move.destination,
                                move.hops, move.origin, move.destination)

    def validate_illegal(self, label, position, kind, move, reason):
        h = self.h

        def check(data):
            r = h.ValidateMoveResponse.FromString(data)
            if r.legal or r.reason != reason or not r.message:
                return "%s: legal=%s %s %r, expected %s" % (
                    move, r.legal, h.IllegalReason.Name(r.reason), r.message,
                    h.IllegalReason.Name(reason))
            return None
        label2, variant = self.pick_variant(label)
        self.add(kind, label2, RULES + "ValidateMove",
                 h.ValidateMoveRequest(variant=variant, position=position,
                                       move=move), check=check)

    def illegal_moves(self, board, answer):
        """(kind, move, reason) for each illegal move this position allows
        one to build. Origins in a locked target camp are avoided."""
        h, rng, n = self.h, self.rng, board.n
        R = h.IllegalReason
        out = []
        legal = {(m.origin, m.destination) for m in answer.moves}
        sq = square
        if board.empty:
            e = rng.choice(board.empty)
            out.append(("empty_origin", sq(e) + "-" + sq(
                rng.choice(neighbours(e, n))), R.ILLEGAL_REASON_EMPTY_ORIGIN))
        if board.others:
            o = rng.choice(board.others)
            out.append(("not_your_piece", sq(o) + "-" + sq(
                rng.choice(neighbours(o, n))),
                R.ILLEGAL_REASON_NOT_YOUR_PIECE))
        out.append(("pass_not_allowed", "pass",
                    R.ILLEGAL_REASON_PASS_NOT_ALLOWED))
        occupied, no_jump, steps, unreachable = [], [], [], []
        for o in board.free_own:
            for dx, dy in DIRECTIONS:
                a = (o[0] + dx, o[1] + dy)
                b = (o[0] + 2 * dx, o[1] + 2 * dy)
                if not on_board(a, n):
                    continue
                if a in board.cells:
                    occupied.append((o, a))
                else:
                    if on_board(b, n) and b not in board.cells:
                        no_jump.append((o, b))
                    steps.append((o, a))
        for p in (occupied, no_jump, steps):
            p.sort()
        if occupied:
            o, a = rng.choice(occupied)
            out.append(("destination_occupied", sq(o) + "-" + sq(a),
                        R.ILLEGAL_REASON_DESTINATION_OCCUPIED))
        if no_jump:
            o, b = rng.choice(no_jump)
            out.append(("nothing_to_jump", sq(o) + "-" + sq(b),
                        R.ILLEGAL_REASON_NOTHING_TO_JUMP))
        if steps:
            # A chain whose first leg is a step: "o-a-x".
            o, a = rng.choice(steps)
            far = [p for p in board.empty if p != o and p != a]
            x = rng.choice(far) if far else o
            out.append(("not_a_hop", sq(o) + "-" + sq(a) + "-" + sq(x),
                        R.ILLEGAL_REASON_NOT_A_HOP))
        hops = sorted((m.origin, m.destination) for m in answer.moves
                      if m.hops == 1 and len(m.path.split("-")) == 2
                      and parse_square(m.origin) in board.free_own
                      and not (board.target_lock and
                               parse_square(m.destination) in board.target))
        if hops:
            o, d = rng.choice(hops)
            out.append(("square_visited_twice", o + "-" + d + "-" + o,
                        R.ILLEGAL_REASON_SQUARE_VISITED_TWICE))
        for o in board.free_own:
            for d in board.empty:
                if not is_direct(o, d) and (sq(o), sq(d)) not in legal:
                    unreachable.append((o, d))
        if unreachable:
            o, d = rng.choice(unreachable)
            out.append(("unreachable", sq(o) + "-" + sq(d),
                        R.ILLEGAL_REASON_UNREACHABLE))
        return out

    def game_over_requests(self, label, position, board):
        """Any well-formed move on a finished game is GAME_OVER."""
        move = "pass"
        for o in board.own:
            steps = [a for a in neighbours(o, board.n) if a not in board.cells]
            if steps:
                move = square(o) + "-" + square(steps[0])
                break
        self.validate_illegal(label, position, "illegal/game_over", move,
                              self.h.IllegalReason.ILLEGAL_REASON_GAME_OVER)

    # -- playouts and records --

    def playout(self, label, start, plies):
        """Random legal moves adjudicated by the server: [(position, move,
        ValidateMove answer)], ending early when the game ends."""
        h = self.h
        variant = self.variant_message(label)
        position = start
        steps = []
        for _ in range(plies):
            answer = self.position_requests(label, position) \
                if not steps or self.rng.random() < 0.5 else \
                self.legal_moves(label, position)[0]
            if answer.status.state != h.GameStatus.STATE_IN_PROGRESS:
                break
            move = "pass" if answer.status.must_pass else \
                self.rng.choice(answer.moves).path
            after = self.call("ValidateMove", h.ValidateMoveRequest(
                variant=variant, position=position, move=move))
            if not after.legal:
                raise RuntimeError("%s: %s from LegalMoves is illegal: %s" % (
                    label, move, after.message))
            steps.append((position, move, after))
            position = after.position_after
        if steps:
            self.position_requests(label, steps[-1][2].position_after)
        return steps

    def playout_requests(self, label, start, plies):
        steps = self.playout(label, start, plies)
        if not steps:
            return
        moves = [m for _, m, _ in steps]
        final = steps[-1][2]
        finished = final.status.state != self.h.GameStatus.STATE_IN_PROGRESS
        kind = "valid/adjudicate_finished" if finished else \
            "valid/adjudicate_playout"
        self.record(kind, label, start, moves, final)
        self.record("valid/adjudicate_shorthand", label, start,
                    [shorthand(m) for m in moves], final)
        for _ in range(5):
            k = self.rng.randrange(1, len(steps) + 1)
            self.record("valid/adjudicate_playout", label, start, moves[:k],
                        steps[k - 1][2])
        self.broken_records(label, start, steps)
        if finished:
            # One move more than the game allows.
            self.record("illegal/record", label, start, moves + [moves[-1]],
                        final, illegal=(
                            len(moves) + 1,
                            self.h.IllegalReason.ILLEGAL_REASON_GAME_OVER))

    def bench_records(self, preset, count=20, plies=6):
        """Short records that start from real bench positions."""
        for path in self.bench_files(preset):
            for position in self.sample_positions(path, count // 2):
                steps = self.playout_quiet(preset, position, plies)
                if steps:
                    self.record("valid/adjudicate_from_bench", preset,
                                position, [m for _, m, _ in steps],
                                steps[-1][2])

    def playout_quiet(self, label, start, plies):
        """A playout that adds no position requests (the bench positions
        already have theirs)."""
        h = self.h
        variant = self.variant_message(label)
        position, steps = start, []
        for _ in range(plies):
            answer = self.legal_moves(label, position)[0]
            if answer.status.state != h.GameStatus.STATE_IN_PROGRESS:
                break
            move = "pass" if answer.status.must_pass else \
                self.rng.choice(answer.moves).path
            after = self.call("ValidateMove", h.ValidateMoveRequest(
                variant=variant, position=position, move=move))
            if not after.legal:
                raise RuntimeError("%s: %s from LegalMoves is illegal" % (
                    label, move))
            steps.append((position, move, after))
            position = after.position_after
        return steps

    def record(self, kind, label, start, moves, final, illegal=None):
        """An Adjudicate request whose answer must report len(moves) (or
        the illegal ply - 1) moves played and `final`'s position."""
        h = self.h
        played = len(moves) if illegal is None else illegal[0] - 1
        position = final.position_after
        state, rule = final.status.state, final.status.rule
        finished = kind == "valid/adjudicate_finished"

        def check(data):
            r = h.AdjudicateResponse.FromString(data)
            problems = []
            if r.moves_played != played:
                problems.append("moves_played %d, expected %d" % (
                    r.moves_played, played))
            if r.final_position != position:
                problems.append("final position %s, expected %s" % (
                    r.final_position, position))
            if r.status.state != state or r.status.rule != rule:
                problems.append("state %d rule %d, expected %d %d" % (
                    r.status.state, r.status.rule, state, rule))
            if finished and r.status.ply != played:
                problems.append("deciding ply %d, expected %d" % (
                    r.status.ply, played))
            if illegal is None and r.HasField("illegal_move"):
                problems.append("illegal move at ply %d: %s" % (
                    r.illegal_move.ply, r.illegal_move.message))
            if illegal is not None and (
                    r.illegal_move.ply != illegal[0] or
                    r.illegal_move.reason != illegal[1]):
                problems.append("illegal move ply %d %s, expected %d %s" % (
                    r.illegal_move.ply,
                    h.IllegalReason.Name(r.illegal_move.reason), illegal[0],
                    h.IllegalReason.Name(illegal[1])))
            return "; ".join(problems) or None
        label2, variant = self.pick_variant(label)
        self.add(kind, label2, RULES + "Adjudicate",
                 h.AdjudicateRequest(variant=variant, start_position=start,
                                     moves=moves), check=check)

    def broken_records(self, label, start, steps):
        """A playout cut at ply k and given an illegal move (the replay
        stops there, whatever follows) or a malformed one (the whole record
        is INVALID_ARGUMENT, naming the move)."""
        h = self.h
        moves = [m for _, m, _ in steps]
        spec = self.specs[label]
        for _ in range(3):
            k = self.rng.randrange(0, len(steps))
            position, _, _ = steps[k]
            answer = self.legal_moves(label, position)[0]
            if answer.status.must_pass:
                continue
            board = Board(answer.position, spec)
            name, move, reason = self.rng.choice(
                self.illegal_moves(board, answer))
            before = steps[k - 1][2] if k > 0 else None
            if before is None:
                before = h.ValidateMoveResponse(position_after=answer.position)
                before.status.CopyFrom(answer.status)
            self.record("illegal/record", label, start,
                        moves[:k] + [move] + moves[k:], before,
                        illegal=(k + 1, reason))
            bad = self.rng.choice(malformed_moves(spec.board_size))
            label2, variant = self.pick_variant(label)
            self.add("malformed/record_move", label2, RULES + "Adjudicate",
                     h.AdjudicateRequest(variant=variant, start_position=start,
                                         moves=moves[:k] + [bad] + moves[k:]),
                     code=grpc.StatusCode.INVALID_ARGUMENT,
                     field="moves[%d] (ply %d)" % (k, k + 1))

    def must_pass_requests(self):
        """The 5x5 position in which 'w' must pass: LegalMoves says so,
        "pass" is legal, any other move is not, and a record of it plays."""
        label, fields = MUST_PASS_VARIANT
        self.specs[label] = self.h.VariantSpec(**fields)
        cells = {(x, y): "w" for x in range(5) for y in range(5)}
        for name, piece in MUST_PASS_BOARD.items():
            p = parse_square(name)
            if piece is None:
                del cells[p]
            else:
                cells[p] = piece
        position = format_board(cells, 5) + " w 0,0"
        answer = self.position_requests(label, position)
        if not answer.status.must_pass:
            raise RuntimeError("the must-pass position is not: " + position)
        h = self.h

        def check(data):
            r = h.ValidateMoveResponse.FromString(data)
            return None if r.legal and r.path == "pass" else \
                "pass: legal=%s %s" % (r.legal, r.message)
        self.add("valid/validate_pass", label, RULES + "ValidateMove",
                 h.ValidateMoveRequest(variant=self.variant_message(label),
                                       position=position, move="pass"),
                 check=check)
        self.playout_requests(label, position, 6)

    # -- malformed requests --

    def malformed_position_requests(self, label, position, canonical,
                                    board):
        """Variations of the canonical position that break it, a bad
        square, a bad move, and now and then undecodable bytes."""
        h = self.h
        label2, variant = self.pick_variant(label)
        bad_positions = malformed_positions(canonical, board)
        for bad in self.rng.sample(bad_positions, 2):
            method = self.rng.choice(["LegalMoves", "ValidateMove"])
            request = h.LegalMovesRequest(variant=variant, position=bad) \
                if method == "LegalMoves" else h.ValidateMoveRequest(
                    variant=variant, position=bad, move="pass")
            self.add("malformed/position", label2, RULES + method, request,
                     code=grpc.StatusCode.INVALID_ARGUMENT, field="position")
        bad = self.rng.choice(bad_positions)
        self.add("malformed/start_position", label2, RULES + "Adjudicate",
                 h.AdjudicateRequest(variant=variant, start_position=bad,
                                     moves=["pass"]),
                 code=grpc.StatusCode.INVALID_ARGUMENT,
                 field="start_position")
        n = board.n
        self.add("malformed/square", label2, RULES + "LegalMoves",
                 h.LegalMovesRequest(variant=variant, position=position,
                                     origin=self.rng.choice(
                                         malformed_squares(n))),
                 code=grpc.StatusCode.INVALID_ARGUMENT, field="origin")
        self.add("malformed/move", label2, RULES + "ValidateMove",
                 h.ValidateMoveRequest(variant=variant, position=position,
                                       move=self.rng.choice(
                                           malformed_moves(n))),
                 code=grpc.StatusCode.INVALID_ARGUMENT, field="move")
        if self.rng.random() < 0.2:
            self.raw_requests(label2, variant, position, board)

    def malformed_variants(self):
        h = self.h
        bad_specs = [
            ("board_size", dict(board_size=3, seat_count=2, camp_rows=[1])),
            ("board_size", dict(board_size=17, seat_count=2, camp_rows=[1])),
            ("board_size", dict(seat_count=2, camp_rows=[1])),
            ("seat_count", dict(board_size=8, seat_count=3,
                                camp_rows=[4, 3, 2, 1])),
            ("seat_count", dict(board_size=8, camp_rows=[4, 3, 2, 1])),
            ("camp_rows", dict(board_size=8, seat_count=2)),
            ("camp_rows", dict(board_size=8, seat_count=2, camp_rows=[1, 2])),
            ("camp_rows", dict(board_size=8, seat_count=2, camp_rows=[3, 0])),
            ("camp_rows", dict(board_size=8, seat_count=2, camp_rows=[9])),
            ("camp_rows", dict(board_size=4, seat_count=2,
                               camp_rows=[4, 4, 4])),
            ("camp_rows", dict(board_size=6, seat_count=4,
                               camp_rows=[4, 4, 4])),
            ("move_cap", dict(board_size=8, seat_count=2,
                              camp_rows=[4, 3, 2, 1], move_cap=-1)),
            ("home_exit_limit", dict(board_size=8, seat_count=2,
                                     camp_rows=[4, 3, 2, 1],
                                     home_exit_limit=-5)),
        ]
        for field, fields in bad_specs:
            variant = h.Variant(custom=h.VariantSpec(**fields))
            for method, request in self.requests_with(variant):
                self.add("malformed/variant", "custom-bad", RULES + method,
                         request, code=grpc.StatusCode.INVALID_ARGUMENT,
                         field="variant.custom." + field)
        for name in ("brainking-9x9", "Classic-16x16", "",
                     "classic-16x16 ", "x" * 300):
            for method, request in self.requests_with(
                    h.Variant(preset=name)):
                self.add("malformed/variant", "preset-bad", RULES + method,
                         request, code=grpc.StatusCode.INVALID_ARGUMENT,
                         field="variant.preset")
        for method, request in self.requests_with(None):
            self.add("malformed/no_variant", "-", RULES + method, request,
                     code=grpc.StatusCode.INVALID_ARGUMENT, field="variant")
        self.oversized_camp_rows()

    def requests_with(self, variant):
        """One request of each position RPC for a (bad) variant."""
        h = self.h
        kw = {} if variant is None else {"variant": variant}
        return [("LegalMoves", h.LegalMovesRequest(**kw)),
                ("ValidateMove", h.ValidateMoveRequest(move="pass", **kw)),
                ("Adjudicate", h.AdjudicateRequest(moves=["pass"], **kw))]

    def oversized_camp_rows(self):
        """camp_rows lists longer than the board, up to what fits in one
        request: INVALID_ARGUMENT, whose message (a gRPC trailer) must stay
        small enough for the client to read it."""
        h = self.h
        budget = self.limits["max_message_bytes"] - 64
        for size in (17, 100, 1000, 4000, 16000, budget):
            for n in (8, 16):
                variant = h.Variant(custom=h.VariantSpec(
                    board_size=n, seat_count=2,
                    camp_rows=[1] * min(size, budget - 16)))
                for method, request in self.requests_with(variant):
                    self.add("malformed/camp_rows_oversized", "custom-bad",
                             RULES + method, request,
                             code=grpc.StatusCode.INVALID_ARGUMENT,
                             field="variant.custom.camp_rows")

    def oversized_requests(self):
        """A record one move over the server's record limit (when it fits
        the message limit) and a request over the message limit."""
        h = self.h
        limit = self.limits["max_record_moves"]
        for label in ("brainking-8x8", "classic-16x16"):
            request = h.AdjudicateRequest(variant=h.Variant(preset=label),
                                          moves=["pass"] * (limit + 1))
            if request.ByteSize() < self.limits["max_message_bytes"]:
                self.add("malformed/record_too_long", label,
                         RULES + "Adjudicate", request,
                         code=grpc.StatusCode.INVALID_ARGUMENT, field="moves")
            big = h.AdjudicateRequest(
                variant=h.Variant(preset=label),
                moves=["b1-d3"] * (self.limits["max_message_bytes"] // 7 + 64))
            self.add("malformed/message_too_large", label,
                     RULES + "Adjudicate", big,
                     code=grpc.StatusCode.RESOURCE_EXHAUSTED)

    def long_records(self, records):
        """The attack suite's long legal records (records.py), as built and
        verified by it against this server."""
        h = self.h
        for record in records:
            played = len(record.moves)

            def check(data, played=played):
                r = h.AdjudicateResponse.FromString(data)
                if r.moves_played != played or r.HasField("illegal_move"):
                    return "moves_played %d, expected %d" % (r.moves_played,
                                                             played)
                return None
            self.add("valid/adjudicate_long", "classic-16x16",
                     RULES + "Adjudicate", record.serialized, check=check)

    # -- undecodable bytes --

    def raw_requests(self, label, variant, position, board):
        """Bytes that are no valid request, through a generic call: a real
        request cut inside its last field, a dangling tag, an invalid wire
        type, and invalid UTF-8 in each kind of string field. The message
        must name the field whose text is not UTF-8; for the rest the
        field is whatever the parser stopped at ("request" mostly), so
        only a message is required."""
        h = self.h
        sample = {
            "ValidateMove": h.ValidateMoveRequest(
                variant=variant, position=position, move="pass"),
            "LegalMoves": h.LegalMovesRequest(variant=variant,
                                              position=position,
                                              origin=square(board.own[0])),
            "Adjudicate": h.AdjudicateRequest(variant=variant,
                                              start_position=position,
                                              moves=["pass"]),
        }
        for method, message in sample.items():
            data = message.SerializeToString()
            cut = self.rng.randrange(1, 4)
            self.add_raw(method, label, data[:-cut], message)
            self.add_raw(method, label, data + b"\x28", message)  # Tag only.
            self.add_raw(method, label, data + b"\x0f\x01", message)
            bad = self.rng.choice([b"a1-\xff", b"\xc3\x28", b"\xed\xa0\x80",
                                   b"pa\xe2\x82ss", b"\x80"])
            # Field 3 is the move, the origin or one more move of the
            # record (moves[1]); field 2 the position (put first, before
            # the real one); field 1.1 the preset name in the variant.
            third = {"ValidateMove": "move", "LegalMoves": "origin",
                     "Adjudicate": "moves[1]"}[method]
            second = "start_position" if method == "Adjudicate" \
                else "position"
            self.add_raw(method, label, data + field_bytes(3, bad), message,
                         utf8=bad, field=third)
            self.add_raw(method, label, field_bytes(2, bad) + data, message,
                         utf8=bad, field=second)
            self.add_raw(method, label, field_bytes(
                1, field_bytes(1, b"brainking-\xff8x8")) + data, message,
                utf8=b"\xff", field="variant.preset")

    def raw_list_variants(self):
        """ListVariantsRequest has no field: a truncated field of any
        number, a dangling tag, an invalid wire type."""
        for data in (b"\x0a\x05ab", b"\x0a", b"\x0f", b"\x08"):
            self.add_raw("ListVariants", "-", data,
                         self.h.ListVariantsRequest())

    def add_raw(self, name, label, data, message, method=None, utf8=None,
                field=None):
        """Checks the construction before adding it: the bytes meant as
        invalid UTF-8 are, and the rest does not parse with the client's
        own protobuf either (not tried for UTF-8: the C++ runtime would log
        a line per attempt)."""
        if utf8 is not None and is_utf8(utf8):
            raise RuntimeError("valid UTF-8: %r" % utf8)
        if utf8 is None and parses(type(message), data):
            raise RuntimeError("%s: %r parses" % (name, data[-20:]))
        self.add("raw/" + name, label, method or RULES + name, data,
                 code=grpc.StatusCode.INVALID_ARGUMENT, field=field)


def is_utf8(data):
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def parses(message_type, data):
    try:
        message_type.FromString(data)
    except DecodeError:
        return False
    return True


def varint(n):
    out = b""
    while True:
        byte, n = n & 0x7F, n >> 7
        out += bytes([byte | (0x80 if n else 0)])
        if not n:
            return out


def field_bytes(number, payload):
    """A length-delimited protobuf field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def shorthand(move):
    """A chain written as "origin-destination" where that means "any
    chain" (not for neighbours or squares two apart on a line)."""
    squares = move.split("-")
    if len(squares) > 2 and not is_direct(parse_square(squares[0]),
                                          parse_square(squares[-1])):
        return squares[0] + "-" + squares[-1]
    return move


def malformed_squares(n):
    off_file = FILES[n] if n < len(FILES) else "q"
    return [off_file + "1", "a0", "a%d" % (n + 1), "A1", "a01", "a", "1a",
            "b2c", "a-1", "\u00e91", "a 1", "pass"]


def malformed_moves(n):
    off_file = FILES[n] if n < len(FILES) else "q"
    return ["", "a1-", "-a1", "a1--b2", "a1b2", "a%d-a1" % (n + 1),
            off_file + "1-a1", "A1-b2", "a01-b2", "a1", "pass-a1", "a1 - b2",
            "b2-c3-", "zz9"]


def malformed_positions(position, board):
    """Variations of a real position that break one rule of section 4."""
    n = board.n
    fields = position.split(" ")
    ranks = fields[0].split("/")
    side = fields[1]
    counts = fields[2].split(",")
    other = next(s for s in "wrbg" if s != side and s in fields[0])
    swapped = dict(board.cells)
    p = board.own[0]
    swapped[p] = other  # One piece too few for side, one too many for other.
    out = [
        "/".join(ranks[1:]) + " " + side + " " + fields[2],  # N-1 ranks.
        "/".join([side + ranks[0]] + ranks[1:]) + " " + side + " " +
        fields[2],  # A rank of N+1 squares.
        fields[0] + " x " + fields[2],
        fields[0] + " " + side + " " + ",".join(counts[:-1]),
        fields[0] + "  " + side + " " + fields[2],
        fields[0] + " " + side,
        format_board(swapped, n) + " " + side + " " + fields[2],
        fields[0].replace(side, "z", 1) + " " + side + " " + fields[2],
        "/".join(ranks + [str(n)]) + " " + side + " " + fields[2],
        fields[0] + " " + side + " " + fields[2] + " extra",
        # Move counts beyond 64 bits.
        fields[0] + " " + side + " " + ",".join("9" * 20 for _ in counts),
    ]
    return out
