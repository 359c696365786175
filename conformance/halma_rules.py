"""An independent reading of the rule book's move rules, for the generator's
review of the engine's answers.

The conformance suite's expected answers come from the engine (through a
real halma_server). This module checks them against docs/rules.md without
any of the engine's code: the board geometry (sections 1 and 2), the
notation of squares and positions (section 4) and the legal moves of a
position (section 3: steps, jump chains, target lock, distinct
(origin, destination) pairs with their fewest hops). It also counts the
fewest-hop paths of each move, so that the generator knows where the API
leaves the choice of path to the implementation (several paths with the
fewest hops) and the suite must not expect one of them.

It does not evaluate game ends (section 5); those answers are checked
against the public vectors and the hand-written expectations of
generate.py.
"""

FILES = "abcdefghijklmnop"
OPPOSITE = {"w": "b", "b": "w", "r": "g", "g": "r"}
DIRECTIONS = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1)
              if (df, dr) != (0, 0)]


class Variant:
    """The parameters of a variant (docs/rules.md section 2) that move
    generation needs."""

    def __init__(self, size, seats, camp_rows, target_lock):
        self.size = size
        self.seats = "wb" if seats == 2 else "wrbg"
        self.camp_rows = list(camp_rows)
        self.target_lock = target_lock
        self.camps = {seat: camp_squares(size, camp_rows, seat)
                      for seat in self.seats}

    def target(self, seat):
        return self.camps[OPPOSITE[seat]]


def camp_squares(size, camp_rows, seat):
    """The home camp of `seat`: row i (from the corner's edge) holds
    camp_rows[i] squares from the corner along that edge (section 2)."""
    squares = set()
    for i, length in enumerate(camp_rows):
        rank = i if seat in "wg" else size - 1 - i
        for j in range(length):
            file = j if seat in "wr" else size - 1 - j
            squares.add((file, rank))
    return squares


def square_name(square):
    return FILES[square[0]] + str(square[1] + 1)


def parse_square(text):
    return (FILES.index(text[0]), int(text[1:]) - 1)


def parse_board(text, size):
    """The board field of a position (section 4) as {square: seat}; leading
    zeros in runs are read, as the rule book allows."""
    board = {}
    ranks = text.split("/")
    assert len(ranks) == size, text
    for row, rank_text in enumerate(ranks):
        rank = size - 1 - row
        file = 0
        run = ""
        for ch in rank_text + "/":
            if ch.isdigit():
                run += ch
                continue
            if run:
                file += int(run)
                run = ""
            if ch == "/":
                break
            board[(file, rank)] = ch
            file += 1
        assert file == size, rank_text
    return board


def parse_position(text, size):
    board_text, to_move, counts = text.split(" ")
    return parse_board(board_text, size), to_move, [
        int(c) for c in counts.split(",")]


def on_board(square, size):
    return 0 <= square[0] < size and 0 <= square[1] < size


def piece_moves(variant, board, origin):
    """{destination: (hops, number of fewest-hop paths)} for the piece on
    `origin` (section 3). Under target lock a piece standing in its target
    camp may not land outside it, which depends only on the square it
    stands on, so a breadth-first search over landing squares finds the
    fewest hops and counts the paths that have them (a fewest-hop path never
    visits a square twice)."""
    size = variant.size
    seat = board[origin]
    target = variant.target(seat) if variant.target_lock else None

    def allowed(src, dst):
        return target is None or src not in target or dst in target

    def occupied(square):
        return square != origin and square in board

    moves = {}
    for df, dr in DIRECTIONS:
        dst = (origin[0] + df, origin[1] + dr)
        if on_board(dst, size) and not occupied(dst) and allowed(origin, dst):
            moves[dst] = (0, 1)
    depth = {origin: 0}
    paths = {origin: 1}
    layer = [origin]
    hops = 0
    while layer:
        hops += 1
        reached = {}
        for src in layer:
            for df, dr in DIRECTIONS:
                over = (src[0] + df, src[1] + dr)
                dst = (src[0] + 2 * df, src[1] + 2 * dr)
                if not on_board(dst, size) or not occupied(over):
                    continue
                if occupied(dst) or dst == origin or dst in depth:
                    continue
                if not allowed(src, dst):
                    continue
                reached[dst] = reached.get(dst, 0) + paths[src]
        for dst, count in reached.items():
            depth[dst] = hops
            paths[dst] = count
            if dst not in moves:
                moves[dst] = (hops, count)
        layer = sorted(reached)
    return moves


def legal_moves(variant, position_text):
    """{(origin, destination): (hops, fewest-hop path count)} of the side to
    move, square names as in the notation."""
    board, to_move, _ = parse_position(position_text, variant.size)
    moves = {}
    for origin, seat in board.items():
        if seat != to_move:
            continue
        for dst, info in piece_moves(variant, board, origin).items():
            moves[(square_name(origin), square_name(dst))] = info
    return moves


def move_order_key(origin, destination):
    """The order of LegalMoves: origin, then destination, file first
    (proto: LegalMovesResponse.moves)."""
    o, d = parse_square(origin), parse_square(destination)
    return (o[0], o[1], d[0], d[1])


def advance(variant, seat, origin, destination):
    """How far a move brings a piece towards its target corner (for the
    generator's greedy playouts): the decrease of its Chebyshev-weighted
    distance to the target's corner."""
    size = variant.size
    corner = {"w": (size - 1, size - 1), "b": (0, 0), "r": (size - 1, 0),
              "g": (0, size - 1)}[seat]
    o, d = parse_square(origin), parse_square(destination)

    def distance(s):
        return abs(s[0] - corner[0]) + abs(s[1] - corner[1])

    return distance(o) - distance(d)


def continuations(variant, board, chain):
    """The squares the piece could hop to next from the end of `chain` (a
    list of square names, origin first): over an occupied neighbour to the
    empty square behind it, not visited by the chain, and under target lock
    not out of the target camp once in it (section 3); in LegalMoves'
    destination order (proto: ValidateMoveResponse.continuations)."""
    squares = [parse_square(s) for s in chain]
    origin, end = squares[0], squares[-1]
    seat = board[origin]
    target = variant.target(seat) if variant.target_lock else None
    visited = set(squares)

    def occupied(square):
        return square != origin and square in board

    out = []
    for df, dr in DIRECTIONS:
        over = (end[0] + df, end[1] + dr)
        dst = (end[0] + 2 * df, end[1] + 2 * dr)
        if not on_board(dst, variant.size) or not occupied(over):
            continue
        if occupied(dst) or dst in visited:
            continue
        if target is not None and end in target and dst not in target:
            continue
        out.append(dst)
    return [square_name(s) for s in sorted(out)]


def roundabout_chain(variant, board, origin, limit=20000):
    """A legal jump chain of the piece on `origin` that uses more hops than
    the fewest reaching its end (section 3 allows any chain; section 4's
    normalised path is the fewest-hop one), or None. Depth first, in a fixed
    order of directions, at most `limit` chains looked at."""
    fewest = piece_moves(variant, board, origin)
    seat = board[origin]
    target = variant.target(seat) if variant.target_lock else None

    def occupied(square):
        return square != origin and square in board

    stack = [[origin]]
    seen = 0
    while stack and seen < limit:
        chain = stack.pop()
        seen += 1
        end = chain[-1]
        if len(chain) > 2 and fewest.get(end, (0,))[0] < len(chain) - 1:
            return [square_name(s) for s in chain]
        for df, dr in reversed(DIRECTIONS):
            over = (end[0] + df, end[1] + dr)
            dst = (end[0] + 2 * df, end[1] + 2 * dr)
            if (not on_board(dst, variant.size) or not occupied(over) or
                    occupied(dst) or dst in chain):
                continue
            if target is not None and end in target and dst not in target:
                continue
            stack.append(chain + [dst])
    return None
