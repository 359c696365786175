"""HalmaClient.suggest_move against the real halma_server on 127.0.0.1.

What the proto promises of SuggestMove, checked with the client's own
calls: the move is legal (LegalMoves lists it exactly, ValidateMove plays
it), the answer is a function of the request, the candidates are ranked,
bad requests are INVALID_ARGUMENT naming the field, and a search that
outlasts its deadline ends DEADLINE_EXCEEDED (or, when asked, answers the
best move found so far). Not which move: that is the bot's to choose.
"""

from __future__ import annotations

import time
from typing import Any, Iterator, List

import grpc
import pytest

from conftest import AttemptCounter, Server
from halma_client import HalmaClient, HalmaError, halma_pb2

BRAINKING = "brainking-8x8"
AFTER_B1_D3 = "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0"
# A custom variant that is over after four moves (a move-cap draw).
MOVE_CAP_2 = halma_pb2.VariantSpec(board_size=8, seat_count=2, camp_rows=[4, 3, 2, 1],
                                   move_cap=2)
CAPPED_GAME = ["b1-d3", "h7-f5", "c1-e1", "h8-h7"]
# The largest node budget any server accepts (bot::kMaxNodeBudget): no
# machine searches 10^12 nodes within the deadlines below.
ENDLESS = 1_000_000_000_000


@pytest.fixture
def client(server: Server, counter: AttemptCounter) -> Iterator[HalmaClient]:
    with HalmaClient(server.target, interceptors=[counter]) as client:
        yield client


@pytest.fixture(scope="module")
def search_server(server_binary: str) -> Iterator[Server]:
    """A server that accepts any node budget and stops every call after 1 s."""
    server = Server(server_binary, f"--max_suggest_nodes={ENDLESS}", "--max_call_seconds=1")
    yield server
    assert server.stop() == 0, "".join(server.log)


def as_tuple(move: halma_pb2.Move) -> Any:
    return (move.origin, move.destination, move.path, move.hops)


def check_legal(client: HalmaClient, variant: Any, answer: halma_pb2.SuggestMoveResponse,
                position: str) -> None:
    """The suggested move and every candidate are moves LegalMoves lists, as it lists them."""
    legal = client.legal_moves(variant, position=position)
    assert answer.position == legal.position
    assert answer.mover == legal.status.to_move
    listed = [as_tuple(m) for m in legal.moves]
    assert as_tuple(answer.move) in listed, (answer.move, listed)
    for candidate in answer.candidates:
        assert as_tuple(candidate.move) in listed, candidate
    played = client.validate_move(variant, answer.move.path, position=legal.position)
    assert played.legal, played.message
    assert played.path == answer.move.path
    assert played.mover == answer.mover


# --- the move -------------------------------------------------------------------


@pytest.mark.parametrize("variant,position,moves", [
    (BRAINKING, "", []),
    (BRAINKING, "", ["b1-d3"]),
    (BRAINKING, AFTER_B1_D3, ["h7-f5"]),
    ("classic-16x16-4p", "", []),
    (halma_pb2.VariantSpec(board_size=6, seat_count=2, camp_rows=[3, 2, 1]), "", []),
])
@pytest.mark.parametrize("level", [1, 3])
def test_suggested_move_is_legal(client: HalmaClient, variant: Any, position: str,
                                 moves: List[str], level: int) -> None:
    answer = client.suggest_move(variant, position=position, moves=moves, level=level,
                                 candidates=3)
    after = client.adjudicate(variant, moves, start_position=position).final_position
    check_legal(client, variant, answer, after)
    assert answer.level == level
    assert answer.nodes > 0
    assert answer.depth >= 1
    assert answer.stop_reason in (halma_pb2.STOP_REASON_COMPLETED,
                                  halma_pb2.STOP_REASON_NODE_BUDGET)
    assert answer.score.kind != halma_pb2.MoveScore.KIND_UNSPECIFIED
    # The principal variation starts with the move when it is the best.
    if as_tuple(answer.move) == as_tuple(answer.candidates[0].move):
        assert answer.principal_variation[0].move == (
            f"{answer.move.origin}-{answer.move.destination}")
        assert answer.principal_variation[0].seat == answer.mover
    # Every seat in play, in turn order, with the turns it still needs.
    seats = [halma_pb2.SEAT_W, halma_pb2.SEAT_R, halma_pb2.SEAT_B, halma_pb2.SEAT_G]
    if len(answer.turns_needed) == 2:
        seats = [halma_pb2.SEAT_W, halma_pb2.SEAT_B]
    assert [t.seat for t in answer.turns_needed] == seats
    assert all(t.turns > 0 for t in answer.turns_needed)


def test_default_level_and_explicit_budget(client: HalmaClient) -> None:
    assert client.suggest_move(BRAINKING).level == 7
    answer = client.suggest_move(BRAINKING, max_nodes=3000, max_depth=2, candidates=2)
    assert answer.level == 0  # An explicit budget, not a level.
    assert 0 < answer.nodes
    assert answer.depth <= 2
    check_legal(client, BRAINKING, answer, "")


# --- reproducible -----------------------------------------------------------------


def test_the_same_request_gives_the_same_answer(client: HalmaClient, server_binary: str) -> None:
    requests: List[Any] = [
        dict(variant=BRAINKING, moves=["b1-d3", "h7-f5"], level=2, seed=7, candidates=4),
        dict(variant=BRAINKING, position=AFTER_B1_D3, level=1, seed=12345678901234567890),
        dict(variant="classic-16x16", level=3, seed=1, candidates=2),
        dict(variant="classic-16x16-4p", max_nodes=20000, seed=3),
    ]
    first = [client.suggest_move(**request) for request in requests]
    again = [client.suggest_move(**request) for request in requests]
    assert again == first
    # Another server process (with other limits) answers the same.
    other = Server(server_binary, "--max_suggest_nodes=5000000", "--max_concurrent_adjudications=1")
    try:
        with HalmaClient(other.target) as elsewhere:
            assert [elsewhere.suggest_move(**request) for request in requests] == first
    finally:
        assert other.stop() == 0


def test_the_move_does_not_depend_on_the_candidates_asked_for(client: HalmaClient) -> None:
    one = client.suggest_move(BRAINKING, moves=["b1-d3"], level=4, seed=5)
    five = client.suggest_move(BRAINKING, moves=["b1-d3"], level=4, seed=5, candidates=5)
    assert as_tuple(five.move) == as_tuple(one.move)
    assert len(one.candidates) == 1


# --- hints ----------------------------------------------------------------------


@pytest.mark.parametrize("level", [1, 4])
def test_candidates_are_ranked_best_first(client: HalmaClient, level: int) -> None:
    answer = client.suggest_move(BRAINKING, moves=["b1-d3"], level=level, seed=9, candidates=6)
    assert len(answer.candidates) == 6
    moves = [as_tuple(c.move) for c in answer.candidates]
    assert len(set(moves)) == 6
    values = [c.score.value for c in answer.candidates]
    assert values == sorted(values, reverse=True), values
    assert as_tuple(answer.move) in moves
    chosen = moves.index(as_tuple(answer.move))
    assert answer.candidates[chosen].score == answer.score
    check_legal(client, BRAINKING, answer, AFTER_B1_D3)
    if level == 4:  # Level 4 plays its best move.
        assert chosen == 0


def test_candidates_are_as_many_as_there_are_moves(client: HalmaClient) -> None:
    # 24 legal moves at the start: 16 candidates (the most), all distinct.
    answer = client.suggest_move(BRAINKING, level=2, candidates=16)
    assert len({c.move.path for c in answer.candidates}) == 16
    # A position with fewer moves gives every one of them, once.
    tiny = halma_pb2.VariantSpec(board_size=4, seat_count=2, camp_rows=[2, 1])
    legal = client.legal_moves(tiny)
    assert 1 < legal.count < 16
    answer = client.suggest_move(tiny, level=1, candidates=16)
    assert sorted(as_tuple(c.move) for c in answer.candidates) == sorted(
        as_tuple(m) for m in legal.moves)


# --- errors ---------------------------------------------------------------------


def invalid(call: Any, counter: AttemptCounter) -> str:
    before = len(counter.attempts)
    with pytest.raises(HalmaError) as caught:
        call()
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.method == "halma.v1.HalmaRules/SuggestMove"
    assert counter.codes()[before:] == [grpc.StatusCode.INVALID_ARGUMENT]  # Not retried.
    return caught.value.message


def test_a_finished_game_names_the_field(client: HalmaClient, counter: AttemptCounter) -> None:
    over = client.adjudicate(MOVE_CAP_2, CAPPED_GAME)
    assert over.status.state == halma_pb2.GameStatus.STATE_DRAW
    message = invalid(lambda: client.suggest_move(MOVE_CAP_2, moves=CAPPED_GAME, level=1),
                      counter)
    assert message.startswith("moves: the game is over ("), message
    assert message.endswith("expected a game in progress"), message
    message = invalid(lambda: client.suggest_move(MOVE_CAP_2, position=over.final_position),
                      counter)
    assert message.startswith("position: the game is over ("), message


def test_a_bad_level_or_budget_names_the_field(client: HalmaClient,
                                               counter: AttemptCounter) -> None:
    for level in (9, -1):
        message = invalid(lambda: client.suggest_move(BRAINKING, level=level), counter)
        assert message.startswith(f"level: {level}, expected 1 to 8"), message
    message = invalid(lambda: client.suggest_move(BRAINKING, level=3, max_nodes=1000), counter)
    assert message.startswith("level: 3 given together with max_nodes"), message
    message = invalid(lambda: client.suggest_move(BRAINKING, candidates=17), counter)
    assert message.startswith("candidates: 17, expected 1 to 16"), message
    # The default server's cap on the budget (max_suggest_nodes).
    message = invalid(lambda: client.suggest_move(BRAINKING, max_nodes=ENDLESS), counter)
    assert message.startswith(f"max_nodes: {ENDLESS} is more than this server's limit"), message
    assert "max_suggest_nodes" in message


def test_an_illegal_move_in_moves_names_it(client: HalmaClient, counter: AttemptCounter) -> None:
    message = invalid(lambda: client.suggest_move(BRAINKING, moves=["b1-d3", "h7-f5", "a1-b2"]),
                      counter)
    assert message.startswith('moves[2] (ply 3): move "a1-b2" is illegal'), message


# --- deadlines ------------------------------------------------------------------


def test_a_search_past_its_deadline_is_deadline_exceeded(search_server: Server,
                                                         counter: AttemptCounter) -> None:
    with HalmaClient(search_server.target, interceptors=[counter]) as client:
        begin = time.monotonic()
        with pytest.raises(HalmaError) as caught:
            client.suggest_move("classic-16x16", max_nodes=ENDLESS, timeout=0.3)
        elapsed = time.monotonic() - begin
        assert caught.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
        assert caught.value.attempts == 1
        assert counter.codes() == [grpc.StatusCode.DEADLINE_EXCEEDED]
        assert elapsed < 5, elapsed
        # The server goes on answering (the search stopped: a slot is free).
        answer = client.suggest_move(BRAINKING, level=1, timeout=10)
        check_legal(client, BRAINKING, answer, "")


def test_best_so_far_answers_when_the_server_stops_the_search(search_server: Server) -> None:
    # The server's max_call_seconds (1 s) stops a search of 10^12 nodes;
    # asked for it, the answer is the best move found so far.
    with HalmaClient(search_server.target) as client:
        begin = time.monotonic()
        answer = client.suggest_move("classic-16x16", max_nodes=ENDLESS, best_so_far=True,
                                     candidates=2, timeout=30)
        elapsed = time.monotonic() - begin
        assert answer.stop_reason == halma_pb2.STOP_REASON_INTERRUPTED
        assert answer.stop_message != ""
        assert answer.nodes > 0
        check_legal(client, "classic-16x16", answer, "")
        assert elapsed < 20, elapsed
        # Without best_so_far the same search is DEADLINE_EXCEEDED.
        with pytest.raises(HalmaError) as caught:
            client.suggest_move("classic-16x16", max_nodes=ENDLESS, timeout=30)
        assert caught.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
