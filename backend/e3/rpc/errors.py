"""Every refused call leaves the controller as a gRPC status code with the domain error's message as details."""

import grpc

from e3.core.errors import E3Error

# Each kind of domain error (core.errors) as the gRPC status code it is answered with.
STATUS_CODES = {
    "invalid": grpc.StatusCode.INVALID_ARGUMENT,
    "invalid_fields": grpc.StatusCode.INVALID_ARGUMENT,
    "unsupported_media_type": grpc.StatusCode.INVALID_ARGUMENT,
    "unauthenticated": grpc.StatusCode.UNAUTHENTICATED,
    "forbidden": grpc.StatusCode.PERMISSION_DENIED,
    "not_found": grpc.StatusCode.NOT_FOUND,
    "conflict": grpc.StatusCode.ALREADY_EXISTS,
    "failed_precondition": grpc.StatusCode.FAILED_PRECONDITION,
    "too_large": grpc.StatusCode.RESOURCE_EXHAUSTED,
    "unavailable": grpc.StatusCode.UNAVAILABLE,
}


async def abort(context: grpc.aio.ServicerContext, exc: E3Error) -> None:
    """End the call with the error's status code (raises, as context.abort does)."""
    await context.abort(STATUS_CODES[exc.kind], exc.message)
