"""The requests of the conformance suite, file by file, and what the rule
book says of their answers (`review`, checked by builder.py before a case
is kept).

Sources: the public vectors (testdata/vectors: every line becomes a case
and is checked against its expected answer), seeded playouts on every
preset and on custom variants (odd sizes, four players, move caps, target
lock, round completion, home exit), docs/perft.md's tables, the examples
of docs/record-format.md, and positions written for one rule each (the
comments say what the rule book makes of them).
"""

import json
import os
import random
import re

import halma_rules
from builder import GenerationError, is_shorthand

LV, LM, VM, ADJ, PERFT, SUGGEST = (
    "ListVariants", "LegalMoves", "ValidateMove", "Adjudicate", "Perft",
    "SuggestMove")
MAX_COUNT = "9223372036854775807"


def preset(name):
    return {"preset": name}


def custom(size, seats, rows, home_exit=0, round_completion=False,
           target_lock=False, move_cap=0):
    return {"custom": {
        "boardSize": size, "seatCount": seats, "campRows": list(rows),
        "homeExitLimit": home_exit, "roundCompletion": round_completion,
        "targetLock": target_lock, "moveCap": move_cap}}


PRESETS = ["brainking-8x8", "brainking-10x10", "iggamecenter-10x10",
           "classic-16x16", "classic-16x16-4p"]
# Custom variants of the playouts: (name, variant, areas).
CUSTOM_PLAYOUTS = [
    ("custom-5x5", custom(5, 2, [4, 3, 2, 1]), ["odd-size", "dense"]),
    ("custom-6x6", custom(6, 2, [3, 2, 1]), []),
    ("custom-7x7-4p-cap", custom(7, 4, [2, 1], target_lock=True, move_cap=8),
     ["odd-size", "move-cap", "target-lock"]),
    ("custom-9x9-rc-lock",
     custom(9, 2, [4, 3, 2, 1], home_exit=40, round_completion=True,
            target_lock=True), ["odd-size", "round-completion", "target-lock",
                                "home-exit"]),
    ("custom-11x11-4p-exit", custom(11, 4, [3, 2, 1], home_exit=6),
     ["odd-size", "home-exit", "elimination"]),
    ("custom-13x13-cap", custom(13, 2, [5, 4, 3, 2, 1], move_cap=30),
     ["odd-size", "move-cap"]),
]
# Open8 and Locked8: 8x8, camps [3,2,1]; w's home a1 b1 c1 a2 b2 a3, its
# target f8 g8 h8 g7 h7 h6.
OPEN8 = custom(8, 2, [3, 2, 1])
LOCKED8 = custom(8, 2, [3, 2, 1], target_lock=True)
# D2: w g7 h6 in its target, c4 a1 b1 c1; b d5 f7 a6 a7 a8 b8.
D2 = "bb6/b4bw1/b6w/3b4/2w5/8/8/www5 w 10,10"
# 4x4, camps [4,3], target lock: w's target a4 b4 c4 d4 b3 c3 d3.
TINY_LOCKED = custom(4, 2, [4, 3], target_lock=True)
W_MUST_PASS = "wwww/1bww/bbb1/bwbb w 20,20"
# 4x4, four seats, camps [2,1].
TINY_4P = custom(4, 4, [2, 1])
# 8x8, four seats, camps [2,1], home-exit limit 2.
EXIT_4P = custom(8, 4, [2, 1], home_exit=2)
# 8x8, four seats, camps [1], round completion.
RC_4P = custom(8, 4, [1], round_completion=True)
# 8x8, camps [4,3,2,1], move cap 2.
CAP2 = custom(8, 2, [4, 3, 2, 1], move_cap=2)


def seat(letter):
    return "SEAT_" + letter.upper()


def seats(letters):
    return [seat(c) for c in letters]


def players(variant, builder):
    if "preset" in variant:
        count = builder.presets[variant["preset"]]["spec"]["seatCount"]
    else:
        count = variant["custom"]["seatCount"]
    return "four-players" if count == 4 else "two-players"


def kind_area(variant):
    return "presets" if "preset" in variant else "custom-variants"


def variant_slug(variant):
    if "preset" in variant:
        return variant["preset"]
    c = variant["custom"]
    return "custom-%dx%d-%dp" % (c["boardSize"], c["boardSize"],
                                 c["seatCount"])


def in_progress(to_move, **more):
    status = {"state": "STATE_IN_PROGRESS", "toMove": seat(to_move)}
    status.update(more)
    return status


def finished(state, winners, rule, **more):
    status = {"state": "STATE_" + state.upper(), "winners": seats(winners),
              "rule": "DECIDING_RULE_" + rule.upper().replace("-", "_")}
    status.update(more)
    return status


# ------------------------------------------------------------- vectors --

def load_vectors(repo):
    vectors = {}
    for name in ("positions", "records", "malformed"):
        path = os.path.join(repo, "testdata", "vectors", name + ".jsonl")
        with open(path, encoding="utf-8") as f:
            vectors[name] = [json.loads(line) for line in f if line.strip()]
    return vectors


def vector_variant(v):
    if isinstance(v, str):
        return preset(v)
    return custom(v["n"], v["seats"], v["camp"], v["home_exit"],
                  v["round_completion"], v["target_lock"], v["move_cap"])


VECTOR_RULES = {"target-filled": "target-filled", "home-exit": "home-exit",
                "move-cap": "move-cap", "all-passed": "everyone-stuck"}


def vector_status(expect):
    """The GameStatus fields a vector's expected result fixes."""
    if expect["status"] == "in_progress":
        return in_progress(expect["to_move"],
                           roundCompletionTurn=expect["rc_turn"])
    return finished(expect["status"], expect["winners"],
                    VECTOR_RULES[expect["rule"]], ply=expect["ply"])


def reason(words):
    return "ILLEGAL_REASON_" + words.upper().replace("-", "_")


# ------------------------------------------------------------- playouts --

def playout(s, variant, plies, seed, start=""):
    """A seeded game: 70 % of the moves go furthest towards the target
    corner, the others are random among LegalMoves' answer. Returns the
    moves and the positions (the start first)."""
    rng = random.Random(seed)
    rv = s.rules_variant(variant)
    position = s.position_of(variant, start)
    moves, positions = [], [position]
    for _ in range(plies):
        answer = s.api.call(LM, {"variant": variant, "position": position})[1]
        if answer["status"]["state"] != "STATE_IN_PROGRESS":
            break
        if answer["status"]["mustPass"]:
            move = "pass"
        else:
            options = answer["moves"]
            if rng.random() < 0.7:
                mover = position.split(" ")[1]
                gain = [halma_rules.advance(rv, mover, m["origin"],
                                            m["destination"]) for m in options]
                best = max(gain)
                options = [m for m, g in zip(options, gain) if g == best]
            move = rng.choice(options)["path"]
        result = s.api.call(VM, {"variant": variant, "position": position,
                                 "move": move})
        if result[0] != "ok" or not result[1]["legal"]:
            raise GenerationError("playout move %s refused: %r" %
                                  (move, result))
        position = result[1]["positionAfter"]
        moves.append(move)
        positions.append(position)
    return moves, positions


def playout_variants(s):
    out = [(name, preset(name), []) for name in PRESETS]
    return out + CUSTOM_PLAYOUTS


# ------------------------------------------------------- move samples --

def sample_moves(s, variant, position, legal_answer, index):
    """(slug, move, areas, review) for ValidateMove in a position in
    progress: legal moves of each kind the position has, and illegal ones
    built for one fault each (docs/rules.md section 7's order makes each
    fault the first one found)."""
    rv = s.rules_variant(variant)
    board, to_move, _ = halma_rules.parse_position(position, rv.size)
    moves = legal_answer["moves"]
    out = []
    if legal_answer["status"]["mustPass"]:
        out.append(("pass-forced", "pass", ["passes"],
                    {"legal": True, "path": "pass"}))
        return out
    steps = [m for m in moves if m["hops"] == 0]
    hops = [m for m in moves if m["hops"] == 1]
    chains = [m for m in moves if m["hops"] >= 2]
    if steps:
        m = steps[index % len(steps)]
        out.append(("step", m["path"], ["steps"],
                    {"legal": True, "hops": 0, "path": m["path"]}))
    if hops:
        m = hops[(index * 7) % len(hops)]
        out.append(("hop", m["path"], ["jumps"],
                    {"legal": True, "hops": 1, "path": m["path"]}))
    if chains:
        m = max(chains, key=lambda m: (m["hops"], m["origin"],
                                        m["destination"]))
        out.append(("chain", m["path"], ["jumps", "continuations"],
                    {"legal": True, "hops": m["hops"]}))
        short = m["origin"] + "-" + m["destination"]
        if is_shorthand(short.split("-")):
            out.append(("shorthand", short, ["shorthand", "jumps"],
                        {"legal": True, "hops": m["hops"]}))
        first_hop = "-".join(m["path"].split("-")[:2])
        out.append(("chain-prefix", first_hop, ["jumps", "continuations"],
                    {"legal": True}))
    for m in sorted(hops + chains, key=lambda m: (m["origin"],
                                                  m["destination"])):
        origin = halma_rules.parse_square(m["origin"])
        roundabout = halma_rules.roundabout_chain(rv, board, origin)
        if roundabout:
            end = roundabout[-1]
            fewest = next(x["hops"] for x in moves
                          if x["origin"] == m["origin"] and
                          x["destination"] == end)
            out.append(("chain-not-fewest", "-".join(roundabout),
                        ["jumps", "continuations"],
                        {"legal": True, "hops": fewest}))
            break
    faults = illegal_samples(rv, board, to_move)
    kinds = sorted(faults)
    for k in range(min(3, len(kinds))):
        kind = kinds[(index + k) % len(kinds)]
        move, areas = faults[kind]
        out.append(("illegal-" + kind.lower().replace("_", "-"), move,
                    ["illegal-moves"] + areas,
                    {"legal": False, "reason": "ILLEGAL_REASON_" + kind}))
    return out


def illegal_samples(rv, board, to_move):
    """{reason: (move, areas)}: one move per fault that the position
    allows, each with no fault checked before it."""
    size = rv.size
    squares = [(f, r) for f in range(size) for r in range(size)]
    name = halma_rules.square_name
    out = {}

    def neighbours(sq):
        for df, dr in halma_rules.DIRECTIONS:
            n = (sq[0] + df, sq[1] + dr)
            if halma_rules.on_board(n, size):
                yield (df, dr), n

    own = [sq for sq in squares if board.get(sq) == to_move]
    others = [sq for sq in squares if board.get(sq) not in (None, to_move)]
    empty = [sq for sq in squares if sq not in board]
    for sq in empty:
        for _, n in neighbours(sq):
            if n not in board:
                out.setdefault("EMPTY_ORIGIN", (name(sq) + "-" + name(n), []))
    for sq in others:
        for _, n in neighbours(sq):
            if n not in board:
                out.setdefault("NOT_YOUR_PIECE",
                               (name(sq) + "-" + name(n), []))
    for sq in own:
        for (df, dr), n in neighbours(sq):
            if n in board:
                out.setdefault("DESTINATION_OCCUPIED",
                               (name(sq) + "-" + name(n), ["steps"]))
            far = (sq[0] + 2 * df, sq[1] + 2 * dr)
            if (n not in board and halma_rules.on_board(far, size) and
                    far not in board):
                out.setdefault("NOTHING_TO_JUMP",
                               (name(sq) + "-" + name(far), ["jumps"]))
    for sq in own:
        single = {d: info for d, info in
                  halma_rules.piece_moves(rv, board, sq).items()
                  if info[0] == 1}
        for land in sorted(single):
            back = name(sq) + "-" + name(land) + "-" + name(sq)
            out.setdefault("SQUARE_VISITED_TWICE", (back, ["jumps"]))
            for _, n in neighbours(land):
                if n not in board and n != sq:
                    out.setdefault("NOT_A_HOP", (
                        name(sq) + "-" + name(land) + "-" + name(n),
                        ["jumps"]))
    unlocked = halma_rules.Variant(size, len(rv.seats), rv.camp_rows, False)
    for sq in own:
        reachable = halma_rules.piece_moves(unlocked, board, sq)
        for far in empty:
            pair = [name(sq), name(far)]
            if far not in reachable and is_shorthand(pair):
                out.setdefault("UNREACHABLE", ("-".join(pair), ["shorthand"]))
                break
    out["PASS_NOT_ALLOWED"] = ("pass", ["passes"])
    return out


# ======================================================== ListVariants --

def list_variants(s):
    f = "list_variants"
    s.answer(f, "all-presets", LV, ["list-variants", "presets"], {}, review={
        "variants": [{"name": n} for n in PRESETS]})
    s.deterministic(f, "same-answer-twice", LV, ["list-variants",
                                                 "determinism"], {})


# ========================================================== LegalMoves --

# Positions written for one rule each: (slug, variant, position, areas,
# status review).
HAND_POSITIONS = [
    # docs/rules.md section 3: the forced pass (w walled in or locked in).
    ("forced-pass-2p", TINY_LOCKED, W_MUST_PASS,
     ["passes", "target-lock"], in_progress("w", mustPass=True)),
    ("forced-pass-4p", TINY_4P, "4/rrrb/ggbb/wwwg w 5,5,5,5",
     ["passes", "four-players"], in_progress("w", mustPass=True)),
    ("after-forced-pass", TINY_4P, "4/rrrb/ggbb/wwwg r 6,5,5,5",
     ["passes", "four-players"], in_progress("r", mustPass=False)),
    # Section 5.4: nobody can move, a draw.
    ("everyone-stuck", TINY_LOCKED, "wwbw/1www/bbb1/bwbb w 20,20",
     ["everyone-stuck", "finished-games"],
     finished("draw", "wb", "everyone-stuck")),
    ("everyone-stuck-at-start", custom(4, 2, [4, 4]),
     "bbbb/bbbb/wwww/wwww w 0,0", ["everyone-stuck", "finished-games"],
     finished("draw", "wb", "everyone-stuck")),
    # Section 5.2: w's 31st move left a4 at home: b wins.
    ("home-exit-loss", preset("brainking-8x8"),
     "8/8/bbbbb3/bbbbb3/w3www1/3wwwww/8/7w b 31,30",
     ["home-exit", "finished-games"], finished("win", "b", "home-exit")),
    ("home-exit-not-yet", preset("brainking-8x8"),
     "8/8/bbbbb3/bbbbb3/w3www1/3wwwww/8/7w b 30,29", ["home-exit"],
     in_progress("b")),
    # Section 5: only the last mover's conditions count.
    ("target-full-but-b-moved-last", preset("brainking-8x8"),
     "4wwww/5www/6ww/7w/4b3/bb6/bbb5/bbbb4 w 26,26", ["target-filled"],
     in_progress("w", finished=seats("w"))),
    ("home-exit-but-b-moved-last", preset("brainking-8x8"),
     "8/8/bbbbb3/bbbbb3/w3wwww/3wwwww/8/8 w 31,31", ["home-exit"],
     in_progress("w")),
    ("no-move-counted-yet", custom(8, 2, [2, 1]),
     "6ww/7w/8/8/8/8/b7/bb6 w 0,0", ["target-filled"],
     in_progress("w", finished=seats("wb"))),
    # Section 5.1 with round completion (iggamecenter-10x10): w filled its
    # target with its 41st move; b gets its turn.
    ("round-completion-turn", preset("iggamecenter-10x10"),
     "5wwwww/6wwww/7www/8ww/b8w/10/bb8/bbb7/bbbb6/bbbbb5 b 41,40",
     ["round-completion"],
     in_progress("b", roundCompletionTurn=True, finished=seats("w"))),
    ("no-round-completion-win", preset("brainking-10x10"),
     "5wwwww/6wwww/7www/8ww/b8w/10/bb8/bbb7/bbbb6/bbbbb5 b 41,40",
     ["target-filled", "finished-games"],
     finished("win", "w", "target-filled")),
    ("round-completion-draw", preset("iggamecenter-10x10"),
     "5wwwww/6wwww/7www/8ww/9w/b9/bb8/bbb7/bbbb6/bbbbb5 w 41,41",
     ["round-completion", "finished-games"],
     finished("draw", "wb", "target-filled", finished=seats("wb"))),
    ("round-completion-w-wins", preset("iggamecenter-10x10"),
     "5wwwww/6wwww/7www/8ww/1b7w/10/bb8/bbb7/bbbb6/bbbbb5 w 41,41",
     ["round-completion", "finished-games"],
     finished("win", "w", "target-filled")),
    ("round-completion-b-wins-own-turn", preset("iggamecenter-10x10"),
     "5wwwww/6wwww/7www/8ww/10/b8w/bb8/bbb7/bbbb6/bbbbb5 w 41,41",
     ["round-completion", "finished-games"],
     finished("win", "b", "target-filled")),
    ("round-completion-4p-turn", RC_4P, "7w/8/8/3r4/4g3/8/1b6/8 r 6,5,5,5",
     ["round-completion", "four-players"],
     in_progress("r", roundCompletionTurn=True, finished=seats("w"))),
    ("round-completion-4p-two-finished", RC_4P,
     "7w/8/3r4/8/4g3/8/8/b7 g 6,6,6,5", ["round-completion", "four-players"],
     in_progress("g", roundCompletionTurn=True, finished=seats("wb"))),
    ("round-completion-4p-draw", RC_4P, "7w/8/3r4/4g3/8/8/8/b7 w 6,6,6,6",
     ["round-completion", "four-players", "finished-games"],
     finished("draw", "wb", "target-filled")),
    # Section 5.2, four players: r and b eliminated, g to move; then w the
    # last seat standing.
    ("eliminated-seats", EXIT_4P, "rr4bb/8/8/8/r5bg/w7/1ww5/6gg g 3,3,3,2",
     ["elimination", "four-players", "home-exit"],
     in_progress("g", eliminated=seats("rb"))),
    ("last-seat-standing", EXIT_4P, "rr4bb/8/8/7g/r5b1/w7/1ww5/6gg w 3,3,3,3",
     ["elimination", "four-players", "home-exit", "finished-games"],
     finished("win", "w", "home-exit", eliminated=seats("rbg"))),
    # Section 5.3: the move cap.
    ("move-cap-draw", CAP2, "5bbb/5bbb/3b2bb/7b/w7/ww2w3/www5/www5 w 2,2",
     ["move-cap", "finished-games"], finished("draw", "wb", "move-cap")),
    ("move-cap-one-short", CAP2, "5bbb/3b1bbb/6bb/7b/w7/ww2w3/www5/www5 b 2,1",
     ["move-cap"], in_progress("b")),
    # Section 3: target lock.
    ("target-lock", LOCKED8, D2, ["target-lock"], in_progress("w")),
    ("no-target-lock", OPEN8, D2, ["target-lock"], in_progress("w")),
    # Section 4: the largest move counts are read (and listed).
    ("largest-move-counts", custom(8, 2, [4, 3, 2, 1]),
     "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w %s,%s" % (MAX_COUNT, MAX_COUNT),
     ["notation"], in_progress("w")),
]


def legal_moves(s, vectors):
    f = "legal_moves"
    for name in PRESETS:
        v = preset(name)
        areas = ["presets", "legal-moves", players(v, s)]
        start = s.presets[name]["startPosition"]
        s.answer(f, "start/" + name, LM, areas, {"variant": v}, review={
            "position": start, "status": in_progress("w", mustPass=False)})
        s.answer(f, "start-written/" + name, LM, areas,
                 {"variant": v, "position": start},
                 review={"position": start})
    for i, vec in enumerate(vectors["positions"]):
        v = vector_variant(vec["variant"])
        if vec["legal"] == [["pass", None, None]]:
            review = {"moves": [], "count": 0,
                      "status": {"mustPass": True}}
        else:
            want = sorted(vec["legal"], key=lambda m: halma_rules.
                          move_order_key(m[0], m[1]))
            review = {"count": len(want), "moves": [
                {"origin": o, "destination": d, "hops": h}
                for o, d, h in want]}
        areas = ["vectors", "legal-moves", kind_area(v), players(v, s)]
        if len(vec["legal"]) >= 100:
            areas.append("dense")
        if "custom" in v and v["custom"]["boardSize"] % 2:
            areas.append("odd-size")
        s.answer(f, "vector-%02d/%s" % (i + 1, variant_slug(v)), LM, areas,
                 {"variant": v, "position": vec["position"]}, review=review)
    for slug, v, position, areas, status in HAND_POSITIONS:
        review = {"status": status}
        if status["state"] != "STATE_IN_PROGRESS" or status.get("mustPass"):
            review.update({"moves": [], "count": 0})
        s.answer(f, slug, LM, ["legal-moves", kind_area(v), players(v, s)] +
                 areas, {"variant": v, "position": position}, review=review)
    # Section 4: numbers with leading zeros are read; answers are canonical.
    for slug, v, text, canonical in [
            ("leading-zeros", preset("brainking-8x8"),
             "4bbbb/5bbb/6bb/7b/w07/ww6/www5/wwww004 w 0,0",
             "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0"),
            ("leading-zeros-counts", preset("brainking-8x8"),
             "4wwww/5www/7w/5w1w/4b3/bb6/bbb5/bbbb4 w 025,0025",
             "4wwww/5www/7w/5w1w/4b3/bb6/bbb5/bbbb4 w 25,25"),
            ("split-runs", preset("classic-16x16"),
             "011bbbbb/11bbbbb/12bbbb/13bbb/14bb/016/16/0016/16/16/16/ww14/"
             "www13/wwww12/wwwww11/wwwww011 w 0,0",
             s.presets["classic-16x16"]["startPosition"])]:
        s.answer(f, "canonical/" + slug, LM, ["legal-moves", "notation"],
                 {"variant": v, "position": text},
                 review={"position": canonical})
    # Playout positions, whole and by origin.
    for n, (name, v, extra) in enumerate(playout_variants(s)):
        _, positions = playout(s, v, 40, 1000 + n)
        for ply in (10, 25, 40):
            if ply >= len(positions):
                continue
            position = positions[ply]
            areas = ["legal-moves", "playouts", kind_area(v),
                     players(v, s)] + extra
            answer = s.answer(f, "playout/%s/ply-%d" % (name, ply), LM, areas,
                              {"variant": v, "position": position})
            if ply != 25 or not answer["moves"]:
                continue
            by_origin = {}
            for m in answer["moves"]:
                by_origin.setdefault(m["origin"], []).append(m)
            busiest = max(sorted(by_origin), key=lambda o: len(by_origin[o]))
            rv = s.rules_variant(v)
            board, to_move, _ = halma_rules.parse_position(position, rv.size)
            other = sorted(halma_rules.square_name(sq) for sq, c in
                           board.items() if c != to_move)[0]
            empty = sorted(halma_rules.square_name((x, y))
                           for x in range(rv.size) for y in range(rv.size)
                           if (x, y) not in board)[0]
            for label, origin, review in [
                    ("busiest", busiest, {"count": len(by_origin[busiest])}),
                    ("other-seat", other, {"moves": [], "count": 0}),
                    ("empty-square", empty, {"moves": [], "count": 0})]:
                s.answer(f, "origin/%s/%s" % (name, label), LM,
                         areas + ["origin-filter"],
                         {"variant": v, "position": position,
                          "origin": origin}, review=review)
            if n in (0, 3):
                s.member(f, "origin-subset/" + name, LM,
                         ["legal-moves", "origin-filter"],
                         {"variant": v, "position": position,
                          "origin": busiest}, "moves[].destination", LM,
                         {"variant": v, "position": position},
                         "moves[].destination")
    densest = max(vectors["positions"], key=lambda vec: len(vec["legal"]))
    s.deterministic(f, "same-answer-twice/densest-vector", LM,
                    ["legal-moves", "determinism", "dense"],
                    {"variant": vector_variant(densest["variant"]),
                     "position": densest["position"]})


# ======================================================== ValidateMove --

def validate_move(s, vectors):
    f = "validate_move"
    # Every sample kind on playout positions of every variant.
    index = 0
    for n, (name, v, extra) in enumerate(playout_variants(s)):
        _, positions = playout(s, v, 30, 2000 + n)
        for ply in (0, 12, 30):
            if ply >= len(positions):
                continue
            position = positions[ply]
            answer = s.api.call(LM, {"variant": v, "position": position})[1]
            if answer["status"]["state"] != "STATE_IN_PROGRESS":
                continue
            for slug, move, areas, review in sample_moves(
                    s, v, position, answer, index):
                s.answer(f, "%s/ply-%d/%s" % (name, ply, slug), VM,
                         ["playouts", kind_area(v), players(v, s)] + extra +
                         areas, {"variant": v, "position": position,
                                 "move": move}, review=review)
            index += 1
    # The moves of the vector records that decide or break them, from the
    # position before them (replayed with Adjudicate).
    for i, vec in enumerate(vectors["records"]):
        v = vector_variant(vec["variant"])
        expect = vec["expect"]
        ply = expect.get("ply")
        if ply is None:
            continue
        before = s.api.call(ADJ, {"variant": v,
                                  "startPosition": vec.get("from", ""),
                                  "moves": vec["moves"][:ply - 1]})[1]
        request = {"variant": v, "position": before["finalPosition"],
                   "move": vec["moves"][ply - 1]}
        areas = ["vectors", kind_area(v), players(v, s)]
        if expect["status"] == "illegal":
            review = {"legal": False, "reason": reason(expect["reason"])}
            if "result" in expect:
                review["status"] = vector_status(expect["result"])
                del review["status"]["ply"]
                areas.append("finished-games")
            areas.append("illegal-moves")
        else:
            review = {"legal": True, "status": vector_status(expect)}
            del review["status"]["ply"]
            areas.append(VECTOR_RULES[expect["rule"]])
        s.answer(f, "vector-record-%02d/ply-%d" % (i + 1, ply), VM, areas,
                 request, review=review)
    for args in HAND_MOVES:
        slug, v, position, move, areas, review = args
        s.answer(f, slug, VM, [kind_area(v), players(v, s)] + areas,
                 {"variant": v, "position": position, "move": move},
                 review=review)
    # Four players: after w's move, play skips the eliminated r and b.
    before = s.api.call(ADJ, {"variant": EXIT_4P,
                              "moves": EXIT_4P_SKIP_GAME})[1]
    s.answer(f, "elimination/skips-eliminated", VM,
             ["custom-variants", "four-players", "elimination"],
             {"variant": EXIT_4P, "position": before["finalPosition"],
              "move": "b2-b3"},
             review=_legal(in_progress("g", eliminated=seats("rb"))))
    s.deterministic(f, "same-answer-twice", VM, ["determinism"],
                    {"variant": preset("classic-16x16"),
                     "move": "d1-f3"})


def _legal(status, **more):
    review = {"legal": True, "status": status}
    review.update(more)
    return review


def _illegal(words, **more):
    review = {"legal": False, "reason": reason(words)}
    review.update(more)
    return review


BK8 = preset("brainking-8x8")
IG10 = preset("iggamecenter-10x10")
BK10 = preset("brainking-10x10")
C16 = preset("classic-16x16")
C16X4 = preset("classic-16x16-4p")
# (slug, variant, position, move, areas, review): moves of one rule each.
HAND_MOVES = [
    # Section 3: steps and hops from the start (empty position = start).
    ("start/step", BK8, "", "d1-e2", ["steps"],
     _legal(in_progress("b"), path="d1-e2", hops=0, mover="SEAT_W",
            positionAfter="4bbbb/5bbb/6bb/7b/w7/ww6/www1w3/www5 b 1,0")),
    ("start/hop", BK8, "", "b1-d3", ["jumps"],
     _legal(in_progress("b"), path="b1-d3", hops=1)),
    ("start/4p-step-w", C16X4, "", "d1-e2", ["steps", "four-players"],
     _legal(in_progress("r"))),
    ("start/4p-step-r", C16X4,
     "rrrr8bbbb/rrrr8bbbb/rrr10bbb/rr12bb/16/16/16/16/16/16/16/16/ww12gg/"
     "www10ggg/wwww8gggg/www1w7gggg r 1,0,0,0", "b13-c12",
     ["steps", "four-players"], _legal(in_progress("b"), mover="SEAT_R")),
    ("start/16x16-hop", C16, "", "d1-f3", ["jumps", "continuations"],
     {"legal": True, "hops": 1}),
    # Two-square shorthand and its normalised path (section 4).
    ("shorthand/open", OPEN8, D2, "c4-g6", ["shorthand", "jumps"],
     {"legal": True, "hops": 3, "path": "c4-e6-g8-g6"}),
    ("chain/two-hops", OPEN8, D2, "c4-e6-g8", ["jumps", "continuations"],
     {"legal": True, "hops": 2, "continuations": ["g6"]}),
    # Target lock (section 3).
    ("target-lock/step-out", LOCKED8, D2, "h6-h5", ["target-lock"],
     _illegal("leaves-target")),
    ("target-lock/step-within", LOCKED8, D2, "h6-h7", ["target-lock"],
     {"legal": True}),
    ("target-lock/hop-within", LOCKED8, D2, "h6-f8", ["target-lock"],
     {"legal": True, "hops": 1}),
    ("target-lock/chain-out", LOCKED8, D2, "c4-e6-g8-g6",
     ["target-lock", "jumps"], _illegal("leaves-target")),
    ("target-lock/chain-in", LOCKED8, D2, "c4-e6-g8",
     ["target-lock", "jumps", "continuations"], {"legal": True, "hops": 2}),
    ("target-lock/shorthand-out", LOCKED8, D2, "c4-g6",
     ["target-lock", "shorthand"], _illegal("leaves-target")),
    ("target-lock/off-step-out", OPEN8, D2, "h6-h5", ["target-lock"],
     {"legal": True}),
    ("target-lock/off-chain-out", OPEN8, D2, "c4-e6-g8-g6",
     ["target-lock", "jumps"], {"legal": True, "hops": 3}),
    # Passes (section 3).
    ("pass/forced", TINY_LOCKED, W_MUST_PASS, "pass", ["passes"],
     _legal(in_progress("b"), path="pass", hops=0,
            positionAfter="wwww/1bww/bbb1/bwbb b 21,20")),
    ("pass/forced-4p", TINY_4P, "4/rrrb/ggbb/wwwg w 5,5,5,5", "pass",
     ["passes", "four-players"],
     _legal(in_progress("r"), positionAfter="4/rrrb/ggbb/wwwg r 6,5,5,5")),
    ("pass/not-allowed", BK8, "", "pass", ["passes"],
     _illegal("pass-not-allowed")),
    ("pass/not-allowed-4p", TINY_4P, "4/rrrb/ggbb/wwwg r 6,5,5,5", "pass",
     ["passes", "four-players"], _illegal("pass-not-allowed")),
    # A step while the only legal move is pass.
    ("pass/step-while-stuck", TINY_LOCKED, W_MUST_PASS, "b3-a3",
     ["passes", "target-lock"], {"legal": False}),
    # Section 5.2: home exit.
    ("home-exit/loss", BK8, "8/8/bbbbb3/bbbbb3/w3www1/3wwwww/7w/8 w 30,30",
     "h2-h1", ["home-exit"], _legal(finished("win", "b", "home-exit"))),
    ("home-exit/leaving-in-time", BK8,
     "8/8/bbbbb3/bbbbb3/w3www1/3wwwww/7w/8 w 30,30", "a4-b4", ["home-exit"],
     _legal(in_progress("b"))),
    ("home-exit/back-home", BK8,
     "8/8/bbbbb3/bbbbb3/1w2www1/3wwwww/7w/8 w 30,30", "b4-a4", ["home-exit"],
     _legal(finished("win", "b", "home-exit"))),
    # Section 5.2, four players: g's third move leaves pieces at home; w is
    # the last seat standing.
    ("elimination/last-seat-standing", EXIT_4P,
     "rr4bb/8/8/8/r5bg/w7/1ww5/6gg g 3,3,3,2", "h4-h5",
     ["elimination", "four-players", "home-exit"],
     _legal(finished("win", "w", "home-exit", eliminated=seats("rbg")))),
    # Section 5.1: target filled, with and without round completion.
    ("target-filled/with-round-completion", IG10,
     "5wwwww/6wwww/7www/8ww/b9/9w/bb8/bbb7/bbbb6/bbbbb5 w 40,40", "j5-j6",
     ["round-completion"],
     _legal(in_progress("b", roundCompletionTurn=True, finished=seats("w")))),
    ("target-filled/without-round-completion", BK10,
     "5wwwww/6wwww/7www/8ww/b9/9w/bb8/bbb7/bbbb6/bbbbb5 w 40,40", "j5-j6",
     ["target-filled"], _legal(finished("win", "w", "target-filled"))),
    ("round-completion/b-also-finishes", IG10,
     "5wwwww/6wwww/7www/8ww/b8w/10/bb8/bbb7/bbbb6/bbbbb5 b 41,40", "a6-a5",
     ["round-completion"], _legal(finished("draw", "wb", "target-filled"))),
    ("round-completion/b-does-not-finish", IG10,
     "5wwwww/6wwww/7www/8ww/b8w/10/bb8/bbb7/bbbb6/bbbbb5 b 41,40", "a6-b7",
     ["round-completion"], _legal(finished("win", "w", "target-filled"))),
    ("round-completion/4p-last-of-round", RC_4P,
     "7w/8/3r4/8/4g3/8/8/b7 g 6,6,6,5", "e4-d5",
     ["round-completion", "four-players"],
     _legal(finished("draw", "wb", "target-filled"))),
    # Section 5.3: the move cap.
    ("move-cap/reached", CAP2, "5bbb/3b1bbb/6bb/7b/w7/ww2w3/www5/www5 b 2,1",
     "d7-d6", ["move-cap"], _legal(finished("draw", "wb", "move-cap"))),
    # Section 5.4: everyone stuck after the move.
    ("everyone-stuck/after-move", TINY_LOCKED, "1wbw/wwww/bbb1/bwbb w 16,16",
     "a3-a4", ["everyone-stuck"],
     _legal(finished("draw", "wb", "everyone-stuck"))),
    # Section 7: a finished game takes no move.
    ("game-over/win", BK8, "8/8/bbbbb3/bbbbb3/w3www1/3wwwww/8/7w b 31,30",
     "a6-a7", ["finished-games"],
     _illegal("game-over", status=finished("win", "b", "home-exit"))),
    ("game-over/draw", TINY_LOCKED, "wwbw/1www/bbb1/bwbb w 20,20", "pass",
     ["finished-games", "everyone-stuck"], _illegal("game-over")),
    ("game-over/pass-after-cap", CAP2,
     "5bbb/5bbb/3b2bb/7b/w7/ww2w3/www5/www5 w 2,2", "pass",
     ["finished-games", "move-cap"], _illegal("game-over")),
    # Section 7's order: the origin before the path.
    ("order/empty-origin-before-legs", BK8, "", "e4-e6-e8",
     ["illegal-moves"], _illegal("empty-origin")),
    ("order/visited-twice-before-not-a-hop", OPEN8, D2, "c4-e6-c4-c5",
     ["illegal-moves", "jumps"], _illegal("square-visited-twice")),
]


# ========================================================== Adjudicate --

def adjudicate(s, vectors):
    f = "adjudicate"
    for i, vec in enumerate(vectors["records"]):
        v = vector_variant(vec["variant"])
        expect = vec["expect"]
        areas = ["vectors", kind_area(v), players(v, s)]
        request = {"variant": v, "moves": vec["moves"]}
        if "from" in vec:
            request["startPosition"] = vec["from"]
        if expect["status"] == "illegal":
            review = {"illegalMove": {"ply": expect["ply"],
                                      "reason": reason(expect["reason"])},
                      "movesPlayed": expect["ply"] - 1}
            if "result" in expect:
                review["status"] = vector_status(expect["result"])
                areas.append("finished-games")
            areas.append("illegal-moves")
        else:
            review = {"status": vector_status(expect), "illegalMove": None,
                      "movesPlayed": len(vec["moves"])}
            if expect["status"] != "in_progress":
                areas.append(VECTOR_RULES[expect["rule"]])
        s.answer(f, "vector-%02d" % (i + 1), ADJ, areas, request,
                 review=review)
        # Prefixes: the same game at a third and two thirds.
        if i < 8:
            for part in (1, 2):
                cut = len(vec["moves"]) * part // 3
                prefix = dict(request, moves=vec["moves"][:cut])
                if part == 2:
                    prefix["wantRecordText"] = True
                s.answer(f, "vector-%02d/first-%d" % (i + 1, cut), ADJ,
                         areas[:1] + ["records"] +
                         (["record-text"] if part == 2 else []), prefix,
                         review={"movesPlayed": min(cut, expect["ply"] - 1)
                                 if expect["status"] == "illegal" else cut})
    # Whole playouts, replayed: Adjudicate agrees with ValidateMove's
    # positions move by move.
    for n, (name, v, extra) in enumerate(playout_variants(s)):
        size = s.rules_variant(v).size
        moves, positions = playout(s, v, 60 if size > 9 else 400, 3000 + n)
        request = {"variant": v, "moves": moves}
        if n % 2:
            request["wantRecordText"] = True
        s.answer(f, "playout/" + name, ADJ,
                 ["playouts", "records", kind_area(v), players(v, s)] + extra,
                 request, review={"finalPosition": positions[-1],
                                  "movesPlayed": len(moves),
                                  "illegalMove": None})
        # The same game from a position in its middle.
        mid = len(moves) // 2
        s.answer(f, "playout/%s/from-ply-%d" % (name, mid), ADJ,
                 ["playouts", "records", kind_area(v)] + extra,
                 {"variant": v, "startPosition": positions[mid],
                  "moves": moves[mid:], "wantRecordText": n % 2 == 0},
                 review={"finalPosition": positions[-1]})
    for slug, v, start, moves, areas, review, want_text in HAND_RECORDS:
        request = {"variant": v, "moves": moves, "wantRecordText": want_text}
        if start:
            request["startPosition"] = start
        s.answer(f, slug, ADJ, ["records", kind_area(v), players(v, s)] +
                 areas, request, review=review)


# r and b leave pieces at home after their third moves, g does not.
EXIT_4P_SKIP_GAME = ["a2-a3", "a7-a6", "h7-h6", "h2-h3", "b1-c2", "a6-a5",
                     "h6-h5", "g1-f2", "a1-b2", "a5-a4", "h5-g4", "h1-g2"]
EXIT_4P_GAME = ["a2-a3", "a7-a6", "h7-h6", "h2-h3", "b1-c2", "a6-a5",
                "h6-h5", "h3-h4", "a1-b2", "a5-a4", "h5-g4"]
# (slug, variant, start, moves, areas, review, want_record_text)
HAND_RECORDS = [
    ("empty-record", BK8, "", [], [],
     {"status": in_progress("w"), "movesPlayed": 0, "illegalMove": None,
      "finalPosition": "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0",
      "moveCounts": [{"seat": "SEAT_W", "moves": "0"},
                     {"seat": "SEAT_B", "moves": "0"}]}, True),
    ("empty-record-4p", C16X4, "", [], ["four-players"],
     {"moveCounts": [{"seat": seat(c), "moves": "0"} for c in "wrbg"]},
     False),
    ("decided-start", BK8, "8/8/bbbbb3/bbbbb3/w3www1/3wwwww/8/7w b 31,30",
     [], ["finished-games", "home-exit"],
     {"status": finished("win", "b", "home-exit", ply=0)}, True),
    ("decided-start-then-move", BK8,
     "8/8/bbbbb3/bbbbb3/w3www1/3wwwww/8/7w b 31,30", ["a6-a7"],
     ["finished-games"],
     {"illegalMove": {"ply": 1, "reason": reason("game-over")},
      "status": finished("win", "b", "home-exit", ply=0)}, True),
    ("stuck-start", custom(4, 2, [4, 4]), "bbbb/bbbb/wwww/wwww w 0,0", [],
     ["everyone-stuck", "finished-games"],
     {"status": finished("draw", "wb", "everyone-stuck", ply=0)}, False),
    ("elimination-4p", EXIT_4P, "", EXIT_4P_GAME,
     ["elimination", "four-players", "home-exit"],
     {"status": in_progress("g", eliminated=seats("rb")),
      "finalPosition": "rr4bb/8/8/8/r5bg/w7/1ww5/6gg g 3,3,3,2",
      "moveCounts": [{"seat": "SEAT_W", "moves": "3"},
                     {"seat": "SEAT_R", "moves": "3"},
                     {"seat": "SEAT_B", "moves": "3"},
                     {"seat": "SEAT_G", "moves": "2"}]}, True),
    ("elimination-4p-last-seat", EXIT_4P, "", EXIT_4P_GAME + ["h4-h5"],
     ["elimination", "four-players", "home-exit", "finished-games"],
     {"status": finished("win", "w", "home-exit", ply=12,
                         eliminated=seats("rbg"))}, True),
    ("elimination-4p-move-after-end", EXIT_4P, "",
     EXIT_4P_GAME + ["h4-h5", "a3-a4"],
     ["elimination", "four-players", "finished-games"],
     {"illegalMove": {"ply": 13, "reason": reason("game-over")},
      "movesPlayed": 12}, True),
    ("elimination-4p-skips-seats", EXIT_4P, "",
     EXIT_4P_SKIP_GAME + ["b2-b3"], ["elimination", "four-players"],
     {"status": in_progress("g", eliminated=seats("rb")),
      "illegalMove": None}, True),
    ("move-cap", CAP2, "", ["d1-e2", "e8-d7", "e2-e3", "d7-d6"],
     ["move-cap"],
     {"status": finished("draw", "wb", "move-cap", ply=4),
      "finalPosition": "5bbb/5bbb/3b2bb/7b/w7/ww2w3/www5/www5 w 2,2"}, True),
    ("move-cap-then-move", CAP2, "", ["d1-e2", "e8-d7", "e2-e3", "d7-d6",
                                      "e3-e4"], ["move-cap", "finished-games"],
     {"illegalMove": {"ply": 5, "reason": reason("game-over")}}, True),
    ("round-completion-draw", IG10,
     "5wwwww/6wwww/7www/8ww/b9/9w/bb8/bbb7/bbbb6/bbbbb5 w 40,40",
     ["j5-j6", "a6-a5"], ["round-completion"],
     {"status": finished("draw", "wb", "target-filled", ply=2)}, True),
    ("round-completion-win", IG10,
     "5wwwww/6wwww/7www/8ww/b9/9w/bb8/bbb7/bbbb6/bbbbb5 w 40,40",
     ["j5-j6", "a6-b7"], ["round-completion"],
     {"status": finished("win", "w", "target-filled", ply=2)}, True),
    ("round-completion-pending", IG10,
     "5wwwww/6wwww/7www/8ww/b9/9w/bb8/bbb7/bbbb6/bbbbb5 w 40,40",
     ["j5-j6"], ["round-completion"],
     {"status": in_progress("b", roundCompletionTurn=True)}, True),
    ("forced-pass-then-moves", TINY_LOCKED, W_MUST_PASS, ["pass", "b3-a3"],
     ["passes", "target-lock"],
     {"finalPosition": "wwww/b1ww/bbb1/bwbb w 21,21", "illegalMove": None},
     True),
    ("forced-pass-not-taken", TINY_LOCKED, W_MUST_PASS, ["b3-a3"],
     ["passes", "target-lock", "illegal-moves"],
     {"illegalMove": {"ply": 1}, "movesPlayed": 0}, False),
    ("pass-not-allowed", BK8, "", ["d1-e2", "pass"], ["passes"],
     {"illegalMove": {"ply": 2, "reason": reason("pass-not-allowed")}},
     True),
    ("from-b-to-move", BK8, "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0",
     ["h7-f5", "a2-c4"], ["records"],
     {"status": in_progress("b"), "movesPlayed": 2}, True),
]


# ========================================================= record text --

def record_text(s, repo):
    f = "record_text"
    with open(os.path.join(repo, "docs", "record-format.md"),
              encoding="utf-8") as doc:
        blocks = re.findall(r"```(halma(?:-input)?)\n(.*?)```", doc.read(),
                            re.S)
    if len(blocks) < 5:
        raise GenerationError("docs/record-format.md: %d halma blocks" %
                              len(blocks))
    for i, (lang, block) in enumerate(blocks):
        records = split_records(block)
        for j, text in enumerate(records):
            answer = s.answer(
                f, "doc-example-%d/record-%d" % (i + 1, j + 1), ADJ,
                ["record-text", "docs-examples"],
                {"recordText": text, "wantRecordText": True})
            if lang == "halma" and answer["recordText"] != text:
                raise GenerationError(
                    "docs/record-format.md example %d is not canonical: %r" %
                    (i + 1, answer["recordText"]))
            if lang == "halma" and answer["resultMismatch"]:
                raise GenerationError("docs example %d claims %s, engine %s"
                                      % (i + 1, answer["claimedResult"],
                                         answer["result"]))
    first = split_records(blocks[0][1])[0]
    for slug, claim, mismatch in [("claim-agrees", "*", False),
                                  ("claim-win-wrong", "win:w:target-filled",
                                   True),
                                  ("claim-draw-any-order",
                                   "draw:bw:move-cap", True),
                                  ("claim-illegal-wrong",
                                   "illegal:2:unreachable", True)]:
        text = first.replace('[Result "*"]', '[Result "%s"]' % claim)
        text = text.rstrip("\n").rsplit("\n", 1)[0] + "\n" + claim + "\n"
        s.answer(f, "claimed-result/" + slug, ADJ,
                 ["record-text", "claimed-result"], {"recordText": text},
                 review={"resultMismatch": mismatch, "result": "*"})
    # Records of every variant written by the engine (want_record_text),
    # read back: the canonical text again, with the same result.
    for n, (name, v, extra) in enumerate(playout_variants(s)):
        moves, _ = playout(s, v, 24 if n % 2 else 60, 4000 + n)
        written = s.api.call(ADJ, {"variant": v, "moves": moves,
                                   "wantRecordText": True})[1]
        s.answer(f, "round-trip/" + name, ADJ,
                 ["record-text", "playouts", kind_area(v)] + extra,
                 {"recordText": written["recordText"],
                  "wantRecordText": True},
                 review={"recordText": written["recordText"],
                         "result": written["result"],
                         "claimedResult": written["result"],
                         "resultMismatch": False})
    for slug, text, areas, review in HAND_TEXTS:
        s.answer(f, slug, ADJ, ["record-text"] + areas,
                 {"recordText": text, "wantRecordText": True}, review=review)


def split_records(block):
    """The records of a text, split where `[Variant` begins."""
    starts = [m.start() for m in re.finditer(r"^\[Variant ", block, re.M)]
    return [block[a:b] for a, b in zip(starts, starts[1:] + [len(block)])]


CUSTOM_TAGS = ('[Variant "custom"]\n[BoardSize "8"]\n[Seats "4"]\n'
               '[CampRows "2,1"]\n[HomeExit "2"]\n[RoundCompletion "off"]\n'
               '[TargetLock "off"]\n')
# (slug, text, areas, review)
HAND_TEXTS = [
    ("four-player-elimination",
     CUSTOM_TAGS + '[PlayerR "Rita"]\n\n1. a2-a3 a7-a6 h7-h6 h2-h3 '
     '2. b1-c2 a6-a5 h6-h5 h3-h4 3. a1-b2 a5-a4 h5-g4 h4-h5\n',
     ["four-players", "elimination"],
     {"result": "win:w:home-exit", "status": finished(
         "win", "w", "home-exit", ply=12)}),
    ("crlf-and-comments",
     '[Variant "brainking-8x8"]\r\n[Date "2026.01.02"]\r\n\r\n'
     '{opening} 1. b1-d3 ; to the centre\r\nh7-f5 {reply} 2. a2-c4 *\r\n',
     ["comments"], {"result": "*", "movesPlayed": 3}),
    ("byte-order-mark-and-cr",
     '\ufeff[Variant "brainking-8x8"]\r\r1. d1-e2 e8-d7 *\r', [],
     {"result": "*", "movesPlayed": 2}),
    ("illegal-move-result",
     '[Variant "brainking-8x8"]\n\n1. b1-d3 h8-h7 '
     'illegal:2:destination-occupied\n', ["illegal-moves"],
     {"result": "illegal:2:destination-occupied", "resultMismatch": False,
      "illegalMove": {"ply": 2}}),
    ("position-tag-b-to-move",
     '[Variant "brainking-8x8"]\n'
     '[Position "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0"]\n\n'
     '1... h7-f5 2. a2-c4 *\n', ["notation"],
     {"movesPlayed": 2, "status": in_progress("b")}),
    ("position-tag-is-start",
     '[Variant "brainking-8x8"]\n'
     '[Position "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0"]\n\n1. d1-e2 *\n',
     [], {"movesPlayed": 1}),
    ("move-cap-tag",
     '[Variant "custom"]\n[BoardSize "8"]\n[Seats "2"]\n[CampRows "4,3,2,1"]\n'
     '[HomeExit "0"]\n[RoundCompletion "off"]\n[TargetLock "off"]\n'
     '[MoveCap "2"]\n\n1. d1-e2 e8-d7 2. e2-e3 d7-d6 draw:wb:move-cap\n',
     ["move-cap"], {"result": "draw:wb:move-cap", "resultMismatch": False}),
    ("extra-tags-and-escapes",
     '[Variant "brainking-8x8"]\n[Event "Club \\"night\\" \\\\ 2"]\n'
     '[Round "3"]\n[Round "4"]\n\n1. d1-e2 *\n', ["notation"],
     {"movesPlayed": 1}),
    ("no-moves-no-result", '[Variant "classic-16x16-4p"]\n',
     ["four-players"], {"result": "*", "claimedResult": ""}),
    ("round-completion-draw-token",
     '[Variant "iggamecenter-10x10"]\n'
     '[Position "5wwwww/6wwww/7www/8ww/b9/9w/bb8/bbb7/bbbb6/bbbbb5 w 40,40"]'
     '\n\n41. j5-j6 a6-a5 draw:wb:target-filled\n', ["round-completion"],
     {"result": "draw:wb:target-filled", "resultMismatch": False}),
    ("draw-token-any-order",
     '[Variant "iggamecenter-10x10"]\n'
     '[Position "5wwwww/6wwww/7www/8ww/b9/9w/bb8/bbb7/bbbb6/bbbbb5 w 40,40"]'
     '\n\n41. j5-j6 a6-a5 draw:bw:target-filled\n', ["round-completion"],
     {"claimedResult": "draw:wb:target-filled", "resultMismatch": False}),
    ("everyone-stuck-token",
     '[Variant "custom"]\n[BoardSize "4"]\n[Seats "2"]\n[CampRows "4,3"]\n'
     '[HomeExit "0"]\n[RoundCompletion "off"]\n[TargetLock "on"]\n'
     '[Position "1wbw/wwww/bbb1/bwbb w 16,16"]\n\n17. a3-a4 '
     'draw:wb:everyone-stuck\n', ["everyone-stuck", "target-lock"],
     {"result": "draw:wb:everyone-stuck", "resultMismatch": False}),
]


# =============================================================== Perft --

def perft_tables(repo):
    """[(preset, position, depth, nodes)] of docs/perft.md."""
    with open(os.path.join(repo, "docs", "perft.md"), encoding="utf-8") as f:
        text = f.read()
    out = []
    for section in re.split(r"^\*\*", text, flags=re.M)[1:]:
        head = re.match(r"([a-z0-9-]+), [^*]*\*\* `([^`]+)`", section)
        if not head:
            continue
        for depth, nodes in re.findall(r"^\| (\d+) \| (\d+) \|", section,
                                       re.M):
            out.append((head.group(1), head.group(2), int(depth),
                        int(nodes)))
    return out


def perft(s, repo):
    f = "perft"
    table = perft_tables(repo)
    if len(table) < 60:
        raise GenerationError("docs/perft.md: only %d table rows" % len(table))
    for name, position, depth, nodes in table:
        if nodes > 2000000:
            continue
        v = preset(name)
        s.answer(f, "docs-table/%s/%s/depth-%d" % (
            name, "start" if position == s.presets[name]["startPosition"]
            else "move-%s" % position.split(" ")[2].replace(",", "-"), depth),
            PERFT, ["perft", "docs-examples", "presets", players(v, s)],
            {"variant": v, "position": position, "depth": depth},
            review={"nodes": str(nodes)})
    for name in PRESETS:
        v = preset(name)
        s.answer(f, "depth-0/" + name, PERFT, ["perft", "presets"],
                 {"variant": v, "depth": 0}, review={"nodes": "1"})
        s.answer(f, "split-depth-1/" + name, PERFT, ["perft", "perft-split",
                                                     "presets"],
                 {"variant": v, "depth": 1, "splitByFirstMove": True})
    s.answer(f, "split-depth-2/brainking-8x8", PERFT, ["perft", "perft-split"],
             {"variant": BK8, "depth": 2, "splitByFirstMove": True},
             review={"nodes": "576"})
    for slug, v, position, depth, nodes, areas in HAND_PERFT:
        s.answer(f, slug, PERFT, ["perft", kind_area(v)] + areas,
                 {"variant": v, "position": position, "depth": depth,
                  "splitByFirstMove": True},
                 review=None if nodes is None else {"nodes": str(nodes)})
    for n, (name, v, extra) in enumerate(CUSTOM_PLAYOUTS):
        _, positions = playout(s, v, 16, 5000 + n)
        s.answer(f, "custom/%s/ply-%d" % (name, len(positions) - 1), PERFT,
                 ["perft", "custom-variants", "playouts"] + extra,
                 {"variant": v, "position": positions[-1], "depth": 2,
                  "splitByFirstMove": n % 2 == 0})


# (slug, variant, position, depth, nodes or None, areas)
HAND_PERFT = [
    ("forced-pass/depth-1", TINY_LOCKED, W_MUST_PASS, 1, 1, ["passes"]),
    ("forced-pass/depth-3", TINY_LOCKED, W_MUST_PASS, 3, None, ["passes"]),
    ("finished/depth-0", TINY_LOCKED, "wwbw/1www/bbb1/bwbb w 20,20", 0, 1,
     ["finished-games"]),
    ("finished/depth-2", BK8, "8/8/bbbbb3/bbbbb3/w3www1/3wwwww/8/7w b 31,30",
     2, 0, ["finished-games", "home-exit"]),
    ("move-cap/depth-3", CAP2, "5bbb/3b1bbb/6bb/7b/w7/ww2w3/www5/www5 b 2,1",
     3, None, ["move-cap"]),
    ("elimination/depth-3", EXIT_4P, "rr4bb/8/8/8/r5bg/w7/1ww5/6gg g 3,3,3,2",
     3, None, ["elimination", "four-players"]),
    ("round-completion/depth-2", IG10,
     "5wwwww/6wwww/7www/8ww/b8w/10/bb8/bbb7/bbbb6/bbbbb5 b 41,40", 2, None,
     ["round-completion"]),
    ("target-lock/depth-2", LOCKED8, D2, 2, None, ["target-lock"]),
]


# =========================================================== malformed --

BK8_START = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0"
BK8_BOARD = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4"
# Positions that break one rule of docs/rules.md section 4 each:
# (slug, variant, text, quoted part or None).
BAD_POSITIONS = [
    ("empty", BK8, "", None),
    ("board-only", BK8, BK8_BOARD, BK8_BOARD),
    ("two-fields", BK8, BK8_BOARD + " w", None),
    ("four-fields", BK8, BK8_START + " x", None),
    ("double-space", BK8, BK8_BOARD + "  w 0,0", None),
    ("leading-space", BK8, " " + BK8_START, None),
    ("trailing-space", BK8, BK8_START + " ", None),
    ("tabs", BK8, BK8_BOARD + "\tw\t0,0", None),
    ("rank-too-long", BK8, "4bbbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0",
     "4bbbbb"),
    ("rank-too-short", BK8, "4bbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0",
     "4bbb"),
    ("rank-run-too-long", BK8, "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww99 w 0,0",
     "wwww99"),
    ("rank-empty", BK8, "4bbbb/5bbb/6bb/7b/w7/ww6/www5/ w 0,0", None),
    ("seven-ranks", BK8, "4bbbb/5bbb/6bb/7b/w7/ww6/www5 w 0,0", None),
    ("nine-ranks", BK8, "8/4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0", None),
    ("trailing-slash", BK8, BK8_BOARD + "/ w 0,0", None),
    ("seat-not-in-play", BK8, "4bbbb/5bbb/6bb/7b/r7/ww6/www5/wwww4 w 0,0",
     None),
    ("unknown-letter", BK8, "4bbbb/5bbb/6bb/7b/x7/ww6/www5/wwww4 w 0,0",
     None),
    ("upper-case-letter", BK8, "4bbbb/5bbb/6bb/7b/W7/ww6/www5/wwww4 w 0,0",
     None),
    ("dot-for-empty", BK8, "4bbbb/5bbb/6bb/7b/.7/ww6/www5/wwww4 w 0,0", None),
    ("too-many-pieces", BK8, "4bbbb/5bbb/5bbb/7b/w7/ww6/www5/wwww4 w 0,0",
     None),
    ("too-few-pieces", BK8, "4bbbb/5bbb/6bb/7b/8/ww6/www5/wwww4 w 0,0", None),
    ("no-pieces", BK8, "8/8/8/8/8/8/8/8 w 0,0", None),
    ("side-to-move-unknown", BK8, BK8_BOARD + " x 0,0", None),
    ("side-to-move-not-in-play", BK8, BK8_BOARD + " r 0,0", None),
    ("side-to-move-upper-case", BK8, BK8_BOARD + " W 0,0", None),
    ("side-to-move-two-letters", BK8, BK8_BOARD + " wb 0,0", None),
    ("one-count", BK8, BK8_BOARD + " w 0", None),
    ("three-counts", BK8, BK8_BOARD + " w 0,0,0", None),
    ("empty-count", BK8, BK8_BOARD + " w ,0", None),
    ("plus-signs", BK8, BK8_BOARD + " w +1,+1", "+1"),
    ("negative-count", BK8, BK8_BOARD + " w -1,0", "-1"),
    ("hex-count", BK8, BK8_BOARD + " w 0x1,0", None),
    ("count-too-large", BK8, BK8_BOARD + " w 9223372036854775808,"
     "9223372036854775808", "9223372036854775808"),
    ("count-twenty-digits", BK8, BK8_BOARD + " w 00000000000000000001,1",
     None),
    ("counts-w-ahead", BK8, BK8_BOARD + " w 1,0", None),
    ("counts-b-ahead", BK8, BK8_BOARD + " w 0,1", None),
    ("counts-b-to-move-equal", BK8, BK8_BOARD + " b 1,1", None),
    ("counts-b-to-move-two-ahead", BK8, BK8_BOARD + " b 2,0", None),
    ("four-player-two-counts", C16X4,
     "rrrr8bbbb/rrrr8bbbb/rrr10bbb/rr12bb/16/16/16/16/16/16/16/16/ww12gg/"
     "www10ggg/wwww8gggg/wwww8gggg w 0,0", None),
    ("r-in-two-player-16x16", C16,
     "11bbbbb/11bbbbb/12bbbb/13bbb/14bb/16/16/16/16/16/16/ww13r/www13/"
     "wwww12/wwwww11/wwwww11 w 0,0", None),
    ("eliminated-side-to-move", EXIT_4P,
     "rr4bb/8/8/8/r5bg/w7/1ww5/6gg r 3,3,3,2", None),
    ("eliminated-counts-w-behind", EXIT_4P,
     "rr4bb/8/8/8/r5bg/w7/1ww5/6gg g 2,3,3,2", None),
    ("eliminated-counts-r-ahead", EXIT_4P,
     "rr4bb/8/8/8/r5bg/w7/1ww5/6gg g 3,4,3,2", None),
    ("four-player-piece-missing", EXIT_4P,
     "rr4bb/8/8/8/r5bg/w7/1ww5/6g1 g 3,3,3,2", None),
    ("trailing-newline", BK8, BK8_START + "\n", None),
    ("very-long", BK8, "w" * 5000, None),
]
BAD_SQUARES = ["a", "1", "A1", "a9", "i1", "a0", "a01", "a1 ", " a1", "aa1",
               "a1b", "a-1", "\u00e91", "a1\n"]
BAD_MOVES = ["", "a1", "-a1", "a1-", "a1--b2", "-", "pass-a1", "a1-pass",
             "PASS", "pass ", "a1 b2", "a1,b2", "a1\u2013b2", "a1-i9", "a1-a0",
             "a1-B2", "a01-b2", "a1-b2-"]
# Custom variant fields (section 2): (slug, spec edits, field, quoted).
BAD_SPECS = [
    ("board-size-3", {"boardSize": 3}, "board_size", "3"),
    ("board-size-17", {"boardSize": 17}, "board_size", "17"),
    ("board-size-0", {"boardSize": 0}, "board_size", None),
    ("board-size-negative", {"boardSize": -8}, "board_size", "-8"),
    ("seat-count-0", {"seatCount": 0}, "seat_count", None),
    ("seat-count-1", {"seatCount": 1}, "seat_count", None),
    ("seat-count-3", {"seatCount": 3}, "seat_count", "3"),
    ("seat-count-5", {"seatCount": 5}, "seat_count", "5"),
    ("camp-rows-empty", {"campRows": []}, "camp_rows", None),
    ("camp-row-0", {"campRows": [0]}, "camp_rows", None),
    ("camp-row-0-second", {"campRows": [3, 0]}, "camp_rows", None),
    ("camp-row-negative", {"campRows": [-1]}, "camp_rows", "-1"),
    ("camp-rows-growing", {"campRows": [2, 3]}, "camp_rows", None),
    ("camp-rows-growing-later", {"campRows": [4, 3, 3, 4]}, "camp_rows",
     None),
    ("camp-row-longer-than-board", {"campRows": [9]}, "camp_rows", None),
    ("camp-too-many-rows", {"boardSize": 4, "campRows": [1, 1, 1, 1, 1]},
     "camp_rows", None),
    ("camps-overlap-2p", {"boardSize": 4, "campRows": [4, 3, 2, 1]},
     "camp_rows", None),
    ("camps-overlap-4p-east", {"boardSize": 4, "seatCount": 4,
                               "campRows": [3]}, "camp_rows", None),
    ("camps-overlap-4p-north", {"boardSize": 4, "seatCount": 4,
                                "campRows": [2, 2, 2]}, "camp_rows", None),
    ("camps-overlap-5x5-4p", {"boardSize": 5, "seatCount": 4,
                              "campRows": [3, 3]}, "camp_rows", None),
    ("home-exit-negative", {"homeExitLimit": -1}, "home_exit_limit", "-1"),
    ("home-exit-absurd", {"homeExitLimit": 1000001}, "home_exit_limit",
     "1000001"),
    ("move-cap-negative", {"moveCap": -5}, "move_cap", "-5"),
    ("move-cap-absurd", {"moveCap": 2000000}, "move_cap", "2000000"),
]
BAD_RECORDS = [
    (["a1-c3", "h8-f6", "x9"], 2),
    (["A1-c3"], 0),
    (["a1-c3", "-"], 1),
    (["a1-c3", "h8-f6", "c3-e5", ""], 3),
]
RECORD_TEXT_ERRORS = [
    # (slug, text, contains)
    ("unknown-preset", '[Variant "brainking-9x9"]\n',
     ["line 1, column 11", "brainking-9x9"]),
    ("wrong-round-number",
     '[Variant "brainking-8x8"]\n\n1. b1-d3 h7-f5 3. a2-c4 *\n',
     ["line 3, column 16", "3."]),
    ("missing-round-number", '[Variant "brainking-8x8"]\n\nb1-d3 *\n',
     ["line 3, column 1"]),
    ("ellipsis-where-a-round-begins",
     '[Variant "brainking-8x8"]\n\n1... b1-d3 *\n', ["line 3, column 1"]),
    ("number-without-move",
     '[Variant "brainking-8x8"]\n\n1. b1-d3 h7-f5 2.\n',
     ["line 4, column 1", "2."]),
    ("tag-after-moves",
     '[Variant "brainking-8x8"]\n\n1. b1-d3 [Date "2026.01.01"]\n',
     ["line 3, column 10"]),
    ("comment-before-variant", '{hello} [Variant "brainking-8x8"]\n',
     ["line 1, column 1"]),
    ("no-variant-tag", '[Date "2026.01.01"]\n[Variant "brainking-8x8"]\n',
     ["line 1, column 1"]),
    ("unterminated-value", '[Variant "brainking-8x8]\n\n1. d1-e2\n',
     ["line 1"]),
    ("unknown-escape", '[Variant "brainking-8x8"]\n[Event "a\\nb"]\n',
     ["line 2"]),
    ("result-tag-disagrees",
     '[Variant "brainking-8x8"]\n[Result "*"]\n\n1. d1-e2 '
     'win:w:target-filled\n', ["line 4"]),
    ("bad-result-seat", '[Variant "brainking-8x8"]\n\n1. d1-e2 '
     'win:x:target-filled\n', ["line 3, column 10"]),
    ("draw-of-one-seat", '[Variant "brainking-8x8"]\n\n1. d1-e2 '
     'draw:w:move-cap\n', ["line 3, column 10"]),
    ("result-seat-not-in-play", '[Variant "brainking-8x8"]\n\n1. d1-e2 '
     'win:r:home-exit\n', ["line 3, column 10"]),
    ("illegal-ply-zero", '[Variant "brainking-8x8"]\n\n1. d1-e2 '
     'illegal:0:unreachable\n', ["line 3, column 10"]),
    ("illegal-ply-beyond-moves", '[Variant "brainking-8x8"]\n\n1. d1-e2 '
     'illegal:5:unreachable\n', ["line 3, column 10"]),
    ("illegal-unknown-reason", '[Variant "brainking-8x8"]\n\n1. d1-e2 '
     'illegal:1:nope\n', ["line 3, column 10"]),
    ("move-after-result", '[Variant "brainking-8x8"]\n\n1. d1-e2 * e8-d7\n',
     ["line 3, column 12"]),
    ("custom-without-board-size",
     '[Variant "custom"]\n[Seats "2"]\n[CampRows "4,3,2,1"]\n'
     '[HomeExit "0"]\n[RoundCompletion "off"]\n[TargetLock "off"]\n',
     ["BoardSize"]),
    ("preset-with-board-size",
     '[Variant "brainking-8x8"]\n[BoardSize "8"]\n', ["line 2"]),
    ("board-size-leading-zero",
     '[Variant "custom"]\n[BoardSize "08"]\n[Seats "2"]\n'
     '[CampRows "4,3,2,1"]\n[HomeExit "0"]\n[RoundCompletion "off"]\n'
     '[TargetLock "off"]\n', ["line 2"]),
    ("seats-three",
     '[Variant "custom"]\n[BoardSize "8"]\n[Seats "3"]\n'
     '[CampRows "4,3,2,1"]\n[HomeExit "0"]\n[RoundCompletion "off"]\n'
     '[TargetLock "off"]\n', ["line 3"]),
    ("camp-rows-empty-item",
     '[Variant "custom"]\n[BoardSize "8"]\n[Seats "2"]\n'
     '[CampRows "4,3,,1"]\n[HomeExit "0"]\n[RoundCompletion "off"]\n'
     '[TargetLock "off"]\n', ["line 4"]),
    ("camp-rows-growing",
     '[Variant "custom"]\n[BoardSize "8"]\n[Seats "2"]\n'
     '[CampRows "2,3"]\n[HomeExit "0"]\n[RoundCompletion "off"]\n'
     '[TargetLock "off"]\n', ["camp_rows"]),
    ("round-completion-yes",
     '[Variant "custom"]\n[BoardSize "8"]\n[Seats "2"]\n'
     '[CampRows "4,3,2,1"]\n[HomeExit "0"]\n[RoundCompletion "yes"]\n'
     '[TargetLock "off"]\n', ["line 6"]),
    ("duplicate-date",
     '[Variant "brainking-8x8"]\n[Date "2026.01.01"]\n[Date "2026.01.02"]\n',
     ["line 3"]),
    ("player-not-in-play", '[Variant "brainking-8x8"]\n[PlayerR "Rita"]\n',
     ["line 2"]),
    ("bad-position-tag",
     '[Variant "brainking-8x8"]\n[Position "8/8 w 0,0"]\n',
     ["line 2"]),
    ("bad-move", '[Variant "brainking-8x8"]\n\n1. b1-z3 *\n',
     ["line 3, column 4", "b1-z3"]),
    ("unterminated-comment",
     '[Variant "brainking-8x8"]\n\n1. d1-e2 {never closed\n', ["line 3"]),
    ("tag-name-digit", '[Variant "brainking-8x8"]\n[1st "x"]\n',
     ["line 2"]),
    ("two-records",
     '[Variant "brainking-8x8"]\n\n1. d1-e2 *\n[Variant "brainking-8x8"]\n\n'
     '1. d1-e2 *\n', []),
    ("only-white-space", ' \n\t\n', []),
]


def malformed(s, vectors):
    f = "malformed"
    # Variants.
    s.error(f, "variant/missing", LM, ["malformed-variant"], {},
            "INVALID_ARGUMENT", "variant")
    for method, extra in [(LM, {}), (VM, {"move": "d1-e2"}), (ADJ, {}),
                          (PERFT, {"depth": 1})]:
        s.error(f, "variant/unknown-preset/" + method, method,
                ["malformed-variant"], dict(extra, variant=preset("halma")),
                "INVALID_ARGUMENT", "variant.preset", ["halma"])
    for vec in vectors["malformed"]:
        if vec["kind"] != "variant":
            continue
        name = vec["input"]
        s.error(f, "variant/vector-%s" % (name or "empty"), LM,
                ["malformed-variant", "vectors"], {"variant": preset(name)},
                "INVALID_ARGUMENT", "variant.preset",
                [name] if name else [])
    for name in ["BrainKing-8x8", "brainking-8x8 ", "classic"]:
        s.error(f, "variant/preset-%s" % name.strip().lower(), LM,
                ["malformed-variant"], {"variant": preset(name)},
                "INVALID_ARGUMENT", "variant.preset")
    base = custom(8, 2, [4, 3, 2, 1])["custom"]
    for slug, edits, field, quoted in BAD_SPECS:
        spec = dict(base, **edits)
        s.error(f, "custom/" + slug, LM, ["malformed-custom"],
                {"variant": {"custom": spec}}, "INVALID_ARGUMENT",
                "variant.custom." + field, [quoted] if quoted else [])
    s.error(f, "custom/all-zero", LM, ["malformed-custom"],
            {"variant": {"custom": {}}}, "INVALID_ARGUMENT",
            "variant.custom.board_size")
    # Positions, in every RPC that takes one.
    for slug, v, text, quoted in BAD_POSITIONS:
        if not text:
            continue  # An empty position means the start (not an error).
        s.error(f, "position/" + slug, LM, ["malformed-position"],
                {"variant": v, "position": text}, "INVALID_ARGUMENT",
                "position", [quoted] if quoted else [])
    for vec in vectors["malformed"]:
        if vec["kind"] == "position":
            s.error(f, "position/vector-" + re.sub(
                "[^a-z0-9]+", "-", vec["why"].lower()).strip("-"), LM,
                ["malformed-position", "vectors"],
                {"variant": vector_variant(vec["variant"]),
                 "position": vec["input"]}, "INVALID_ARGUMENT", "position")
    bad = BK8_BOARD + " w 1,0"
    s.error(f, "position/in-validate-move", VM, ["malformed-position"],
            {"variant": BK8, "position": bad, "move": "d1-e2"},
            "INVALID_ARGUMENT", "position")
    s.error(f, "position/in-adjudicate", ADJ, ["malformed-position"],
            {"variant": BK8, "startPosition": bad, "moves": ["d1-e2"]},
            "INVALID_ARGUMENT", "start_position")
    s.error(f, "position/in-perft", PERFT, ["malformed-position"],
            {"variant": BK8, "position": bad, "depth": 1},
            "INVALID_ARGUMENT", "position")
    # The move that cannot be counted (docs/rules.md section 4).
    top = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w %s,%s" % (MAX_COUNT,
                                                          MAX_COUNT)
    open8x8 = custom(8, 2, [4, 3, 2, 1])
    s.error(f, "position/count-overflow-in-validate-move", VM,
            ["malformed-position", "notation"],
            {"variant": open8x8, "position": top, "move": "d1-e2"},
            "INVALID_ARGUMENT", "position", ["cannot be counted"])
    s.error(f, "record/count-overflow-in-adjudicate", ADJ,
            ["malformed-record", "notation"],
            {"variant": open8x8, "startPosition": top, "moves": ["d1-e2"]},
            "INVALID_ARGUMENT", "moves[0]", ["cannot be counted"])
    # Squares (LegalMoves' origin).
    squares = BAD_SQUARES + [v["input"] for v in vectors["malformed"]
                             if v["kind"] == "square"]
    for text in dict.fromkeys(squares):
        s.error(f, "square/" + slug_of(text), LM, ["malformed-square"],
                {"variant": BK8, "origin": text}, "INVALID_ARGUMENT",
                "origin", quotable(text))
    s.error(f, "square/off-16x16", LM, ["malformed-square"],
            {"variant": C16, "origin": "q1"}, "INVALID_ARGUMENT", "origin",
            ["q1"])
    # Moves (ValidateMove's move).
    moves = [(BK8, m) for m in BAD_MOVES] + [
        (vector_variant(v["variant"]), v["input"])
        for v in vectors["malformed"] if v["kind"] == "move"]
    moves.append((BK8, "a1-" * 400 + "a1"))
    for v, text in moves:
        s.error(f, "move/%s/%s" % (variant_slug(v), slug_of(text)), VM,
                ["malformed-move"], {"variant": v, "move": text},
                "INVALID_ARGUMENT", "move", quotable(text))
    # Records (Adjudicate's moves): the index of the first bad move.
    records = list(BAD_RECORDS)
    for vec in vectors["malformed"]:
        if vec["kind"] == "record":
            moves = vec["input"]["moves"]
            first = next(i for i, m in enumerate(moves)
                         if s.api.call(VM, {"variant": BK8, "move": m})[0]
                         == "error")
            records.append((moves, first))
    for moves, first in records:
        s.error(f, "record/%s" % slug_of(" ".join(moves)), ADJ,
                ["malformed-record"], {"variant": BK8, "moves": moves},
                "INVALID_ARGUMENT", "moves[%d]" % first)
    # Record text: parse errors at a line and column.
    for slug, text, contains in RECORD_TEXT_ERRORS:
        s.error(f, "record-text/" + slug, ADJ, ["malformed-record-text"],
                {"recordText": text}, "INVALID_ARGUMENT", "record_text",
                contains)
    s.error(f, "record-text/with-variant", ADJ, ["malformed-record-text"],
            {"variant": BK8, "recordText": '[Variant "brainking-8x8"]\n'},
            "INVALID_ARGUMENT", "record_text")
    s.error(f, "record-text/with-moves", ADJ, ["malformed-record-text"],
            {"moves": ["d1-e2"], "recordText": '[Variant "brainking-8x8"]\n'},
            "INVALID_ARGUMENT", "record_text")
    # Perft's depth.
    s.error(f, "perft/negative-depth", PERFT, ["malformed-perft"],
            {"variant": BK8, "depth": -1}, "INVALID_ARGUMENT", "depth")


def slug_of(text):
    slug = re.sub("[^a-z0-9]+", "-", text.lower()).strip("-")
    if len(slug) > 40:
        slug = slug[:40] + "-long"
    return slug or "empty"


def quotable(text):
    """[text] when an error message can be expected to quote it as it is
    (short printable ASCII)."""
    if (text and len(text) <= 40 and text.strip() == text and
            all(0x20 < ord(c) < 0x7f and c not in '"\\' for c in text)):
        return [text]
    return []


# ============================================================== limits --

def limits(s):
    """Bounds that follow from the server's default limits (docs/
    conformance.md says how to skip them for a server configured
    otherwise). A record of `pass` moves is smallest in binary protobuf:
    over the Connect protocol's JSON, 10,001 of them pass the 64 KiB
    message limit, so the record-length cases are gRPC's only."""
    f = "limits"
    at_limit = ["pass"] * 10000
    s.answer(f, "record-of-10000-moves", ADJ, ["limits", "records"],
             {"variant": BK8, "moves": at_limit},
             review={"illegalMove": {"ply": 1,
                                     "reason": reason("pass-not-allowed")}},
             protocols=["grpc"])
    s.error(f, "record-of-10001-moves", ADJ, ["limits", "records"],
            {"variant": BK8, "moves": at_limit + ["pass"]},
            "INVALID_ARGUMENT", "moves", ["10001"], protocols=["grpc"])
    s.error(f, "request-over-64-kib", LM, ["limits"],
            {"variant": BK8, "position": "w" * 70000}, "RESOURCE_EXHAUSTED")
    s.error(f, "perft-depth-9", PERFT, ["limits", "perft"],
            {"variant": BK8, "depth": 9}, "INVALID_ARGUMENT", "depth")
    s.error(f, "suggest-max-nodes-above-4000000", SUGGEST,
            ["limits", "suggest-move"],
            {"variant": BK8, "maxNodes": "4000001"}, "INVALID_ARGUMENT",
            "max_nodes", ["4000000", "max_suggest_nodes"])


# ========================================================= SuggestMove --

def suggest_legal(s, f, slug, areas, request, position):
    """Cases for one SuggestMove request whose answer the rules leave open:
    the move and every candidate are among LegalMoves' paths for the
    position searched (or, when the side to move must pass, the move is
    the "pass" ValidateMove accepts), and the same request gets the same
    whole answer again."""
    variant = request["variant"]
    legal = s.api.call(LM, {"variant": variant, "position": position})[1]
    if legal["status"]["mustPass"]:
        s.member(f, slug + "/pass", SUGGEST, areas + ["passes"], request,
                 "move.path", VM, {"variant": variant, "position": position,
                                   "move": "pass"}, "path")
    else:
        in_legal = ({"variant": variant, "position": position},
                    "moves[].path")
        s.member(f, slug + "/move-is-legal", SUGGEST, areas, request,
                 "move.path", LM, *in_legal)
        if request.get("candidates", 1) > 1:
            s.member(f, slug + "/candidates-are-legal", SUGGEST, areas,
                     request, "candidates[].move.path", LM, *in_legal)
    s.deterministic(f, slug + "/same-answer-twice", SUGGEST,
                    areas + ["determinism"], request)


def suggest_move(s):
    """Legality and determinism, never the move itself (the search's
    strength may change; the rules' answer may not)."""
    f = "suggest_move"
    areas = ["suggest-move"]
    for n, name in enumerate(PRESETS):
        v = preset(name)
        kind = ["presets", players(v, s)]
        # The start, at the default level, with hints.
        suggest_legal(s, f, "start/" + name, areas + kind,
                      {"variant": v, "candidates": 3},
                      s.position_of(v, ""))
        # A played game given as its moves, at a cheap level, seeded.
        moves, positions = playout(s, v, 12, 7000 + n)
        suggest_legal(s, f, "moves/%s/ply-%d" % (name, len(moves)),
                      areas + kind + ["playouts", "records"],
                      {"variant": v, "moves": moves, "level": 1 + n % 3,
                       "seed": str(n), "candidates": 2},
                      positions[-1])
    for n, (name, v, extra) in enumerate(CUSTOM_PLAYOUTS):
        _, positions = playout(s, v, 10, 7100 + n)
        suggest_legal(s, f, "custom/%s/ply-%d" % (name, len(positions) - 1),
                      areas + ["custom-variants", "playouts",
                               players(v, s)] + extra,
                      {"variant": v, "position": positions[-1], "level": 2,
                       "candidates": 4},
                      positions[-1])
    # An explicit node budget is reproducible too.
    suggest_legal(s, f, "node-budget/classic-16x16", areas + ["presets"],
                  {"variant": C16, "maxNodes": "30000", "maxDepth": 3,
                   "seed": "12"}, s.position_of(C16, ""))
    # A pass when it is the only move (two and four players).
    suggest_legal(s, f, "forced-pass/two-players",
                  areas + ["custom-variants", "two-players"],
                  {"variant": TINY_LOCKED, "position": W_MUST_PASS},
                  W_MUST_PASS)
    suggest_legal(s, f, "forced-pass/four-players",
                  areas + ["custom-variants", "four-players"],
                  {"variant": TINY_4P, "position": "4/rrrb/ggbb/wwwg w 5,5,5,5"},
                  "4/rrrb/ggbb/wwwg w 5,5,5,5")
    # Errors naming the field.
    over = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 31,31"
    s.error(f, "finished-game", SUGGEST, areas + ["finished-games",
                                                  "home-exit"],
            {"variant": BK8, "position": over}, "INVALID_ARGUMENT",
            "position", ["game is over"])
    s.error(f, "finished-after-moves", SUGGEST,
            areas + ["finished-games", "home-exit", "records"],
            {"variant": BK8, "position": over.replace("31,31", "30,30"),
             "moves": ["b1-d3"]}, "INVALID_ARGUMENT", "moves",
            ["game is over"])
    s.error(f, "illegal-move-in-moves", SUGGEST,
            areas + ["illegal-moves", "records"],
            {"variant": BK8, "moves": ["b1-d3", "b2-c3"]},
            "INVALID_ARGUMENT", "moves[1]", ['"b2-c3"'])
    s.error(f, "malformed-position", SUGGEST, areas + ["malformed-position"],
            {"variant": BK8, "position": "4bbbbb/5bbb/6bb/7b/w7/ww6/www5/"
                                         "wwww4 w 0,0"},
            "INVALID_ARGUMENT", "position", ["4bbbbb"])
    for field, value, text in [("level", 9, "9"), ("level", -1, "-1"),
                               ("candidates", 17, "17"),
                               ("maxTimeMs", -1, "-1")]:
        s.error(f, "bad-%s/%s" % (field, value), SUGGEST,
                areas + ["malformed-suggest"], {"variant": BK8, field: value},
                "INVALID_ARGUMENT",
                re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), field),
                [text])
    s.error(f, "level-and-max-nodes", SUGGEST, areas + ["malformed-suggest"],
            {"variant": BK8, "level": 3, "maxNodes": "1000"},
            "INVALID_ARGUMENT", "level", ["max_nodes"])
    s.error(f, "max-depth-without-budget", SUGGEST,
            areas + ["malformed-suggest"],
            {"variant": BK8, "maxDepth": 3}, "INVALID_ARGUMENT", "max_depth")


def build_all(s, repo):
    vectors = load_vectors(repo)
    list_variants(s)
    legal_moves(s, vectors)
    validate_move(s, vectors)
    adjudicate(s, vectors)
    record_text(s, repo)
    perft(s, repo)
    malformed(s, vectors)
    limits(s)
    suggest_move(s)
