"""HalmaClient against the real halma_server on 127.0.0.1."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Iterator, List

import grpc
import pytest

from conftest import AttemptCounter, Server, free_port
from halma_client import HalmaClient, HalmaError, RetryPolicy, halma_pb2, health_pb2

BRAINKING = "brainking-8x8"
START = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0"
AFTER_B1_D3 = "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0"
SERVING = health_pb2.HealthCheckResponse.SERVING
NO_RETRY = RetryPolicy(max_attempts=1)


@pytest.fixture
def client(server: Server, counter: AttemptCounter) -> Iterator[HalmaClient]:
    with HalmaClient(server.target, interceptors=[counter]) as client:
        yield client


# --- every RPC -------------------------------------------------------------------


def test_health_check(client: HalmaClient) -> None:
    assert client.check_health() == SERVING
    assert client.check_health("halma.v1.HalmaRules") == SERVING


def test_health_check_unknown_service_is_not_found(client: HalmaClient) -> None:
    with pytest.raises(HalmaError) as caught:
        client.check_health("no.such.Service")
    assert caught.value.code == grpc.StatusCode.NOT_FOUND
    assert caught.value.attempts == 1


def test_list_variants(client: HalmaClient) -> None:
    variants = client.list_variants().variants
    assert [v.name for v in variants] == [
        "brainking-8x8", "brainking-10x10", "iggamecenter-10x10",
        "classic-16x16", "classic-16x16-4p"]
    brainking = variants[0]
    assert brainking.start_position == START
    assert brainking.spec.board_size == 8
    assert brainking.spec.seat_count == 2
    assert list(brainking.spec.camp_rows) == [4, 3, 2, 1]
    assert brainking.spec.home_exit_limit == 30
    assert list(brainking.seats) == [halma_pb2.SEAT_W, halma_pb2.SEAT_B]
    assert brainking.pieces_per_seat == 10
    assert brainking.source == "BrainKing Halma 8x8"
    assert list(variants[4].seats) == [
        halma_pb2.SEAT_W, halma_pb2.SEAT_R, halma_pb2.SEAT_B, halma_pb2.SEAT_G]


def test_legal_moves_of_one_piece(client: HalmaClient) -> None:
    answer = client.legal_moves(BRAINKING, origin="a3")
    assert [(m.origin, m.destination, m.path, m.hops) for m in answer.moves] == [
        ("a3", "a5", "a3-a5", 1), ("a3", "b4", "a3-b4", 0), ("a3", "c3", "a3-c3", 1)]
    assert answer.count == 3
    assert answer.position == START
    assert answer.status.state == halma_pb2.GameStatus.STATE_IN_PROGRESS
    assert answer.status.to_move == halma_pb2.SEAT_W


def test_legal_moves_of_a_position(client: HalmaClient) -> None:
    answer = client.legal_moves(BRAINKING, position=AFTER_B1_D3)
    assert answer.count == len(answer.moves) > 0
    assert answer.status.to_move == halma_pb2.SEAT_B
    assert {m.origin for m in answer.moves} <= {
        "e8", "f8", "g8", "h8", "f7", "g7", "h7", "g6", "h6", "h5"}
    assert client.legal_moves(BRAINKING).count == 24


def test_validate_legal_move(client: HalmaClient) -> None:
    answer = client.validate_move(BRAINKING, "b1-d3")
    assert answer.legal
    assert answer.reason == halma_pb2.ILLEGAL_REASON_UNSPECIFIED
    assert answer.message == ""
    assert answer.path == "b1-d3"
    assert answer.hops == 1
    assert answer.position_after == AFTER_B1_D3
    assert answer.mover == halma_pb2.SEAT_W
    assert answer.status.to_move == halma_pb2.SEAT_B


def test_validate_illegal_move_is_an_answer(client: HalmaClient, counter: AttemptCounter) -> None:
    answer = client.validate_move(BRAINKING, "a1-b2")
    assert not answer.legal
    assert answer.reason == halma_pb2.ILLEGAL_REASON_DESTINATION_OCCUPIED
    assert answer.message == "b2 is occupied"
    assert answer.position_after == ""
    assert answer.status.to_move == halma_pb2.SEAT_W
    assert counter.codes() == [grpc.StatusCode.OK]


def test_adjudicate_record_with_illegal_move(client: HalmaClient) -> None:
    answer = client.adjudicate(BRAINKING, ["b1-d3", "h7-f5", "a1-b2"])
    assert answer.moves_played == 2
    assert answer.illegal_move.ply == 3
    assert answer.illegal_move.move == "a1-b2"
    assert answer.illegal_move.reason == halma_pb2.ILLEGAL_REASON_DESTINATION_OCCUPIED
    assert answer.illegal_move.message == "b2 is occupied"
    assert answer.status.state == halma_pb2.GameStatus.STATE_IN_PROGRESS
    assert answer.final_position == "4bbbb/5bb1/6bb/5b1b/w7/ww1w4/www5/w1ww4 w 1,1"
    assert [(c.seat, c.moves) for c in answer.move_counts] == [
        (halma_pb2.SEAT_W, 1), (halma_pb2.SEAT_B, 1)]


def test_adjudicate_legal_record_from_a_position(client: HalmaClient) -> None:
    answer = client.adjudicate(BRAINKING, ("h7-f5",), start_position=AFTER_B1_D3)
    assert answer.moves_played == 1
    assert not answer.HasField("illegal_move")
    assert answer.final_position == "4bbbb/5bb1/6bb/5b1b/w7/ww1w4/www5/w1ww4 w 1,1"


def test_custom_variant(client: HalmaClient) -> None:
    spec = halma_pb2.VariantSpec(board_size=8, seat_count=2, camp_rows=[4, 3, 2, 1], move_cap=2)
    answer = client.adjudicate(spec, ["b1-d3", "h7-f5", "c1-e1", "h8-h7"])
    assert answer.moves_played == 4
    assert answer.status.state == halma_pb2.GameStatus.STATE_DRAW
    assert answer.status.rule == halma_pb2.DECIDING_RULE_MOVE_CAP
    assert answer.status.ply == 4
    assert list(answer.status.winners) == [halma_pb2.SEAT_W, halma_pb2.SEAT_B]
    # The same through a ready Variant message.
    again = client.adjudicate(halma_pb2.Variant(custom=spec), ["b1-d3"])
    assert again.moves_played == 1


# --- Perft -----------------------------------------------------------------------


@pytest.mark.parametrize("variant,position", [
    (BRAINKING, ""), (BRAINKING, AFTER_B1_D3), ("classic-16x16-4p", ""),
    (halma_pb2.VariantSpec(board_size=6, seat_count=2, camp_rows=[3, 2, 1]), "")])
def test_perft_depth_1_counts_the_legal_moves(client: HalmaClient, variant: Any,
                                              position: str) -> None:
    legal = client.legal_moves(variant, position=position)
    assert legal.count > 0
    answer = client.perft(variant, 1, position=position)
    assert answer.nodes == legal.count
    assert len(answer.first_moves) == 0  # Only when asked for.
    assert client.perft(variant, 0, position=position).nodes == 1


def test_perft_depth_2_split_by_first_move(client: HalmaClient) -> None:
    answer = client.perft(BRAINKING, 2, position=AFTER_B1_D3, split_by_first_move=True)
    legal = client.legal_moves(BRAINKING, position=AFTER_B1_D3)
    # One entry per legal first move, in LegalMoves' order, as origin-destination.
    assert [f.move for f in answer.first_moves] == [
        f"{m.origin}-{m.destination}" for m in legal.moves]
    assert sum(f.nodes for f in answer.first_moves) == answer.nodes
    # Each first move's count is the number of replies in the position it leads to.
    for first, move in zip(answer.first_moves, legal.moves):
        after = client.validate_move(BRAINKING, move.path, position=AFTER_B1_D3).position_after
        assert first.nodes == client.legal_moves(BRAINKING, position=after).count, first.move


def test_perft_depth_beyond_the_servers_limit_names_the_field(
        client: HalmaClient, server_binary: str, counter: AttemptCounter) -> None:
    with pytest.raises(HalmaError) as caught:
        client.perft(BRAINKING, 9)
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.message == "depth: 9, expected 0 to 8 (this server's max_perft_depth)"
    assert caught.value.method == "halma.v1.HalmaRules/Perft"
    assert counter.codes() == [grpc.StatusCode.INVALID_ARGUMENT]
    with pytest.raises(HalmaError) as caught:
        client.perft(BRAINKING, -1)
    assert caught.value.message.startswith("depth: -1, expected 0 to 8")
    limited = Server(server_binary, "--max_perft_depth=2")
    try:
        with HalmaClient(limited.target) as shallow:
            assert shallow.perft(BRAINKING, 2).nodes == client.perft(BRAINKING, 2).nodes
            with pytest.raises(HalmaError) as caught:
                shallow.perft(BRAINKING, 3)
    finally:
        assert limited.stop() == 0
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.message == "depth: 3, expected 0 to 2 (this server's max_perft_depth)"


def test_perft_of_a_malformed_position_names_the_field(client: HalmaClient) -> None:
    with pytest.raises(HalmaError) as caught:
        client.perft(BRAINKING, 1, position="4bbbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0")
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.message == (
        'position: position "4bbbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0": '
        'rank 8 "4bbbbb" holds more than 8 squares, expected 8')


def test_perft_deadline_exceeded_is_not_retried(client: HalmaClient,
                                                counter: AttemptCounter) -> None:
    # Depth 8 from the start of classic-16x16 is some 10^14 sequences (depth
    # 6 alone takes a CPU minute, docs/perft.md): no machine counts them
    # within the deadline.
    begin = time.monotonic()
    with pytest.raises(HalmaError) as caught:
        client.perft("classic-16x16", 8, timeout=0.2)
    elapsed = time.monotonic() - begin
    assert caught.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert caught.value.attempts == 1
    assert counter.codes() == [grpc.StatusCode.DEADLINE_EXCEEDED]
    assert elapsed < 5, elapsed
    # The channel and the server go on answering.
    assert client.perft(BRAINKING, 1, timeout=5).nodes == 24


def test_variant_of_the_wrong_type_is_a_type_error(client: HalmaClient) -> None:
    with pytest.raises(TypeError):
        client.legal_moves(8)  # type: ignore[arg-type]


# --- errors ---------------------------------------------------------------------


def test_invalid_argument_is_not_retried(client: HalmaClient, counter: AttemptCounter) -> None:
    with pytest.raises(HalmaError) as caught:
        client.legal_moves("brainking-9x9")
    error = caught.value
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.message.startswith(
        'variant.preset: variant "brainking-9x9": no such preset, expected one of ')
    assert error.method == "halma.v1.HalmaRules/LegalMoves"
    assert error.attempts == 1
    assert counter.codes() == [grpc.StatusCode.INVALID_ARGUMENT]
    assert str(error).startswith("INVALID_ARGUMENT: variant.preset: ")


def test_malformed_position_names_the_field(client: HalmaClient) -> None:
    with pytest.raises(HalmaError) as caught:
        client.validate_move(BRAINKING, "b1-d3",
                             position="4bbbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0")
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.message == (
        'position: position "4bbbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0": '
        'rank 8 "4bbbbb" holds more than 8 squares, expected 8')


def test_resource_exhausted_is_not_retried(client: HalmaClient, counter: AttemptCounter) -> None:
    # 20,000 moves are more than the default --max_message_bytes (64 KiB).
    with pytest.raises(HalmaError) as caught:
        client.adjudicate(BRAINKING, ["b1-d3"] * 20000)
    assert caught.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert caught.value.attempts == 1
    assert counter.codes() == [grpc.StatusCode.RESOURCE_EXHAUSTED]


SLOW_START = "bbbbbbbbbb/6bbbb/10/6b3/10/10/3w6/10/wwwww5/w1wwwwwwww w 0,0"
SLOW_CYCLE = ["a1-e5", "j10-f6", "e5-a1", "f6-j10"]


def test_deadline_exceeded_is_not_retried(slow_server: Server, counter: AttemptCounter) -> None:
    moves = SLOW_CYCLE * 500000
    with HalmaClient(slow_server.target, interceptors=[counter]) as client:
        # The whole record, to know how long a replay takes here.
        full = client.adjudicate("iggamecenter-10x10", moves, start_position=SLOW_START,
                                 timeout=30)
        assert full.moves_played == 2000000
        assert full.final_position == SLOW_START.replace(" 0,0", " 1000000,1000000")
        with pytest.raises(HalmaError) as caught:
            client.adjudicate("iggamecenter-10x10", moves, start_position=SLOW_START,
                              timeout=0.1)
    assert caught.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert caught.value.attempts == 1
    assert counter.codes() == [grpc.StatusCode.OK, grpc.StatusCode.DEADLINE_EXCEEDED]
    replay, cut = counter.attempts
    # Cut short: well under the whole replay's time (which grows with the
    # machine's load as the cut call's does), or under 0.8 s on a machine
    # so fast that the whole replay takes little more.
    assert cut.seconds < max(0.8, 0.6 * replay.seconds), counter.attempts


def test_per_call_timeout_overrides_the_default(slow_server: Server) -> None:
    moves = SLOW_CYCLE * 500000
    with HalmaClient(slow_server.target, timeout=0.1) as client:
        with pytest.raises(HalmaError) as caught:
            client.adjudicate("iggamecenter-10x10", moves, start_position=SLOW_START)
        assert caught.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
        # A longer per-call timeout lets the same record through.
        assert client.adjudicate("iggamecenter-10x10", moves[:1000], start_position=SLOW_START,
                                 timeout=20).moves_played == 1000


# --- retries on UNAVAILABLE ---------------------------------------------------------


def test_retries_until_the_server_starts(server_binary: str, counter: AttemptCounter) -> None:
    port = free_port()
    started: List[Server] = []

    def start_late() -> None:
        time.sleep(0.6)
        started.append(Server(server_binary, port=port))

    starter = threading.Thread(target=start_late)
    policy = RetryPolicy(max_attempts=10, initial_backoff=0.1, max_backoff=0.5)
    try:
        with HalmaClient(f"127.0.0.1:{port}", retry=policy, timeout=15,
                         interceptors=[counter]) as client:
            begin = time.monotonic()
            starter.start()
            assert client.validate_move(BRAINKING, "b1-d3").position_after == AFTER_B1_D3
            elapsed = time.monotonic() - begin
    finally:
        starter.join()
        for server in started:
            assert server.stop() == 0
    codes = counter.codes()
    assert len(codes) >= 2 and codes[-1] == grpc.StatusCode.OK, codes
    assert set(codes[:-1]) == {grpc.StatusCode.UNAVAILABLE}, codes
    assert 0.6 <= elapsed < 5, elapsed


def test_retries_are_bounded(counter: AttemptCounter) -> None:
    policy = RetryPolicy(max_attempts=4, initial_backoff=0.05, max_backoff=0.2, jitter=0.1)
    with HalmaClient(f"127.0.0.1:{free_port()}", retry=policy, interceptors=[counter]) as client:
        begin = time.monotonic()
        with pytest.raises(HalmaError) as caught:
            client.list_variants()
        elapsed = time.monotonic() - begin
    assert caught.value.code == grpc.StatusCode.UNAVAILABLE
    assert caught.value.attempts == 4
    assert counter.codes() == [grpc.StatusCode.UNAVAILABLE] * 4
    # Waits of 0.05, 0.1 and 0.2 s, each within 10 %.
    assert 0.9 * 0.35 <= elapsed < 3, elapsed


def test_retries_stop_at_the_deadline(counter: AttemptCounter) -> None:
    policy = RetryPolicy(max_attempts=50, initial_backoff=0.2, max_backoff=0.2, jitter=0)
    with HalmaClient(f"127.0.0.1:{free_port()}", retry=policy, timeout=0.7,
                     interceptors=[counter]) as client:
        begin = time.monotonic()
        with pytest.raises(HalmaError) as caught:
            client.check_health()
        elapsed = time.monotonic() - begin
    assert caught.value.code == grpc.StatusCode.UNAVAILABLE
    # Attempts at 0, 0.2, 0.4 and 0.6 s at the most (fewer on a loaded
    # machine); the wait to 0.8 s would pass the deadline, so it is not
    # begun: the call ends before it would (the bound is that wait's end,
    # not the deadline, so that a late wake-up does not fail the test).
    assert 1 <= caught.value.attempts <= 4, caught.value.attempts
    assert caught.value.attempts == len(counter.attempts)
    assert elapsed < 0.8, elapsed


def test_retry_policy_is_checked() -> None:
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError):
        RetryPolicy(initial_backoff=2, max_backoff=1)
    assert [RetryPolicy().backoff(n) for n in (1, 2, 3, 4, 10)] == [0.2, 0.4, 0.8, 1.6, 5.0]


# --- TLS -------------------------------------------------------------------------------


def test_tls_with_the_test_ca(tls_server: Server, tls_dir: Path) -> None:
    with HalmaClient(tls_server.target, ca_file=tls_dir / "server.crt") as client:
        assert client.check_health() == SERVING
        assert client.validate_move(BRAINKING, "b1-d3").position_after == AFTER_B1_D3
    # The certificate is for localhost too.
    with HalmaClient(f"localhost:{tls_server.port}", ca_file=str(tls_dir / "server.crt"),
                     server_name="localhost") as client:
        assert client.legal_moves(BRAINKING, origin="a3").count == 3


def test_tls_server_refuses_untrusted_and_plaintext_clients(tls_server: Server) -> None:
    with HalmaClient(tls_server.target, tls=True, retry=NO_RETRY, timeout=5) as client:
        with pytest.raises(HalmaError) as caught:
            client.check_health()  # The system's roots do not trust the test certificate.
        assert caught.value.code == grpc.StatusCode.UNAVAILABLE
    with HalmaClient(tls_server.target, retry=NO_RETRY, timeout=5) as client:
        with pytest.raises(HalmaError) as caught:
            client.check_health()
        assert caught.value.code == grpc.StatusCode.UNAVAILABLE


def test_missing_ca_file_fails_at_construction(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        HalmaClient("127.0.0.1:1", ca_file=tmp_path / "missing.pem")


def test_closed_client_refuses_calls(server: Server) -> None:
    with HalmaClient(server.target) as client:
        assert client.check_health() == SERVING
    with pytest.raises(ValueError):
        client.check_health()
