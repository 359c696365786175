"""The exceptions failed calls raise."""

from __future__ import annotations

from typing import List, Sequence

import grpc

from ._gen import halma_pb2


class HalmaError(Exception):
    """A call to the service failed with a gRPC status other than OK.

    ``code`` is the :class:`grpc.StatusCode` (``INVALID_ARGUMENT`` for a
    malformed request, ``UNAVAILABLE`` when the server cannot be reached,
    ``DEADLINE_EXCEEDED`` ...), ``message`` the server's (or gRPC's) status
    message, ``method`` the full RPC name and ``attempts`` how many times the
    call was tried (more than 1 only after ``UNAVAILABLE``).

    An illegal move is not an error: the service answers it normally, with
    ``legal == False`` and a reason.
    """

    def __init__(self, code: grpc.StatusCode, message: str, *,
                 method: str = "", attempts: int = 1) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message
        self.method = method
        self.attempts = attempts

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"

    def __repr__(self) -> str:
        return (f"HalmaError(code={self.code.name}, message={self.message!r}, "
                f"method={self.method!r}, attempts={self.attempts})")


class HalmaStreamError(HalmaError):
    """An AdjudicateStream call that ended before every record was answered.

    Answers come in input order, so ``answered`` says exactly which records
    were answered: the first ``answered`` of the input, whose results were
    all yielded before this error. ``unanswered`` holds the records read from
    the input that got no answer, in input order (at most the stream's
    window of them); the input beyond them was not read. Send those, then
    the rest of the input, elsewhere to finish the job. ``attempts`` is the
    number of streams opened (more than 1 after UNAVAILABLE).
    """

    def __init__(self, code: grpc.StatusCode, message: str, *, method: str = "",
                 attempts: int = 1, answered: int = 0,
                 unanswered: Sequence[halma_pb2.AdjudicateStreamRequest] = ()) -> None:
        super().__init__(code, message, method=method, attempts=attempts)
        self.answered = answered
        self.unanswered: List[halma_pb2.AdjudicateStreamRequest] = list(unanswered)

    def __repr__(self) -> str:
        return (f"HalmaStreamError(code={self.code.name}, message={self.message!r}, "
                f"method={self.method!r}, attempts={self.attempts}, answered={self.answered}, "
                f"unanswered={len(self.unanswered)} records)")
