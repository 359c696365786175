"""AdjudicateStream: many game records on one bidirectional call, in order.

The server answers records in the order they arrive and reads the next one
only as fast as the client reads answers (proto/halma/v1/halma.proto). This
module adds what a caller would otherwise write around the raw call:

- **A bounded window.** At most ``window`` records are read from the input
  and not yet answered (sent, or waiting to be sent); the input is read
  lazily, from a gRPC thread, only when an answer frees a place. Memory is
  bounded however long the input, and a caller that stops reading answers
  stops the input being read.
- **Resending on UNAVAILABLE.** A server shutting down answers the records
  it has received and ends the stream with UNAVAILABLE. The records sent
  but not answered are sent again, first and in order, with their ids, on a
  new stream, followed by the rest of the input; every record is answered
  exactly once and the answers stay in input order.
- **Errors that say how far the stream got.** A stream that cannot go on
  raises :class:`HalmaStreamError`, whose ``answered`` is the number of
  results already yielded (the first ``answered`` records of the input) and
  ``unanswered`` the records read from the input that got no answer.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import deque
from dataclasses import dataclass
from types import TracebackType
from typing import (TYPE_CHECKING, Any, Callable, Deque, Dict, Iterable, Iterator, List,
                    Optional, Set, Tuple, Union)

import grpc

from ._errors import HalmaStreamError
from ._gen import halma_pb2

if TYPE_CHECKING:
    from ._client import RetryPolicy

__all__ = ["AdjudicateStreamCall", "RecordError", "StreamRecord", "StreamResult",
           "DEFAULT_WINDOW"]

METHOD = "halma.v1.HalmaRules/AdjudicateStream"
_log = logging.getLogger("halma_client")

#: Records a stream has read from its input and not yet answered, unless told.
DEFAULT_WINDOW = 32

#: One record of the input: an ``AdjudicateStreamRequest`` (id and record),
#: an ``(id, AdjudicateRequest)`` pair, or a bare ``AdjudicateRequest``,
#: whose id is then its 0-based index in the input, in decimal.
StreamRecord = Union[halma_pb2.AdjudicateStreamRequest,
                     Tuple[str, halma_pb2.AdjudicateRequest],
                     halma_pb2.AdjudicateRequest]

# The server echoes ids of at most this many bytes; a longer one is an error
# for its record and comes back cut (service/stream/adjudicate_stream.h).
_MAX_ID_BYTES = 256
_CODES: Dict[int, grpc.StatusCode] = {code.value[0]: code for code in grpc.StatusCode}


@dataclass(frozen=True)
class RecordError:
    """Why one record got no adjudication: what unary Adjudicate would fail with."""

    code: grpc.StatusCode
    message: str

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"


@dataclass(frozen=True)
class StreamResult:
    """The answer to one record: ``response`` (what Adjudicate answers) or ``error``.

    ``id`` is the record's id as the caller gave it. An illegal move is a
    ``response`` with ``illegal_move`` set; ``error`` is for a malformed
    record (``INVALID_ARGUMENT`` naming the field) and the like.
    """

    id: str
    response: Optional[halma_pb2.AdjudicateResponse] = None
    error: Optional[RecordError] = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _to_stream_request(item: Any, index: int) -> halma_pb2.AdjudicateStreamRequest:
    if isinstance(item, halma_pb2.AdjudicateStreamRequest):
        return item
    if isinstance(item, halma_pb2.AdjudicateRequest):
        return halma_pb2.AdjudicateStreamRequest(id=str(index), record=item)
    if (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)
            and isinstance(item[1], halma_pb2.AdjudicateRequest)):
        return halma_pb2.AdjudicateStreamRequest(id=item[0], record=item[1])
    raise TypeError(f"record {index}: expected an AdjudicateStreamRequest, an (id, "
                    f"AdjudicateRequest) pair or an AdjudicateRequest, not {type(item).__name__}")


class _Window:
    """The records between the input and their answers.

    Shared by the caller's thread (which takes answers) and the gRPC thread
    of each attempt (which reads the input and sends). ``unsent`` and
    ``sent`` together hold at most ``size`` records; ``sent`` are those
    written to the current attempt's stream, oldest first, which is the
    order of the answers. It holds no reference to the call, so that an
    abandoned AdjudicateStreamCall can be collected (and cancelled).
    """

    def __init__(self, records: Iterator[Any], size: int) -> None:
        self.cv = threading.Condition()
        self.records = records
        self.size = size
        self.read = 0  # Records taken from the input.
        self.unsent: Deque[halma_pb2.AdjudicateStreamRequest] = deque()
        self.sent: Deque[halma_pb2.AdjudicateStreamRequest] = deque()
        self.input_done = False
        self.input_error: Optional[BaseException] = None
        self.reading = False  # A thread is in next(records).
        self.attempt = 0
        self.closed = False

    def requests(self, attempt: int) -> Iterator[halma_pb2.AdjudicateStreamRequest]:
        """What attempt number ``attempt`` writes: the records to resend, then
        the input while the window has room; it half-closes once the input
        is done, and stops when the attempt is over."""
        while True:
            record: Optional[halma_pb2.AdjudicateStreamRequest] = None
            with self.cv:
                while True:
                    if self.closed or self.attempt != attempt:
                        return
                    if self.unsent:
                        record = self.unsent.popleft()
                        self.sent.append(record)
                        break
                    if self.input_done:
                        return  # Half-close: every record is sent.
                    if not self.reading and len(self.sent) < self.size:
                        self.reading = True
                        break
                    self.cv.wait()
            if record is not None:
                yield record
                continue
            self._read_one()

    def _read_one(self) -> None:
        """Takes one record from the input into ``unsent`` (outside the lock:
        the input may block)."""
        record: Optional[halma_pb2.AdjudicateStreamRequest] = None
        error: Optional[BaseException] = None
        done = False
        try:
            record = _to_stream_request(next(self.records), self.read)
        except StopIteration:
            done = True
        except Exception as caught:  # pylint: disable=broad-except
            # Raised to the caller once the records before it are answered.
            error, done = caught, True
        with self.cv:
            self.reading = False
            if record is not None:
                self.read += 1
                self.unsent.append(record)
            if done:
                self.input_done = True
                self.input_error = error
            self.cv.notify_all()

    def close(self) -> None:
        with self.cv:
            self.closed = True
            self.cv.notify_all()


class AdjudicateStreamCall(Iterator[StreamResult]):
    """An AdjudicateStream call: iterate it for one :class:`StreamResult` per
    record, in input order. Made by :meth:`HalmaClient.adjudicate_stream`.

    ``cancel()`` (from any thread) ends it: the next result raises
    :class:`HalmaStreamError` with ``CANCELLED``. ``close()`` (or leaving a
    ``with`` block) cancels it quietly. ``answered`` and ``attempts`` say
    how far it got.
    """

    def __init__(self, rpc: Callable[..., Any], records: Iterable[StreamRecord], *,
                 window: int, deadline: Optional[float], retry: RetryPolicy,
                 wait: Callable[[float, threading.Event], None]) -> None:
        if window < 1:
            raise ValueError("window must be at least 1")
        self._rpc = rpc
        self._deadline = deadline
        self._retry = retry
        self._wait = wait
        self._window = _Window(iter(records), window)
        self._call: Any = None
        self._cancelled = threading.Event()
        self._finished = False
        self._answered = 0
        self._attempts = 0
        self._failures = 0  # Attempts in a row that ended UNAVAILABLE with no answer.
        self._answered_this_attempt = 0
        self._resent = 0
        self._resent_records: Set[int] = set()  # id() of the records in the window resent.

    @property
    def answered(self) -> int:
        """Results yielded so far: the first ``answered`` records of the input."""
        return self._answered

    @property
    def attempts(self) -> int:
        """Streams opened so far (more than 1 after UNAVAILABLE)."""
        return self._attempts

    @property
    def resent(self) -> int:
        """Records sent again on a new stream after an UNAVAILABLE left them
        unanswered (each counted once, however many streams it took)."""
        return self._resent

    def __iter__(self) -> AdjudicateStreamCall:
        return self

    def __next__(self) -> StreamResult:
        while True:
            if self._finished:
                raise StopIteration
            call = self._call if self._call is not None else self._start_attempt()
            try:
                answer = next(call)
            except StopIteration:
                return self._end_of_stream()
            except grpc.RpcError as error:
                self._after_failure(error.code(), error.details() or "")
                continue
            return self._take(answer)

    def cancel(self) -> None:
        """Cancels the stream (thread-safe); the caller's next result raises CANCELLED."""
        with self._window.cv:
            self._cancelled.set()
            call = self._call
        # The call first: closing the window ends the request thread, which
        # would half-close the stream and let the server finish it with OK.
        if call is not None:
            call.cancel()
        self._window.close()

    def close(self) -> None:
        """Ends the stream, cancelling it if it is not done; no error is raised."""
        if not self._finished:
            self.cancel()
            self._finished = True

    def __enter__(self) -> AdjudicateStreamCall:
        return self

    def __exit__(self, exc_type: Optional[type[BaseException]], exc: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        self.close()

    def __del__(self) -> None:
        # An abandoned stream must not keep the call and its gRPC thread alive.
        if not getattr(self, "_finished", True):
            self.cancel()

    # --- one attempt ------------------------------------------------------------

    def _start_attempt(self) -> Any:
        """Opens the next stream; returns the call."""
        timeout = None
        if self._deadline is not None:
            timeout = self._deadline - time.monotonic()
            if timeout <= 0:
                raise self._fail(grpc.StatusCode.DEADLINE_EXCEEDED,
                                 "the stream's deadline passed before it could be resent")
        window = self._window
        with window.cv:
            if self._cancelled.is_set():
                raise self._fail(grpc.StatusCode.CANCELLED, "cancelled by the caller")
            window.attempt += 1
            self._attempts += 1
            self._answered_this_attempt = 0
            self._call = self._rpc(window.requests(window.attempt), timeout=timeout)
            return self._call

    def _take(self, answer: halma_pb2.AdjudicateStreamResponse) -> StreamResult:
        window = self._window
        with window.cv:
            record = window.sent.popleft() if window.sent else None
            window.cv.notify_all()
        if record is not None:
            self._resent_records.discard(id(record))
        if record is None:
            raise self._fail(grpc.StatusCode.INTERNAL,
                             f"an answer (id {answer.id[:40]!r}) to a record never sent")
        sent_id = record.id
        if len(sent_id.encode()) <= _MAX_ID_BYTES and answer.id != sent_id:
            raise self._fail(grpc.StatusCode.INTERNAL,
                             f"the answer for id {answer.id[:40]!r} came where the one for "
                             f"{sent_id[:40]!r} was expected (answers must keep request order)")
        self._answered += 1
        self._answered_this_attempt += 1
        self._failures = 0
        if answer.WhichOneof("outcome") == "error":
            code = _CODES.get(answer.error.code, grpc.StatusCode.UNKNOWN)
            return StreamResult(sent_id, error=RecordError(code, answer.error.message))
        return StreamResult(sent_id, response=answer.result)

    def _end_of_stream(self) -> StreamResult:
        window = self._window
        with window.cv:
            left = len(window.sent) + len(window.unsent)
            input_error = window.input_error
        if left:
            raise self._fail(grpc.StatusCode.INTERNAL,
                             f"the server ended the stream with {left} records unanswered")
        self._finished = True
        window.close()
        if input_error is not None:
            raise input_error
        raise StopIteration

    def _after_failure(self, code: grpc.StatusCode, message: str) -> None:
        """Prepares the next attempt after an UNAVAILABLE, or raises."""
        if self._cancelled.is_set():
            raise self._fail(grpc.StatusCode.CANCELLED, "cancelled by the caller")
        if code != grpc.StatusCode.UNAVAILABLE:
            raise self._fail(code, message)
        if self._answered_this_attempt == 0:
            self._failures += 1
        else:
            self._failures = 1  # The budget starts again after progress.
        if self._failures >= self._retry.max_attempts:
            raise self._fail(code, message)
        jitter = self._retry.jitter
        delay = self._retry.backoff(self._failures) * random.uniform(1 - jitter, 1 + jitter)
        if self._deadline is not None and time.monotonic() + delay >= self._deadline:
            raise self._fail(code, message)
        window = self._window
        with window.cv:
            _log.debug("%s: UNAVAILABLE (%s) after %d answers on attempt %d; resending %d "
                       "records in %.3f s", METHOD, message, self._answered_this_attempt,
                       self._attempts, len(window.sent), delay)
            for record in window.sent:
                if id(record) not in self._resent_records:
                    self._resent_records.add(id(record))
                    self._resent += 1
            # The unanswered records go first, in order, on the next stream.
            window.unsent.extendleft(reversed(window.sent))
            window.sent.clear()
            window.attempt += 1  # Ends this attempt's request thread.
            window.cv.notify_all()
            self._call = None
        self._wait(delay, self._cancelled)

    def _fail(self, code: grpc.StatusCode, message: str) -> HalmaStreamError:
        """Ends the stream for good; returns the error to raise."""
        self._finished = True
        window = self._window
        with window.cv:
            unanswered: List[halma_pb2.AdjudicateStreamRequest] = [*window.sent, *window.unsent]
            call = self._call
        if call is not None:
            call.cancel()  # Before the window closes: see cancel().
        window.close()
        return HalmaStreamError(code, message, method=METHOD, attempts=self._attempts,
                                answered=self._answered, unanswered=unanswered)
