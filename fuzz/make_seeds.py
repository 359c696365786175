#!/usr/bin/python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/).

Sources: the start position of every variant the targets know (the presets
and the custom variants of fuzz/fuzz_input.h, in the same order), positions
of the benchmark sets (bench/data/), the public vectors (positions, records,
malformed inputs) of testdata/vectors, and malformed samples like those of
tests/engine/notation_test.cc. Service seeds are serialized request
messages, encoded here by hand (the wire format is small; Debian's python3
protobuf module is not a build dependency).

Usage: fuzz/make_seeds.py   (rewrites fuzz/corpus/)
"""

import argparse
import hashlib
import json
import os
import shutil
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
MAX_SEED = 4000
FILES = "abcdefghijklmnop"

# (label, n, seats, camp rows, home exit, round completion, target lock,
# move cap): FuzzVariants() of fuzz/fuzz_input.h, in its order.
VARIANTS = [
    ("brainking-8x8", 8, 2, [4, 3, 2, 1], 30, False, False, 0),
    ("brainking-10x10", 10, 2, [5, 4, 3, 2, 1], 50, False, False, 0),
    ("iggamecenter-10x10", 10, 2, [5, 4, 3, 2, 1], 0, True, False, 0),
    ("classic-16x16", 16, 2, [5, 5, 4, 3, 2], 0, False, True, 0),
    ("classic-16x16-4p", 16, 4, [4, 4, 3, 2], 0, False, True, 0),
    ("custom-8x8-4p-exit2", 8, 4, [2, 1], 2, False, False, 0),
    ("custom-4x4-lock", 4, 2, [4, 3], 0, False, True, 0),
    ("custom-12x12-rc-cap60", 12, 2, [4, 4, 2], 0, True, False, 60),
    ("custom-16x16-4p-big", 16, 4, [8, 7, 6, 5, 4, 3, 2, 1], 0, False, False,
     0),
    ("custom-6x6-4p-all", 6, 4, [1], 3, True, True, 20),
    ("custom-16x16-full", 16, 2, [16] * 8, 0, False, False, 0),
    ("custom-5x5-exit1-cap3", 5, 2, [2, 1], 1, False, False, 3),
    ("custom-16x16-nolock", 16, 2, [5, 5, 4, 3, 2], 0, False, False, 0),
    ("custom-8x8-4p", 8, 4, [3, 2, 1], 0, False, False, 0),
    ("custom-12x12", 12, 2, [6, 5, 4, 3, 2, 1], 0, False, False, 0),
    ("custom-5x5-tight", 5, 2, [4, 3, 2, 1], 0, False, False, 0),
    ("custom-8x8-cap20", 8, 2, [4, 3, 2, 1], 0, False, False, 20),
]
PRESETS = [v[0] for v in VARIANTS if not v[0].startswith("custom-")]


def selector(label):
    for i, v in enumerate(VARIANTS):
        if v[0] == label:
            return bytes([ord("A") + i])
    raise KeyError(label)


def variant_of_vector(spec):
    """The label of a vectors variant (a preset name or a custom dict)."""
    if isinstance(spec, str):
        return spec
    key = (spec["n"], spec["seats"], list(spec["camp"]), spec["home_exit"],
           spec["round_completion"], spec["target_lock"], spec["move_cap"])
    for v in VARIANTS:
        if v[0].startswith("custom-") and (v[1], v[2], v[3], v[4], v[5], v[6],
                                           v[7]) == key:
            return v[0]
    return None


def spec_of(label):
    for v in VARIANTS:
        if v[0] == label:
            return v
    raise KeyError(label)


def start_position(label):
    _, n, seats, rows, _, _, _, _ = spec_of(label)
    board = [[None] * n for _ in range(n)]
    corners = {"w": (False, False), "r": (False, True), "b": (True, True),
               "g": (True, False)}
    letters = "wb" if seats == 2 else "wrbg"
    for letter in letters:
        flip_x, flip_y = corners[letter]
        for y, length in enumerate(rows):
            for x in range(length):
                board[n - 1 - y if flip_y else y][n - 1 - x if flip_x else x] = (
                    letter)
    ranks = []
    for y in range(n - 1, -1, -1):
        out, empty = "", 0
        for x in range(n):
            if board[y][x] is None:
                empty += 1
                continue
            if empty:
                out += str(empty)
            empty = 0
            out += board[y][x]
        if empty:
            out += str(empty)
        ranks.append(out)
    return "/".join(ranks) + " w " + ",".join("0" for _ in letters)


# --- The protobuf wire format of the halma.v1 requests. ---


def varint(value):
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field_varint(number, value):
    return varint(number << 3) + varint(value)


def field_bytes(number, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    return varint(number << 3 | 2) + varint(len(data)) + data


def variant_message(label):
    """The request's `variant` field (number 1 in every request)."""
    if label in PRESETS:
        return field_bytes(1, field_bytes(1, label))
    _, n, seats, rows, home_exit, rc, lock, cap = spec_of(label)
    return field_bytes(1, field_bytes(2, spec_message(n, seats, rows,
                                                      home_exit, rc, lock,
                                                      cap)))


def spec_message(n, seats, rows, home_exit=0, rc=False, lock=False, cap=0):
    out = field_varint(1, n) + field_varint(2, seats)
    out += field_bytes(3, b"".join(varint(r) for r in rows))
    if home_exit:
        out += field_varint(4, home_exit)
    if rc:
        out += field_varint(5, 1)
    if lock:
        out += field_varint(6, 1)
    if cap:
        out += field_varint(7, cap)
    return out


def validate_request(variant, position, move):
    return variant + field_bytes(2, position) + field_bytes(3, move)


def legal_moves_request(variant, position, origin=""):
    out = variant + field_bytes(2, position)
    if origin:
        out += field_bytes(3, origin)
    return out


def adjudicate_request(variant, start, moves):
    out = variant
    if start:
        out += field_bytes(2, start)
    for move in moves:
        out += field_bytes(3, move)
    return out


# --- Sources. ---


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def bench_positions(per_file):
    """A few positions of each benchmark set, by variant label."""
    out = []
    for sub in ("", "typical"):
        folder = os.path.join(ROOT, "bench", "data", sub)
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".txt"):
                continue
            label = name[:-4]
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                lines = [l.strip() for l in f
                         if l.strip() and not l.startswith("#")]
            step = max(1, len(lines) // per_file)
            for line in lines[::step][:per_file]:
                out.append((label, line))
    return out


def neighbours(a, b):
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1


def parse_square(text):
    return FILES.index(text[0]), int(text[1:]) - 1


class Corpus:
    def __init__(self):
        self.seeds = {}

    def add(self, target, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        if len(data) > MAX_SEED:
            return
        self.seeds.setdefault(target, {})[hashlib.sha1(data).hexdigest()] = data

    def write(self):
        # Only the targets seeded here are rewritten: others keep their own
        # committed seeds (record_text_fuzzer's).
        for target, seeds in sorted(self.seeds.items()):
            folder = os.path.join(CORPUS, target)
            if os.path.isdir(folder):
                shutil.rmtree(folder)
            os.makedirs(folder)
            for name, data in sorted(seeds.items()):
                with open(os.path.join(folder, name[:16]), "wb") as f:
                    f.write(data)
            print(f"{target}: {len(seeds)} seeds", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    vectors = os.path.join(ROOT, "testdata", "vectors")
    positions = read_jsonl(os.path.join(vectors, "positions.jsonl"))
    records = read_jsonl(os.path.join(vectors, "records.jsonl"))
    malformed = read_jsonl(os.path.join(vectors, "malformed.jsonl"))
    bench = bench_positions(2)
    c = Corpus()

    # --- parse_square: byte 0 is the board size - 4. ---
    for n, text in [(8, "a1"), (8, "h8"), (10, "j10"), (16, "p16"),
                    (4, "d4"), (12, "l12"), (16, "a16"), (8, "a"), (8, "1"),
                    (8, "A1"), (8, "a9"), (8, "a1 "), (8, "a01"), (8, "a0"),
                    (16, "q1"), (8, ""), (10, "k1"), (16, "p017"),
                    (8, "b\x00"), (8, "c3-")]:
        c.add("parse_square_fuzzer", bytes([n - 4]) + text.encode())
    # --- parse_move ---
    for n, text in [(8, "pass"), (8, "b2-c3"), (8, "c3-e5-g7"),
                    (16, "p16-o15"), (10, "a1-j10"),
                    (16, "a1-c3-e5-g7-i9-k11-m13-o15"), (8, "-a1"),
                    (8, "pass-a1"), (8, "a1 b2"), (8, "a1-i9"), (8, "a1--b2"),
                    (8, "a1"), (8, "a1-b2-"), (8, "PASS"), (8, ""),
                    (8, "d1\u2013e2"), (16, "p16-q17"),
                    (16, "-".join(["a1", "c3"] * 40))]:
        c.add("parse_move_fuzzer", bytes([n - 4]) + text.encode())

    # --- parse_position, legal_moves, move_check: selector + position. ---
    boards = []  # (label, position)
    for v in VARIANTS:
        boards.append((v[0], start_position(v[0])))
    boards += bench
    for row in positions:
        label = variant_of_vector(row["variant"])
        if label:
            boards.append((label, row["position"]))
    four_exit = ["rr4bb/8/8/8/r5bg/w7/1ww5/6gg g 3,3,3,2",
                 "r7/2r2bb1/7b/r7/8/w2w3g/1w3gg1/8 b 4,3,3,3",
                 "r7/2r2bb1/7b/r7/8/w2w3g/1w3gg1/8 g 10,3,10,9"]
    boards += [("custom-8x8-4p-exit2", p) for p in four_exit]
    for label, text in boards:
        c.add("parse_position_fuzzer", selector(label) + text.encode())
    for label, text in boards[::2]:
        c.add("legal_moves_fuzzer", selector(label) + text.encode())
    bk8 = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4"
    for text in ["04bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0",
                 "4bbbb/05bbb/006bb/7b/w07/ww6/www5/wwww004 w 0,0",
                 bk8 + " w 000000000,000000000", bk8 + " b 1,0",
                 bk8 + " w 9223372036854775807,9223372036854775807",
                 bk8 + " b 9223372036854775807,9223372036854775806",
                 bk8 + " w 1,0", bk8 + " w 0", bk8 + " w +1,+1",
                 bk8 + " x 0,0", bk8 + "  w 0,0", bk8 + " w 0,0 ",
                 "8/8/8/8/8/8/8/8 w 0,0", "4bbbb/5bbb/6bb/7b/w0w6/ww6/www5/"
                 "wwww4 w 0,0", bk8 + "/ w 0,0", bk8 + " w 1234567890,1"]:
        c.add("parse_position_fuzzer", selector("brainking-8x8") + text.encode())
    for row in malformed:
        label = variant_of_vector(row.get("variant", ""))
        if row["kind"] == "position" and label:
            c.add("parse_position_fuzzer",
                  selector(label) + row["input"].encode())
        if row["kind"] == "square":
            c.add("parse_square_fuzzer", bytes([4]) + row["input"].encode())
        if row["kind"] == "move":
            c.add("parse_move_fuzzer", bytes([12]) + row["input"].encode())

    # Origins to restrict LegalMoves to, and moves to check.
    for row in positions:
        label = variant_of_vector(row["variant"])
        if not label:
            continue
        sel = selector(label) + row["position"].encode()
        legal = row["legal"]
        if legal and legal[0][0] != "pass":
            c.add("legal_moves_fuzzer", sel + b"\n" + legal[0][0].encode())
            c.add("legal_moves_fuzzer", sel + b"\n" + legal[-1][0].encode() +
                  b"\n" + bytes(range(0, 64, 3)))
        for origin, destination, hops in legal[:: max(1, len(legal) // 2)][:2]:
            if origin == "pass":
                c.add("move_check_fuzzer", sel + b"\npass")
                continue
            c.add("move_check_fuzzer",
                  sel + f"\n{origin}-{destination}".encode())
        if legal and legal[0][0] != "pass":
            # Illegal: onto another piece.
            o = legal[0][0]
            c.add("move_check_fuzzer", sel + f"\n{o}-{legal[-1][0]}".encode())
    for v in VARIANTS[::2]:
        c.add("move_check_fuzzer", selector(v[0]) + b"\na1-b2")
        c.add("move_check_fuzzer", selector(v[0]) + b"\npass")
    c.add("move_check_fuzzer", selector("brainking-8x8") + b"\nb2-d4-b2")
    c.add("move_check_fuzzer", selector("brainking-8x8") + b"\nb1-d3-f5")
    c.add("move_check_fuzzer", selector("brainking-8x8") + b"\nc3-e5")
    c.add("move_check_fuzzer", selector("brainking-8x8") + b"\na1-a")
    # Positions built from bytes (the text does not parse).
    for v in VARIANTS[:6]:
        c.add("move_check_fuzzer", selector(v[0]) + bytes(range(1, 41)) +
              b"\nb1-c2")
        c.add("legal_moves_fuzzer", selector(v[0]) +
              bytes((i * 37) % 256 for i in range(1, 61)))

    # --- record_replay: selector + start (or empty) + moves, or playouts. ---
    for row in records:
        label = variant_of_vector(row["variant"])
        if not label:
            continue
        text = row.get("from", "") + "\n" + "\n".join(row["moves"])
        c.add("record_replay_fuzzer", selector(label) + text.encode())
    for row in malformed:
        if row["kind"] == "record":
            moves = row["input"]["moves"]
            c.add("record_replay_fuzzer",
                  selector("brainking-8x8") + ("\n" + "\n".join(moves)).encode())
    for v in VARIANTS:
        sel = selector(v[0])
        c.add("record_replay_fuzzer", sel + b"!" + bytes([0x80] * 150))
        c.add("record_replay_fuzzer",
              sel + b"!" + bytes([0x80, 0x82, 0x81, 0x80] * 40))
        c.add("record_replay_fuzzer", sel + b"!" + bytes(range(0, 120, 5)))

    # --- custom_variant: bytes of a VariantSpec (see its encoding). ---
    def small(value, range_, offset):
        if offset <= value < offset + range_:
            return bytes([value - offset])
        return b"\x80" + struct.pack("<i", value)

    def spec_bytes(n, seats, rows, home_exit=0, rc=False, lock=False, cap=0):
        out = small(n, 20, -2) + small(seats, 6, 0)
        out += small(home_exit, 40, -2) + small(cap, 40, -2)
        out += bytes([int(rc) | int(lock) << 1])
        return out + b"".join(small(r, 18, -1) for r in rows)

    for v in VARIANTS:
        _, n, seats, rows, home_exit, rc, lock, cap = v
        c.add("custom_variant_fuzzer",
              spec_bytes(n, seats, rows, home_exit, rc, lock, cap))
    for args in [(3, 2, [1]), (17, 2, [1]), (0, 2, [1]), (-8, 2, [1]),
                 (8, 3, [1]), (8, 2, []), (8, 2, [0]), (8, 2, [3, 0]),
                 (8, 2, [-1]), (8, 2, [2, 3]), (8, 2, [9]),
                 (4, 2, [1, 1, 1, 1, 1]), (4, 2, [4, 4, 1]), (4, 4, [3]),
                 (4, 4, [2, 2, 2]), (5, 4, [3, 3]),
                 (16, 2, [16] * 8 + [1]), (8, 2, [1], -1),
                 (8, 2, [1], 1000001), (8, 2, [1], 0, False, False, -5),
                 (8, 2, [1], 0, False, False, 2000000),
                 (8, 2, [1], 1000000, True, True, 1000000),
                 (16, 4, [8] * 8), (8, 2, [1] * 40)]:
        c.add("custom_variant_fuzzer", spec_bytes(*args))

    # --- The service: serialized requests. ---
    for label, text in boards[: len(VARIANTS)] + bench[::4]:
        variant = variant_message(label)
        c.add("legal_moves_request_fuzzer", legal_moves_request(variant, text))
    for row in positions:
        label = variant_of_vector(row["variant"])
        if not label:
            continue
        variant = variant_message(label)
        legal = row["legal"]
        c.add("legal_moves_request_fuzzer",
              legal_moves_request(variant, row["position"]))
        if legal and legal[0][0] != "pass":
            c.add("legal_moves_request_fuzzer",
                  legal_moves_request(variant, row["position"], legal[0][0]))
            for origin, destination, _ in legal[:: max(1, len(legal) // 2)][:2]:
                c.add("validate_move_request_fuzzer",
                      validate_request(variant, row["position"],
                                       f"{origin}-{destination}"))
        else:
            c.add("validate_move_request_fuzzer",
                  validate_request(variant, row["position"], "pass"))
    for v in VARIANTS[::2]:
        variant = variant_message(v[0])
        c.add("validate_move_request_fuzzer",
              validate_request(variant, "", "a2-a3"))
    for row in records:
        label = variant_of_vector(row["variant"])
        if label:
            c.add("adjudicate_request_fuzzer",
                  adjudicate_request(variant_message(label),
                                     row.get("from", ""), row["moves"][:100]))
    for row in malformed:
        if row["kind"] == "variant":
            variant = field_bytes(1, field_bytes(1, row["input"]))
            c.add("validate_move_request_fuzzer",
                  validate_request(variant, "", "a1-b2"))
            c.add("legal_moves_request_fuzzer",
                  legal_moves_request(variant, ""))
            continue
        label = variant_of_vector(row["variant"])
        if not label:
            continue
        variant = variant_message(label)
        kind, text = row["kind"], row["input"]
        if kind == "position":
            c.add("validate_move_request_fuzzer",
                  validate_request(variant, text, "a1-b2"))
            c.add("legal_moves_request_fuzzer",
                  legal_moves_request(variant, text))
            c.add("adjudicate_request_fuzzer",
                  adjudicate_request(variant, text, ["a1-b2"]))
        elif kind == "square":
            c.add("legal_moves_request_fuzzer",
                  legal_moves_request(variant, "", text))
        elif kind == "move":
            c.add("validate_move_request_fuzzer",
                  validate_request(variant, "", text))
        elif kind == "record":
            c.add("adjudicate_request_fuzzer",
                  adjudicate_request(variant, "", text["moves"]))
    # Bad variants, bad bytes.
    bad_variants = [field_bytes(1, "brainking-9x9"), field_bytes(1, ""),
                    field_bytes(2, spec_message(3, 2, [1])),
                    field_bytes(2, spec_message(8, 3, [1])),
                    field_bytes(2, spec_message(8, 2, [2, 3])),
                    field_bytes(2, spec_message(8, 2, [1] * 20)),
                    field_bytes(2, spec_message(4, 2, [4, 4, 1])),
                    field_bytes(2, spec_message(8, 2, [1], 2000000)),
                    field_bytes(2, spec_message(8, 2, [-1])),
                    field_bytes(2, b"")]
    for variant in bad_variants:
        variant = field_bytes(1, variant)
        c.add("validate_move_request_fuzzer",
              validate_request(variant, "", "a1-b2"))
        c.add("legal_moves_request_fuzzer", legal_moves_request(variant, ""))
        c.add("adjudicate_request_fuzzer",
              adjudicate_request(variant, "", ["a1-b2"]))
    bk8 = field_bytes(1, field_bytes(1, "brainking-8x8"))
    c.add("adjudicate_request_fuzzer",
          adjudicate_request(bk8, "", ["a3-b4", "h6-g5"] * 60))
    broken = [b"", b"\x0a", b"\x0a\x05\x0a\x03bra", b"\x12\x02\xff\xfe",
              b"\x1a\x03a1\xc0", b"\x0a\x02\x12\x00", b"\x08\x01",
              b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
              bk8 + b"\x1a\x80\x80\x80\x80\x10",
              field_bytes(1, field_bytes(2, b"\x1a\x03\x80\x80\x80")),
              bk8 + b"\x7a\x00", bk8 + b"\x10\x05"]
    for data in broken:
        for target in ("validate_move_request_fuzzer",
                       "legal_moves_request_fuzzer",
                       "adjudicate_request_fuzzer",
                       "list_variants_request_fuzzer"):
            c.add(target, data)
    c.add("list_variants_request_fuzzer", field_bytes(5, "unknown"))
    c.add("list_variants_request_fuzzer", field_varint(1, 7))
    # Adjudicate with a record in the text format, and asked back as text.
    for text in ('[Variant "brainking-8x8"]\n\n1. b1-d3 h7-f5 *\n',
                 '[Variant "brainking-8x8"]\n[Result "win:w:target-filled"]'
                 '\n\n1. b1-d3 {c} h7-f5 2. a1-b2 win:w:target-filled\n',
                 '[Variant "custom"]\n[BoardSize "6"]\n[Seats "2"]\n'
                 '[CampRows "2,1"]\n[HomeExit "0"]\n[RoundCompletion "off"]'
                 '\n[TargetLock "on"]\n\n1. a1-b2 f6-e5 *\n',
                 '[Variant "brainking-8x8"]\n\n1. b1-d3 2. x\n'):
        c.add("adjudicate_request_fuzzer", field_bytes(4, text))
        c.add("adjudicate_request_fuzzer",
              field_bytes(4, text) + field_varint(5, 1))
    c.add("adjudicate_request_fuzzer",
          adjudicate_request(bk8, "", ["b1-d3", "h7-f5"]) + field_varint(5, 1))
    c.add("adjudicate_request_fuzzer",
          adjudicate_request(bk8, "", ["b1-d3"]) +
          field_bytes(4, '[Variant "brainking-8x8"]\n'))
    # AdjudicateStream: the Adjudicate seeds as records with ids, and the
    # forms the in-place reader leaves to protobuf.
    for i, (_, record) in enumerate(
            sorted(c.seeds["adjudicate_request_fuzzer"].items())[:60]):
        c.add("adjudicate_stream_request_fuzzer",
              field_bytes(1, "rec-%d" % i) + field_bytes(2, record))
        if i < 8:
            c.add("adjudicate_stream_request_fuzzer", field_bytes(2, record))
    record = adjudicate_request(bk8, "", ["b1-d3"])
    for data in (field_bytes(1, "a") + field_bytes(1, "b") +
                 field_bytes(2, record),
                 field_bytes(1, b"\xff") + field_bytes(2, record),
                 field_bytes(1, "x" * 300) + field_bytes(2, record),
                 field_bytes(2, record) + field_bytes(2, record),
                 field_bytes(2, record + field_bytes(4, "[Variant")),
                 field_bytes(3, "unknown"), b"\x0a\x05go"):
        c.add("adjudicate_stream_request_fuzzer", data)
    c.write()


if __name__ == "__main__":
    main()
