"""Expensive but legal Adjudicate records, built against the server itself.

Candidates (every one is replayed by the server with Adjudicate and kept
only if all its moves are legal and the game is still in progress):

- "played": classic-16x16 from its start position, each turn the move of
  LegalMoves with the most hops (greedy), then the best back-and-forth
  cycle found at the end (w hops A->B, b hops C->D, w hops B->A, b hops
  D->C, checked with ValidateMove), repeated.
- "loopN": a classic-16x16 start_position with a closed loop of N landing
  squares and a piece between each two consecutive ones. The side-to-move
  piece and the other seat's piece stand on neighbouring landings and
  leapfrog: each move hops the long way round the loop (N-2 hops) to land
  just behind the other piece, so the pattern goes on for ever and every
  move is a long chain. Two loops: a boustrophedon one (30 landings, 28
  hops per move) and an octagon with only 45-degree turns (21 landings),
  where every move can be written as two-square shorthand ("from-to", so
  the server searches the chain).
- encodings: "path" writes every hop; "short" uses the two-square
  shorthand wherever it means "any chain" (not for neighbours or squares
  two apart on a line).

Records are as long as HALMA_MAX_RECORD_MOVES and HALMA_MAX_MESSAGE_BYTES
allow (a small margin below the message limit). The most expensive one (by
the server's measured latency) is the attack's request. Nothing is cached
on disk.
"""

import time

import grpc

FILES = "abcdefghijklmnop"
PRESET = "classic-16x16"
BOARD = 16
PIECES_PER_SEAT = 19
# Camps of classic-16x16 in (file, rank) 0-based coordinates: rows 5,5,4,3,2
# from each corner's edge.
CAMP_ROWS = (5, 5, 4, 3, 2)
MESSAGE_MARGIN = 64
GREEDY_PLIES = 40
TIMING_CALLS = 3


def square(p):
    return FILES[p[0]] + str(p[1] + 1)


def parse_square(text):
    return FILES.index(text[0]), int(text[1:]) - 1


def is_direct(a, b):
    """Neighbours, or two apart on a line: a two-square move between them
    is a step or a single hop, not chain shorthand."""
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    m = max(dx, dy)
    return m <= 1 or (m == 2 and (dx == 0 or dy == 0 or dx == dy))


def encode(points, short):
    if short and len(points) > 2 and not is_direct(points[0], points[-1]):
        return square(points[0]) + "-" + square(points[-1])
    return "-".join(square(p) for p in points)


def camp(corner):
    """Squares of a classic-16x16 camp; corner "sw" or "ne"."""
    out = set()
    for row, length in enumerate(CAMP_ROWS):
        for i in range(length):
            x, y = i, row
            out.add((x, y) if corner == "sw" else (BOARD - 1 - x,
                                                   BOARD - 1 - y))
    return out


def format_position(board, side, counts):
    ranks = []
    for y in range(BOARD - 1, -1, -1):
        text, empty = "", 0
        for x in range(BOARD):
            piece = board.get((x, y))
            if piece:
                if empty:
                    text += str(empty)
                    empty = 0
                text += piece
            else:
                empty += 1
        if empty:
            text += str(empty)
        ranks.append(text)
    return "/".join(ranks) + " " + side + " " + counts


def boustrophedon_loop(width=6, height=5, x0=1, y0=2):
    """A closed loop over a width x height block of the 8x8 grid of
    even-even squares (width even): up column 0, snake through the other
    columns above row 0, back along row 0."""
    cells = [(0, j) for j in range(height)]
    for i in range(1, width):
        rows = range(height - 1, 0, -1) if i % 2 else range(1, height)
        cells += [(i, j) for j in rows]
    cells += [(i, 0) for i in range(width - 1, 0, -1)]
    return [(2 * (i + x0), 2 * (j + y0)) for i, j in cells]


def octagon_loop():
    """A loop with 45-degree turns only, so that no landing is two apart on
    a line from the one after next (every move can be shorthand); its
    diagonal sides cut the two camp corners."""
    sides = [((1, 0), 3), ((1, 1), 1), ((0, 1), 4), ((-1, 1), 2),
             ((-1, 0), 4), ((-1, -1), 1), ((0, -1), 3), ((1, -1), 3)]
    p = (3, 0)
    cells = []
    for (dx, dy), steps in sides:
        for _ in range(steps):
            cells.append(p)
            p = (p[0] + dx, p[1] + dy)
    assert p == (3, 0)
    return [(2 * i, 2 * j) for i, j in cells]


def loop_position(landings):
    """Board with a piece between consecutive landings (alternately w and
    b), w on landing 0, b on landing 1, and the remaining pieces away from
    the loop. None if it cannot be laid out."""
    n = len(landings)
    forbidden = camp("sw") | camp("ne")
    if any(p in forbidden for p in landings) or len(set(landings)) != n:
        return None
    board = {}
    for k in range(n):
        a, b = landings[k], landings[(k + 1) % n]
        if max(abs(a[0] - b[0]), abs(a[1] - b[1])) != 2:
            return None
        mid = ((a[0] + b[0]) // 2, (a[1] + b[1]) // 2)
        board[mid] = "w" if k % 2 == 0 else "b"
    board[landings[0]] = "w"
    board[landings[1]] = "b"
    land = set(landings)
    far = [(x, y) for y in range(BOARD - 1, -1, -1) for x in range(BOARD)
           if (x, y) not in board and (x, y) not in land
           and all(max(abs(x - a), abs(y - b)) >= 2 for a, b in land)]
    near = [(x, y) for y in range(BOARD - 1, -1, -1) for x in range(BOARD)
            if (x, y) not in board and (x, y) not in land
            and (x, y) not in far]
    free = far + near
    for seat in "wb":
        while sum(1 for v in board.values() if v == seat) < PIECES_PER_SEAT:
            if not free:
                return None
            board[free.pop(0)] = seat
    if sum(1 for v in board.values() if v == "w") != PIECES_PER_SEAT or \
            sum(1 for v in board.values() if v == "b") != PIECES_PER_SEAT:
        return None
    return format_position(board, "w", "0,0")


def loop_move(landings, ply):
    n = len(landings)
    k = ply % n
    return [landings[(k - t) % n] for t in range(n - 1)]


def field_bytes(text):
    n = len(text.encode())
    varint = 1
    while n >= 128 ** varint:
        varint += 1
    return 1 + varint + n


class Record:
    def __init__(self, name, start_position, moves, hops, request_bytes):
        self.name = name
        self.start_position = start_position
        self.moves = moves
        self.hops = hops
        self.request_bytes = request_bytes
        self.serialized = None
        self.server_ms = None
        self.verified = False
        self.problem = None

    def figures(self):
        return {"name": self.name, "moves": len(self.moves),
                "hops": self.hops, "bytes": self.request_bytes,
                "server_ms": self.server_ms, "verified": self.verified,
                "problem": self.problem}


def fill_record(name, start_position, move_at, limits, short):
    """Moves from move_at(ply) (lists of squares) until a limit is hit."""
    max_moves = limits["max_record_moves"]
    budget = limits["max_message_bytes"] - MESSAGE_MARGIN
    size = field_bytes(PRESET) + 2  # The Variant message and its tag.
    if start_position:
        size += field_bytes(start_position)
    moves, hops = [], 0
    for ply in range(max_moves):
        points = move_at(ply)
        if points is None:
            break
        text = encode(points, short)
        if size + field_bytes(text) > budget:
            break
        moves.append(text)
        size += field_bytes(text)
        hops += len(points) - 1
    return Record(name, start_position, moves, hops, size)


class Builder:
    def __init__(self, channel, pb):
        self.pb = pb
        h = pb.halma
        self.variant = h.Variant(preset=PRESET)
        self.legal = channel.unary_unary(
            "/halma.v1.HalmaRules/LegalMoves",
            request_serializer=h.LegalMovesRequest.SerializeToString,
            response_deserializer=h.LegalMovesResponse.FromString)
        self.validate = channel.unary_unary(
            "/halma.v1.HalmaRules/ValidateMove",
            request_serializer=h.ValidateMoveRequest.SerializeToString,
            response_deserializer=h.ValidateMoveResponse.FromString)
        self.adjudicate = channel.unary_unary(
            "/halma.v1.HalmaRules/Adjudicate",
            response_deserializer=h.AdjudicateResponse.FromString)

    def after(self, position, move):
        answer = self.validate(self.pb.halma.ValidateMoveRequest(
            variant=self.variant, position=position, move=move), timeout=10)
        return answer.position_after if answer.legal else None

    def played(self, limits, short):
        """Greedy longest-hop play from the start, then a repeated cycle."""
        position = ""
        prefix = []
        for _ in range(GREEDY_PLIES):
            answer = self.legal(self.pb.halma.LegalMovesRequest(
                variant=self.variant, position=position), timeout=10)
            if not answer.moves:
                break
            best = max(answer.moves, key=lambda m: m.hops)
            nxt = self.after(position, best.path)
            if nxt is None:
                break
            prefix.append(best.path)
            position = nxt
        cycle = self.find_cycle(position)
        if cycle is None:
            return None
        moves = [[parse_square(s) for s in m.split("-")]
                 for m in prefix + cycle]
        plen = len(prefix)

        def move_at(ply):
            if ply < plen:
                return moves[ply]
            return moves[plen + (ply - plen) % 4]

        return fill_record("played-%s" % ("short" if short else "path"), "",
                           move_at, limits, short)

    def top_moves(self, position, k=3):
        answer = self.legal(self.pb.halma.LegalMovesRequest(
            variant=self.variant, position=position), timeout=10)
        moves = sorted(answer.moves, key=lambda m: -m.hops)
        return [m.path for m in moves[:k] if m.hops > 0]

    def find_cycle(self, position):
        """[m1, m2, reverse(m1), reverse(m2)] with the most hops whose
        replay gives back the board of `position`."""
        best = None
        board = position.split(" ")[0] if position else None
        for m1 in self.top_moves(position):
            p1 = self.after(position, m1)
            if p1 is None:
                continue
            for m2 in self.top_moves(p1):
                p2 = self.after(p1, m2)
                r1 = "-".join(reversed(m1.split("-")))
                p3 = self.after(p2, r1) if p2 else None
                r2 = "-".join(reversed(m2.split("-")))
                p4 = self.after(p3, r2) if p3 else None
                if p4 is None:
                    continue
                if board is not None and p4.split(" ")[0] != board:
                    continue
                score = m1.count("-") + m2.count("-")
                if best is None or score > best[0]:
                    best = (score, [m1, m2, r1, r2])
        return best[1] if best else None

    def loop(self, name, landings, limits, short):
        position = loop_position(landings)
        if position is None:
            return None
        return fill_record(name + ("-short" if short else "-path"), position,
                           lambda ply: loop_move(landings, ply), limits,
                           short)

    def serialize(self, record):
        h = self.pb.halma
        return h.AdjudicateRequest(variant=self.variant,
                                   start_position=record.start_position,
                                   moves=record.moves).SerializeToString()

    def verify_and_time(self, record):
        data = self.serialize(record)
        record.serialized = data
        record.request_bytes = len(data)
        best = None
        for _ in range(TIMING_CALLS):
            t = time.monotonic()
            try:
                answer = self.adjudicate(data, timeout=30)
            except grpc.RpcError as e:
                record.problem = "%s: %s" % (e.code().name, e.details())
                return
            elapsed = (time.monotonic() - t) * 1000.0
            best = elapsed if best is None else min(best, elapsed)
            if answer.moves_played != len(record.moves) or \
                    answer.HasField("illegal_move"):
                record.problem = "replay stopped at ply %d: %s" % (
                    answer.illegal_move.ply, answer.illegal_move.message)
                return
        record.verified = True
        record.server_ms = round(best, 2)


def build_records(target, pb, limits, log):
    """All candidates; (most expensive, largest, list of candidates)."""
    t0 = time.monotonic()
    channel = grpc.insecure_channel(target, options=[
        ("grpc.max_receive_message_length", 1 << 24),
        ("grpc.max_send_message_length", -1)])
    try:
        grpc.channel_ready_future(channel).result(timeout=20)
        builder = Builder(channel, pb)
        candidates = []
        for short in (False, True):
            for maker in (lambda: builder.played(limits, short),
                          lambda: builder.loop("loop30", boustrophedon_loop(),
                                               limits, short),
                          lambda: builder.loop("octagon21", octagon_loop(),
                                               limits, short)):
                try:
                    record = maker()
                except grpc.RpcError as e:
                    log("record candidate failed: %s" % e.code().name)
                    continue
                if record is not None and record.moves:
                    builder.verify_and_time(record)
                    candidates.append(record)
    finally:
        channel.close()
    good = [r for r in candidates if r.verified]
    for r in candidates:
        log("record %-16s %5d moves %6d hops %7d bytes  %s" % (
            r.name, len(r.moves), r.hops, r.request_bytes,
            ("%.1f ms" % r.server_ms) if r.verified else r.problem))
    if not good:
        raise RuntimeError("no legal record could be built: " + "; ".join(
            "%s: %s" % (r.name, r.problem) for r in candidates))
    expensive = max(good, key=lambda r: r.server_ms)
    largest = max(good, key=lambda r: r.request_bytes)
    log("records built in %.1f s; most expensive: %s" % (
        time.monotonic() - t0, expensive.name))
    return expensive, largest, candidates
