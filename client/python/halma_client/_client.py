"""HalmaClient: typed, blocking calls to halma.v1.HalmaRules and grpc.health.v1.Health.

A unary RPC is one method of a few lines: build the request, then
``self._rules_call("Name", request, ResponseType, timeout)``.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Iterable, List, Optional, Sequence, Tuple, Type, TypeVar, Union

import grpc

from ._errors import HalmaError
from ._gen import halma_pb2, halma_pb2_grpc, health_pb2, health_pb2_grpc
from ._stream import DEFAULT_WINDOW, AdjudicateStreamCall, StreamRecord

__all__ = ["HalmaClient", "RetryPolicy", "VariantLike", "DEFAULT_TIMEOUT"]

_log = logging.getLogger("halma_client")

#: A variant as the calls take it: a preset name such as ``"brainking-8x8"``,
#: a custom :class:`halma_pb2.VariantSpec`, or a ready :class:`halma_pb2.Variant`.
VariantLike = Union[str, halma_pb2.VariantSpec, halma_pb2.Variant]

#: Seconds a call may take (all its attempts together) unless told otherwise.
DEFAULT_TIMEOUT = 10.0

_Response = TypeVar("_Response")
_RULES = "halma.v1.HalmaRules/"
_HEALTH = "grpc.health.v1.Health/"


@dataclass(frozen=True)
class RetryPolicy:
    """How calls are retried when they fail with ``UNAVAILABLE``.

    Only ``UNAVAILABLE`` (no connection, a server shutting down) is retried:
    every RPC of the service is a pure function of its request, so repeating
    one is safe, and every other code (``INVALID_ARGUMENT``,
    ``DEADLINE_EXCEEDED``, ``RESOURCE_EXHAUSTED`` ...) would come back the
    same or is the caller's to decide on. A call makes at most
    ``max_attempts`` attempts; before attempt n+1 it waits
    ``min(initial_backoff * multiplier**(n-1), max_backoff)`` seconds, each
    wait scaled by a random factor in ``[1 - jitter, 1 + jitter]``. The
    call's timeout covers all attempts and waits: no wait runs past it.
    ``RetryPolicy(max_attempts=1)`` turns retries off.
    """

    max_attempts: int = 5
    initial_backoff: float = 0.2
    max_backoff: float = 5.0
    multiplier: float = 2.0
    jitter: float = 0.2

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.initial_backoff <= 0 or self.max_backoff < self.initial_backoff:
            raise ValueError("need 0 < initial_backoff <= max_backoff")
        if self.multiplier < 1:
            raise ValueError("multiplier must be at least 1")
        if not 0 <= self.jitter < 1:
            raise ValueError("jitter must be in [0, 1)")

    def backoff(self, retry: int) -> float:
        """The nominal wait, in seconds, before retry number ``retry`` (1-based)."""
        return min(self.initial_backoff * self.multiplier ** (retry - 1), self.max_backoff)


def _to_variant(variant: VariantLike) -> halma_pb2.Variant:
    if isinstance(variant, halma_pb2.Variant):
        return variant
    if isinstance(variant, halma_pb2.VariantSpec):
        return halma_pb2.Variant(custom=variant)
    if isinstance(variant, str):
        return halma_pb2.Variant(preset=variant)
    raise TypeError("variant must be a preset name, a VariantSpec or a Variant, "
                    f"not {type(variant).__name__}")


class HalmaClient:
    """A client of the Halma rules service.

    ``target`` is ``"host:port"`` (or any gRPC target, e.g. ``"unix:/path"``).
    The channel is plaintext unless ``tls`` is true or ``ca_file`` is given:
    ``ca_file`` is a PEM file of root certificates to trust instead of the
    system's, and ``server_name`` overrides the name the server certificate is
    checked against (default: the target's host).

    ``timeout`` is the default deadline of each call in seconds, all its
    attempts included (``None``: no deadline); every call takes a ``timeout``
    of its own too. ``retry`` says how ``UNAVAILABLE`` is retried.
    ``options`` are extra gRPC channel arguments and ``interceptors`` client
    interceptors to wrap the channel in.

    Every unary call returns the response message, typed by the generated
    .pyi stubs, or raises :class:`HalmaError` carrying the gRPC code and
    message; :meth:`adjudicate_stream` returns an iterator of results.
    An instance is thread-safe; use it as a context manager (or call
    :meth:`close`) to close its channel. Creating one does not connect: the
    first call does.
    """

    def __init__(self, target: str, *, tls: bool = False,
                 ca_file: Optional[Union[str, Path]] = None,
                 server_name: Optional[str] = None,
                 timeout: Optional[float] = DEFAULT_TIMEOUT,
                 retry: RetryPolicy = RetryPolicy(),
                 max_receive_message_bytes: int = 64 << 20,
                 options: Sequence[Tuple[str, Any]] = (),
                 interceptors: Sequence[grpc.UnaryUnaryClientInterceptor] = ()) -> None:
        if timeout is not None and timeout <= 0:
            raise ValueError("timeout must be positive (or None for no deadline)")
        self._target = target
        self._timeout = timeout
        self._retry = retry
        channel_options: List[Tuple[str, Any]] = [
            ("grpc.max_receive_message_length", max_receive_message_bytes),
            # Reconnect at the pace of the retries, not gRPC's default of 1 s
            # growing to 120 s, so that a retry finds a server that came back.
            ("grpc.initial_reconnect_backoff_ms", int(retry.initial_backoff * 1000)),
            ("grpc.max_reconnect_backoff_ms", int(retry.max_backoff * 1000)),
        ]
        if server_name:
            channel_options.append(("grpc.ssl_target_name_override", server_name))
        channel_options.extend(options)
        if tls or ca_file is not None:
            roots = Path(ca_file).read_bytes() if ca_file is not None else None
            credentials = grpc.ssl_channel_credentials(root_certificates=roots)
            self._channel = grpc.secure_channel(target, credentials, channel_options)
        else:
            self._channel = grpc.insecure_channel(target, channel_options)
        if interceptors:
            self._channel = grpc.intercept_channel(self._channel, *interceptors)
        # The generated stubs are untyped; the methods below type each call.
        self._rules: Any = halma_pb2_grpc.HalmaRulesStub(self._channel)  # type: ignore[no-untyped-call]
        self._health: Any = health_pb2_grpc.HealthStub(self._channel)  # type: ignore[no-untyped-call]

    @property
    def target(self) -> str:
        return self._target

    @property
    def channel(self) -> grpc.Channel:
        """The underlying gRPC channel (for calls this class does not wrap)."""
        return self._channel

    def close(self) -> None:
        """Closes the channel; calls in flight are cancelled."""
        self._channel.close()

    def __enter__(self) -> HalmaClient:
        return self

    def __exit__(self, exc_type: Optional[type[BaseException]],
                 exc: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        self.close()

    # --- halma.v1.HalmaRules ------------------------------------------------

    def list_variants(self, *, timeout: Optional[float] = None) -> halma_pb2.ListVariantsResponse:
        """The named variants with their parameters and start positions."""
        return self._rules_call("ListVariants", halma_pb2.ListVariantsRequest(),
                                halma_pb2.ListVariantsResponse, timeout)

    def legal_moves(self, variant: VariantLike, *, position: str = "", origin: str = "",
                    timeout: Optional[float] = None) -> halma_pb2.LegalMovesResponse:
        """Every legal move of the side to move (of the piece on ``origin`` if given).

        An empty ``position`` is the variant's start position.
        """
        request = halma_pb2.LegalMovesRequest(
            variant=_to_variant(variant), position=position, origin=origin)
        return self._rules_call("LegalMoves", request, halma_pb2.LegalMovesResponse, timeout)

    def validate_move(self, variant: VariantLike, move: str, *, position: str = "",
                      timeout: Optional[float] = None) -> halma_pb2.ValidateMoveResponse:
        """Checks ``move`` (e.g. ``"c3-e5-g7"``, ``"c3-g7"``, ``"pass"``) for the side to move.

        An illegal move is an answer (``legal`` false, ``reason``, ``message``),
        not an error.
        """
        request = halma_pb2.ValidateMoveRequest(
            variant=_to_variant(variant), position=position, move=move)
        return self._rules_call("ValidateMove", request, halma_pb2.ValidateMoveResponse, timeout)

    def adjudicate(self, variant: VariantLike, moves: Iterable[str], *,
                   start_position: str = "",
                   timeout: Optional[float] = None) -> halma_pb2.AdjudicateResponse:
        """Replays a game record; ``illegal_move`` is set when a move is illegal."""
        request = halma_pb2.AdjudicateRequest(
            variant=_to_variant(variant), start_position=start_position, moves=moves)
        return self._rules_call("Adjudicate", request, halma_pb2.AdjudicateResponse, timeout)

    def perft(self, variant: VariantLike, depth: int, *, position: str = "",
              split_by_first_move: bool = False,
              timeout: Optional[float] = None) -> halma_pb2.PerftResponse:
        """Counts the move sequences of ``depth`` plies from ``position`` (docs/perft.md).

        ``nodes`` is the count; with ``split_by_first_move``, ``first_moves``
        gives each first move's count in the order :meth:`legal_moves` lists
        the moves. A depth beyond the server's ``--max_perft_depth`` is
        ``INVALID_ARGUMENT``; a count that outlasts the deadline
        ``DEADLINE_EXCEEDED``.
        """
        request = halma_pb2.PerftRequest(variant=_to_variant(variant), position=position,
                                         depth=depth, split_by_first_move=split_by_first_move)
        return self._rules_call("Perft", request, halma_pb2.PerftResponse, timeout)

    def suggest_move(self, variant: VariantLike, *, position: str = "",
                     moves: Iterable[str] = (), level: int = 0, max_nodes: int = 0,
                     max_time_ms: int = 0, max_depth: int = 0, seed: int = 0,
                     candidates: int = 0, best_so_far: bool = False,
                     timeout: Optional[float] = None) -> halma_pb2.SuggestMoveResponse:
        """A move for the side to move, from the service's search (docs/bot.md).

        The position is ``position`` (empty: the variant's start) after
        ``moves`` (each legal, as :meth:`adjudicate` takes them). ``level``
        is 1 (beginner) to 8 (0: the server's default, 5); or, instead, an
        explicit budget: ``max_nodes`` (with ``max_depth``) and/or
        ``max_time_ms``. With a level or a node budget the answer is a
        function of the request: the same ``seed`` gives the same move, on
        every server. ``candidates`` (1 to 16) ranks that many moves, best
        first, with their scores (hints). ``move`` is as :meth:`legal_moves`
        gives it (a pass is path ``"pass"``).

        A finished game, a bad level or budget is ``INVALID_ARGUMENT``
        naming the field. A search that outlasts the deadline ends
        ``DEADLINE_EXCEEDED``, unless ``best_so_far``: then the answer is
        the best move found so far (``stop_reason`` ``STOP_REASON_INTERRUPTED``).
        """
        request = halma_pb2.SuggestMoveRequest(
            variant=_to_variant(variant), position=position, moves=moves, level=level,
            max_nodes=max_nodes, max_time_ms=max_time_ms, max_depth=max_depth, seed=seed,
            candidates=candidates, best_so_far=best_so_far)
        return self._rules_call("SuggestMove", request, halma_pb2.SuggestMoveResponse, timeout)

    def adjudicate_stream(self, records: Iterable[StreamRecord], *,
                          window: int = DEFAULT_WINDOW,
                          timeout: Optional[float] = None) -> AdjudicateStreamCall:
        """Adjudicates many records on one AdjudicateStream call.

        ``records`` is any iterable of ``AdjudicateStreamRequest`` (an id and a
        record), ``(id, AdjudicateRequest)`` pairs or bare ``AdjudicateRequest``
        (whose id is then its 0-based index, in decimal). Iterating the
        returned :class:`AdjudicateStreamCall` yields one :class:`StreamResult`
        per record, in input order: its ``response`` (an illegal move
        included) or its ``error`` (code and message, e.g. a malformed
        record's ``INVALID_ARGUMENT``); the stream goes on after either.

        At most ``window`` records are read from ``records`` and not yet
        answered: the input is read lazily (from a gRPC thread) as answers
        are taken. ``timeout`` (default: the client's) covers the whole
        stream, resends included; give a batch the time it needs. When the
        stream ends ``UNAVAILABLE`` (a server shutting down answers what it
        received first), the unanswered records are sent again, in order
        and with their ids, on a new stream, followed by the rest: at most
        ``retry.max_attempts`` streams in a row that answer nothing, with
        the retry backoff between them, never past the deadline. Any other
        failure, or retries used up, raises :class:`HalmaStreamError`
        saying how many records were answered and which were not.
        """
        budget = self._budget(timeout)
        return AdjudicateStreamCall(
            self._rules.AdjudicateStream, records, window=window,
            deadline=None if budget is None else time.monotonic() + budget,
            retry=self._retry, wait=self._wait_reconnecting)

    # --- grpc.health.v1.Health ----------------------------------------------

    def check_health(self, service: str = "", *, timeout: Optional[float] = None
                     ) -> health_pb2.HealthCheckResponse.ServingStatus:
        """grpc.health.v1.Health/Check: ``SERVING``, ``NOT_SERVING`` ...

        ``service`` is ``""`` for the whole server or ``"halma.v1.HalmaRules"``.
        Compare with ``health_pb2.HealthCheckResponse.SERVING``.
        """
        response = self._call(self._health.Check, _HEALTH + "Check", health_pb2.HealthCheckResponse,
                              health_pb2.HealthCheckRequest(service=service), timeout)
        return response.status

    # --- the one place calls are made -----------------------------------------

    def _rules_call(self, name: str, request: Any, response_type: Type[_Response],
                    timeout: Optional[float]) -> _Response:
        """A unary call of halma.v1.HalmaRules: ``name`` is the RPC's name in the .proto."""
        return self._call(getattr(self._rules, name), _RULES + name, response_type, request,
                          timeout)

    def _budget(self, timeout: Optional[float]) -> Optional[float]:
        """The seconds a call may take: ``timeout``, else the client's default."""
        budget = self._timeout if timeout is None else timeout
        if budget is not None and budget <= 0:
            raise ValueError("timeout must be positive")
        return budget

    def _call(self, rpc: Any, method: str, response_type: Type[_Response], request: Any,
              timeout: Optional[float]) -> _Response:
        """Calls ``rpc``, retrying on UNAVAILABLE; returns its response or raises HalmaError."""
        budget = self._budget(timeout)
        deadline = None if budget is None else time.monotonic() + budget
        attempt = 0
        while True:
            attempt += 1
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            try:
                response = rpc(request, timeout=remaining)
                if not isinstance(response, response_type):
                    raise TypeError(f"{method} answered a {type(response).__name__}")
                return response
            except grpc.RpcError as error:
                code = error.code()
                message = error.details() or ""
            if code != grpc.StatusCode.UNAVAILABLE or attempt >= self._retry.max_attempts:
                raise HalmaError(code, message, method=method, attempts=attempt)
            jitter = self._retry.jitter
            delay = self._retry.backoff(attempt) * random.uniform(1 - jitter, 1 + jitter)
            if deadline is not None and time.monotonic() + delay >= deadline:
                # The next attempt could not start before the deadline.
                raise HalmaError(code, message, method=method, attempts=attempt)
            _log.debug("%s: UNAVAILABLE (%s), attempt %d of %d, retrying in %.3f s",
                       method, message, attempt, self._retry.max_attempts, delay)
            self._wait_reconnecting(delay)

    def _wait_reconnecting(self, seconds: float, wake: Optional[threading.Event] = None) -> None:
        """Sleeps while the channel tries to reconnect (until ``wake`` is set, if given).

        gRPC Python runs the channel's reconnect timers only while something
        polls the channel; a failed call stops polling at once, so a channel
        in TRANSIENT_FAILURE could stay there through every retry. Watching
        its connectivity during the wait keeps it reconnecting.
        """
        def on_state(state: grpc.ChannelConnectivity) -> None:
            del state  # Only the polling matters.

        self._channel.subscribe(on_state, try_to_connect=True)
        try:
            if wake is None:
                time.sleep(seconds)
            else:
                wake.wait(seconds)
        finally:
            self._channel.unsubscribe(on_state)
