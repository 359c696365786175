"""The exception every failed call raises."""

from __future__ import annotations

import grpc


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
