"""Plays a short game of brainking-8x8 against a halma-rules server.

Usage: halma-example [--ca-file PEM] [--server-name NAME] [--plies N] ADDRESS
   or: python3 -m halma_client.example ... ADDRESS

Checks the server's health, lists the variants, asks for the legal moves of
a3 at the start, validates a legal and an illegal move, then plays N plies
(each side taking the move that brings it furthest toward its target corner,
the first in the server's order on a tie, every move validated before it is
played), adjudicates the record it played
and a record with an illegal move, counts the move sequences of two plies
(perft), asks for a move after b1-d3 (SuggestMove, level 4, three ranked
candidates) and adjudicates three records on one AdjudicateStream call, printing
what the server answers.
Exit status: 0 done, 1 a call failed (the gRPC code and message on stderr),
2 bad usage.
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional, Sequence

from . import HalmaClient, HalmaError, halma_pb2, health_pb2

VARIANT = "brainking-8x8"


def seat(value: int) -> str:
    """SEAT_W -> "w"."""
    return str(halma_pb2.Seat.Name(value)).removeprefix("SEAT_").lower()


def describe(status: halma_pb2.GameStatus) -> str:
    state = status.state
    if state == halma_pb2.GameStatus.STATE_IN_PROGRESS:
        return f"{seat(status.to_move)} to move" + (" (must pass)" if status.must_pass else "")
    rule = halma_pb2.DecidingRule.Name(status.rule).removeprefix("DECIDING_RULE_").lower()
    winners = ", ".join(seat(w) for w in status.winners)
    if state == halma_pb2.GameStatus.STATE_WIN:
        return f"{winners} wins ({rule}, ply {status.ply})"
    return f"draw between {winners} ({rule}, ply {status.ply})"


def hops(count: int) -> str:
    return "a step" if count == 0 else f"{count} hop" + ("s" if count > 1 else "")


def advance(move: halma_pb2.Move, mover: int) -> int:
    """How far a move takes a piece toward its target corner (w: to h8, b: to a1)."""

    def diagonal(square: str) -> int:
        return ord(square[0]) - ord("a") + int(square[1:])

    gain = diagonal(move.destination) - diagonal(move.origin)
    return gain if mover == halma_pb2.SEAT_W else -gain


def reason(value: int) -> str:
    return str(halma_pb2.IllegalReason.Name(value)).removeprefix("ILLEGAL_REASON_")


def play(client: HalmaClient, plies: int) -> None:
    health = client.check_health("halma.v1.HalmaRules")
    print("Health:", health_pb2.HealthCheckResponse.ServingStatus.Name(health))

    print("Variants:")
    for info in client.list_variants().variants:
        spec = info.spec
        print(f"  {info.name}: {spec.board_size}x{spec.board_size}, {spec.seat_count} seats, "
              f"{info.pieces_per_seat} pieces each; start {info.start_position}")

    start = client.legal_moves(VARIANT, origin="a3")
    print(f"Legal moves of a3 at the start of {VARIANT}: "
          + ", ".join(f"{m.path} ({hops(m.hops)})" for m in start.moves))

    for move in ("b1-d3", "a1-b2"):
        answer = client.validate_move(VARIANT, move)
        if answer.legal:
            print(f"Validate {move}: legal, path {answer.path}, "
                  f"position after {answer.position_after}")
        else:
            print(f"Validate {move}: illegal, {reason(answer.reason)}: {answer.message}")

    print(f"Playing {plies} plies, each side taking the move that advances it most:")
    position = ""
    record: List[str] = []
    for ply in range(1, plies + 1):
        legal = client.legal_moves(VARIANT, position=position)
        if not legal.moves:
            print(f"  ply {ply}: no moves ({describe(legal.status)})")
            break
        mover = legal.status.to_move
        # max() keeps the first of equals: the server's order decides ties.
        best = max(legal.moves, key=lambda m: advance(m, mover))
        checked = client.validate_move(VARIANT, best.path, position=position)
        if not checked.legal:
            raise RuntimeError(f"the server listed {best.path} but rejects it: {checked.message}")
        record.append(checked.path)
        position = checked.position_after
        print(f"  ply {ply}: {seat(checked.mover)} has {legal.count} moves, plays {checked.path} "
              f"({hops(checked.hops)}) -> {position}")

    result = client.adjudicate(VARIANT, record)
    print(f"Adjudicate {' '.join(record)}: {result.moves_played} moves played, "
          f"{describe(result.status)}, final position {result.final_position}"
          + (" (as played)" if result.final_position == position else " (DIFFERS from play)"))

    bad = ["b1-d3", "h7-f5", "a1-b2"]
    result = client.adjudicate(VARIANT, bad)
    illegal = result.illegal_move
    print(f"Adjudicate {' '.join(bad)}: {result.moves_played} moves played, illegal move "
          f"{illegal.move} at ply {illegal.ply}: {reason(illegal.reason)}: {illegal.message}")

    counts = client.perft(VARIANT, 2, split_by_first_move=True)
    first = counts.first_moves[0]
    print(f"Perft depth 2 from the start: {counts.nodes} sequences, {len(counts.first_moves)} "
          f"first moves ({first.move}: {first.nodes})")

    hint = client.suggest_move(VARIANT, moves=["b1-d3"], level=4, seed=7, candidates=3)
    print(f"Suggest after b1-d3 (level 4, seed 7): {seat(hint.mover)} plays {hint.move.path}; "
          f"best {len(hint.candidates)}: " + ", ".join(c.move.path for c in hint.candidates))

    variant = halma_pb2.Variant(preset=VARIANT)
    records = [("played", halma_pb2.AdjudicateRequest(variant=variant, moves=record)),
               ("bad", halma_pb2.AdjudicateRequest(variant=variant, moves=bad)),
               ("malformed", halma_pb2.AdjudicateRequest(variant=variant, moves=["b1-z9"]))]
    print("AdjudicateStream, three records on one call:")
    with client.adjudicate_stream(records) as stream:
        for each in stream:
            if each.error is not None:
                print(f"  {each.id}: error {each.error}")
            elif each.response is not None:
                print(f"  {each.id}: {each.response.moves_played} moves played, "
                      + (f"illegal move at ply {each.response.illegal_move.ply}"
                         if each.response.HasField("illegal_move")
                         else describe(each.response.status)))


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="halma-example", description="Plays a short Halma game against a server.")
    parser.add_argument("address", help="host:port of the halma-rules server")
    parser.add_argument("--ca-file", help="use TLS, trusting this PEM CA/certificate file")
    parser.add_argument("--server-name", help="TLS: expect this name in the server certificate")
    parser.add_argument("--plies", type=int, default=6, help="plies to play (default 6)")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="deadline of each call in seconds (default 10)")
    args = parser.parse_args(argv)
    try:
        with HalmaClient(args.address, ca_file=args.ca_file, server_name=args.server_name,
                         timeout=args.timeout) as client:
            play(client, args.plies)
    except HalmaError as error:
        print(f"halma-example: {error.method} failed: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"halma-example: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
