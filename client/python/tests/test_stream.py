"""HalmaClient.adjudicate_stream against the real halma_server on 127.0.0.1."""

from __future__ import annotations

import itertools
import json
import random
import re
import threading
import time
from typing import Any, Dict, Iterator, List, Optional, Tuple

import grpc
import pytest

from conftest import REPO, Server, free_port
from halma_client import (HalmaClient, HalmaError, HalmaStreamError, RetryPolicy, StreamResult,
                          halma_pb2)

BRAINKING = "brainking-8x8"
RECORDS = REPO / "testdata" / "vectors" / "records.jsonl"
STREAM_METHOD = "halma.v1.HalmaRules/AdjudicateStream"


def variant_of(vector: Any) -> halma_pb2.Variant:
    """A variant of testdata/vectors (a preset name or an object) as the API's."""
    if isinstance(vector, str):
        return halma_pb2.Variant(preset=vector)
    return halma_pb2.Variant(custom=halma_pb2.VariantSpec(
        board_size=vector["n"], seat_count=vector["seats"], camp_rows=vector["camp"],
        home_exit_limit=vector.get("home_exit", 0),
        round_completion=vector.get("round_completion", False),
        target_lock=vector.get("target_lock", False), move_cap=vector.get("move_cap", 0)))


def games() -> List[halma_pb2.AdjudicateRequest]:
    with RECORDS.open() as lines:
        vectors = [json.loads(line) for line in lines if line.strip()]
    return [halma_pb2.AdjudicateRequest(variant=variant_of(v["variant"]),
                                        start_position=v.get("from", ""), moves=v["moves"])
            for v in vectors]


def mixed_records(count: int, seed: int) -> List[halma_pb2.AdjudicateStreamRequest]:
    """``count`` records built from the test vectors: whole games, games cut
    short, games with a move made illegal, malformed ones (an unknown preset,
    a move off the board, a bad start position), each with an id."""
    base = games()
    rng = random.Random(seed)
    records = []
    for i in range(count):
        game = halma_pb2.AdjudicateRequest()
        game.CopyFrom(rng.choice(base))
        moves = list(game.moves)
        kind = rng.random()
        if kind < 0.05:
            game.variant.preset = "brainking-9x9"
        elif kind < 0.10:
            moves.insert(rng.randrange(len(moves) + 1), "z9-a1")
        elif kind < 0.15:
            game.start_position = "not a position"
        elif kind < 0.35 and moves:
            # The same move again, one ply later: its origin is empty by then.
            at = rng.randrange(len(moves))
            moves.insert(at + 1, moves[at])
        elif kind < 0.55:
            pass
        else:
            moves = moves[:rng.randrange(len(moves) + 1)]
        del game.moves[:]
        game.moves.extend(moves)
        records.append(halma_pb2.AdjudicateStreamRequest(id=f"game-{seed}-{i}", record=game))
    return records


def unary_answer(client: HalmaClient, record: halma_pb2.AdjudicateStreamRequest) -> Tuple[
        Optional[halma_pb2.AdjudicateResponse], Optional[Tuple[grpc.StatusCode, str]]]:
    """What unary Adjudicate answers for the record: (response, None) or (None, (code, message))."""
    game = record.record
    try:
        return client.adjudicate(game.variant, game.moves,
                                  start_position=game.start_position), None
    except HalmaError as error:
        return None, (error.code, error.message)


def check_like_unary(client: HalmaClient, records: List[halma_pb2.AdjudicateStreamRequest],
                     results: List[StreamResult]) -> Dict[str, int]:
    """Every result is the unary answer to its record, in order; returns the kinds seen."""
    assert [r.id for r in results] == [r.id for r in records]
    kinds = {"legal": 0, "illegal": 0, "error": 0}
    for record, result in zip(records, results):
        response, error = unary_answer(client, record)
        if error is None:
            assert result.ok and result.response is not None, (record, result)
            assert result.response == response, record.id
            kinds["illegal" if result.response.HasField("illegal_move") else "legal"] += 1
        else:
            assert not result.ok and result.response is None, (record, result)
            assert result.error is not None
            assert (result.error.code, result.error.message) == error, record.id
            kinds["error"] += 1
    return kinds


class Counted:
    """An endless input that counts the records taken from it."""

    def __init__(self) -> None:
        self.taken = 0

    def __iter__(self) -> Iterator[Tuple[str, halma_pb2.AdjudicateRequest]]:
        for i in itertools.count():
            self.taken += 1
            yield f"r{i}", halma_pb2.AdjudicateRequest(
                variant=halma_pb2.Variant(preset=BRAINKING), moves=["b1-d3", "h7-f5"][:i % 3])


def wait_for(condition: Any, seconds: float = 10) -> bool:
    """Polls ``condition()`` until it holds or ``seconds`` pass."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return bool(condition())


def open_streams(server: Server) -> float:
    """AdjudicateStream calls the server has open now.

    (Not the code it counts them under: a cancel that reaches a stream
    waiting for its next record fails that read as a half-close would, and
    the server then counts the call as OK.)
    """
    return server.metric("halma_rpc_calls_in_flight", method=STREAM_METHOD, protocol="grpc")


@pytest.fixture
def client(server: Server) -> Iterator[HalmaClient]:
    with HalmaClient(server.target, timeout=60) as client:
        yield client


@pytest.fixture
def own_server(server_binary: str) -> Iterator[Server]:
    """A server of this test alone, whose metrics count only its calls."""
    server = Server(server_binary)
    yield server
    assert server.stop() == 0


# --- answers ------------------------------------------------------------------------


def test_hundreds_of_records_answered_in_order_as_unary_adjudicate(client: HalmaClient) -> None:
    records = mixed_records(400, seed=1)
    with client.adjudicate_stream(records) as call:
        results = list(call)
    kinds = check_like_unary(client, records, results)
    assert all(count >= 20 for count in kinds.values()), kinds
    assert call.answered == 400
    assert call.attempts == 1


def test_a_malformed_record_is_an_error_for_it_alone(client: HalmaClient) -> None:
    good = halma_pb2.AdjudicateRequest(variant=halma_pb2.Variant(preset=BRAINKING),
                                       moves=["b1-d3", "h7-f5", "a1-b2"])
    bad = halma_pb2.AdjudicateRequest(variant=halma_pb2.Variant(preset="brainking-9x9"))
    results = list(client.adjudicate_stream([("one", good), ("two", bad), ("three", good)]))
    assert [r.id for r in results] == ["one", "two", "three"]
    first, second, third = results
    assert first.response is not None and first.response.illegal_move.ply == 3
    assert first.response.illegal_move.message == "b2 is occupied"
    assert second.error is not None and second.response is None
    assert second.error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert second.error.message.startswith(
        'variant.preset: variant "brainking-9x9": no such preset, expected one of ')
    assert str(second.error).startswith("INVALID_ARGUMENT: variant.preset: ")
    assert third.response == first.response


def test_record_forms_and_ids(client: HalmaClient) -> None:
    game = halma_pb2.AdjudicateRequest(variant=halma_pb2.Variant(preset=BRAINKING),
                                       moves=["b1-d3"])
    long_id = "x" * 300  # Longer than the 256 bytes the server echoes.
    results = list(client.adjudicate_stream([
        game, ("pair", game), halma_pb2.AdjudicateStreamRequest(id="message", record=game), game,
        (long_id, game), ("", game)]))
    assert [r.id for r in results] == ["0", "pair", "message", "3", long_id, ""]
    assert [r.ok for r in results] == [True, True, True, True, False, True]
    assert results[4].error is not None
    assert results[4].error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert results[4].error.message == "id: 300 bytes, more than the 256 an id may have"


def test_an_input_that_fails_is_raised_after_the_records_before_it(client: HalmaClient) -> None:
    game = halma_pb2.AdjudicateRequest(variant=halma_pb2.Variant(preset=BRAINKING))
    records: List[Any] = [("a", game), ("b", game), 42]
    call = client.adjudicate_stream(iter(records))
    assert [next(call).id, next(call).id] == ["a", "b"]
    with pytest.raises(TypeError, match="record 2: expected an AdjudicateStreamRequest"):
        next(call)
    with pytest.raises(StopIteration):
        next(call)


def test_an_empty_input_is_an_empty_stream(client: HalmaClient) -> None:
    call = client.adjudicate_stream([])
    assert list(call) == []
    assert call.attempts == 1


# --- back-pressure, cancellation, deadline --------------------------------------------


def test_the_input_is_read_at_most_a_window_ahead_of_the_answers(client: HalmaClient) -> None:
    source = Counted()
    with client.adjudicate_stream(source, window=8) as call:
        taken = [result.id for result in itertools.islice(call, 100)]
        assert taken == [f"r{i}" for i in range(100)]
        assert 100 <= source.taken <= 100 + 8
        # While nobody reads answers, the input is not read further.
        time.sleep(0.3)
        assert source.taken <= 100 + 8
        assert next(call).id == "r100"
        assert source.taken <= 101 + 8
    with pytest.raises(ValueError):
        client.adjudicate_stream(source, window=0)


def test_cancel_from_another_thread_ends_the_stream(own_server: Server) -> None:
    source = Counted()
    client = HalmaClient(own_server.target)
    call = client.adjudicate_stream(source, window=4)
    fifty = threading.Event()
    open_then: List[float] = []

    def cancel_after_fifty() -> None:
        fifty.wait(30)
        open_then.append(open_streams(own_server))
        call.cancel()

    canceller = threading.Thread(target=cancel_after_fifty)
    canceller.start()
    results = 0
    with pytest.raises(HalmaStreamError) as caught:
        for _ in call:
            results += 1
            if results == 50:
                fifty.set()
    canceller.join()
    error = caught.value
    assert error.code == grpc.StatusCode.CANCELLED
    assert error.message == "cancelled by the caller"
    assert error.answered == results == call.answered >= 50
    assert [r.id for r in error.unanswered] == [
        f"r{i}" for i in range(results, results + len(error.unanswered))]
    assert source.taken <= results + 4
    # The call the server had open ended: the cancel reached it (the input,
    # endless, never half-closes the stream).
    assert open_then == [1]
    assert wait_for(lambda: open_streams(own_server) == 0)
    with pytest.raises(StopIteration):
        next(call)
    client.close()


def test_leaving_the_with_block_cancels_the_call(own_server: Server) -> None:
    source = Counted()
    with HalmaClient(own_server.target) as client:
        with client.adjudicate_stream(source, window=4) as call:
            for result in call:
                if result.id == "r9":
                    assert open_streams(own_server) == 1
                    break
        assert wait_for(lambda: open_streams(own_server) == 0)
        assert source.taken <= 10 + 4
        taken = source.taken
        time.sleep(0.2)
        assert source.taken == taken
    assert own_server.metric("halma_rpc_calls_total", method=STREAM_METHOD) == 1


def test_the_deadline_covers_the_whole_stream(client: HalmaClient) -> None:
    begin = time.monotonic()
    call = client.adjudicate_stream(Counted(), timeout=0.5)
    results = 0
    with pytest.raises(HalmaStreamError) as caught:
        for _ in call:
            results += 1
    elapsed = time.monotonic() - begin
    assert caught.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert caught.value.attempts == 1  # Not retried.
    assert caught.value.answered == results
    assert elapsed < 5, elapsed


# --- a server shutting down mid-stream --------------------------------------------------


def test_shutdown_mid_stream_without_retries_reports_what_was_answered(
        server_binary: str) -> None:
    doomed = Server(server_binary)
    stopped: List[int] = []
    stopper = threading.Thread(target=lambda: stopped.append(doomed.stop()))
    try:
        with HalmaClient(doomed.target, retry=RetryPolicy(max_attempts=1), timeout=60) as client:
            call = client.adjudicate_stream(Counted(), window=16)
            results = 0
            with pytest.raises(HalmaStreamError) as caught:
                for _ in call:
                    results += 1
                    if results == 200:
                        stopper.start()  # SIGTERM, while records flow.
    finally:
        if stopper.is_alive() or not stopped:
            stopper.join()
    assert stopped == [0]
    error = caught.value
    assert error.code == grpc.StatusCode.UNAVAILABLE
    assert error.attempts == 1
    # The server says how many records it answered: exactly those yielded.
    said = re.fullmatch(r"AdjudicateStream: the server is shutting down after answering "
                        r"(\d+) records; send the rest to another server", error.message)
    assert said, error.message
    assert int(said.group(1)) == error.answered == results >= 200
    # The unanswered ones are the next in the input, at most a window of them.
    assert len(error.unanswered) <= 16
    assert [r.id for r in error.unanswered] == [
        f"r{i}" for i in range(results, results + len(error.unanswered))]


def test_shutdown_mid_stream_resends_the_unanswered_records(
        server_binary: str, client: HalmaClient) -> None:
    port = free_port()
    first = Server(server_binary, port=port)
    servers = [first]
    exits: List[int] = []
    first_exited = threading.Event()

    def restart() -> None:
        exits.append(first.stop())
        first_exited.set()
        servers.append(Server(server_binary, port=port))

    restarter = threading.Thread(target=restart)
    records = mixed_records(600, seed=2)
    policy = RetryPolicy(max_attempts=100, initial_backoff=0.05, max_backoff=0.25)
    results: List[StreamResult] = []
    try:
        with HalmaClient(f"127.0.0.1:{port}", retry=policy, timeout=60) as restarted:
            with restarted.adjudicate_stream(records, window=16) as call:
                for result in call:
                    results.append(result)
                    if len(results) == 150:
                        restarter.start()  # SIGTERM, then a new server on the port.
                    if len(results) == 300:
                        # Records flowed while the server shut down. Now it is
                        # gone for sure while this stream (at most 316 of 600
                        # records sent) was open: the stream had to be resumed.
                        assert first_exited.wait(30)
    finally:
        if restarter.ident is not None:
            restarter.join()
        else:
            first.stop()
        exits.extend(server.stop() for server in servers[1:])
    assert exits == [0, 0]
    assert call.attempts >= 2
    assert call.resent <= 16
    print(f"attempts {call.attempts}, records resent {call.resent}")
    assert call.answered == 600
    # Every record answered once, in order, with its id, as unary Adjudicate answers.
    check_like_unary(client, records, results)
