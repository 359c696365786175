"""Python client of the halma-rules gRPC service (halma.v1.HalmaRules).

    from halma_client import HalmaClient, HalmaError, halma_pb2

    with HalmaClient("localhost:50051") as client:
        answer = client.validate_move("brainking-8x8", "b1-d3")
        print(answer.legal, answer.position_after)

The message classes are the generated ones, re-exported here as
``halma_pb2`` (halma.v1) and ``health_pb2`` (grpc.health.v1).
"""

from ._client import DEFAULT_TIMEOUT, HalmaClient, RetryPolicy, VariantLike
from ._errors import HalmaError, HalmaStreamError
from ._stream import DEFAULT_WINDOW, AdjudicateStreamCall, RecordError, StreamRecord, StreamResult
from ._gen import halma_pb2, health_pb2

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_TIMEOUT",
    "DEFAULT_WINDOW",
    "AdjudicateStreamCall",
    "HalmaClient",
    "HalmaError",
    "HalmaStreamError",
    "RecordError",
    "RetryPolicy",
    "StreamRecord",
    "StreamResult",
    "VariantLike",
    "halma_pb2",
    "health_pb2",
]
