"""Domain errors: what went wrong (`kind`), said for a person (`message`, the fields at fault in `errors`).

Services raise them and know no transport: the HTTP API answers each kind with its status (api/errors.py),
the gRPC controller with its status code (rpc/errors.py), each from one table keyed by `kind`.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class FieldError:
    """One thing wrong with a request, located by a dotted path such as `spec.nodes[2].service`."""

    field: str
    message: str
    code: str = "invalid"
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"field": self.field, "message": self.message, "code": self.code, **self.extra}


class E3Error(Exception):
    """Base of every domain error: its `kind`, and the {code, message, errors[]} the API answers with."""

    kind = "invalid"
    code = "bad_request"
    retry_after: int | None = None  # seconds after which a retry may succeed (HTTP Retry-After), if known

    def __init__(self, message: str, errors: list[FieldError] | tuple = (), *, code: str | None = None):
        super().__init__(message)
        self.message = message
        self.errors = list(errors)
        if code:
            self.code = code

    def body(self) -> dict:
        return {"code": self.code, "message": self.message, "errors": [e.as_dict() for e in self.errors]}


class BadRequest(E3Error):
    kind = "invalid"
    code = "bad_request"


class Unauthorized(E3Error):
    kind = "unauthenticated"
    code = "unauthorized"


class Forbidden(E3Error):
    kind = "forbidden"
    code = "forbidden"


class NotFound(E3Error):
    kind = "not_found"
    code = "not_found"


class Conflict(E3Error):
    kind = "conflict"
    code = "conflict"


class PreconditionFailed(E3Error):
    kind = "failed_precondition"
    code = "precondition_failed"


class PayloadTooLarge(E3Error):
    kind = "too_large"
    code = "payload_too_large"


class UnsupportedMediaType(E3Error):
    kind = "unsupported_media_type"
    code = "unsupported_media_type"


class ServiceUnavailable(E3Error):
    kind = "unavailable"
    code = "service_unavailable"


class ValidationFailed(E3Error):
    kind = "invalid_fields"
    code = "validation_failed"

    def __init__(self, errors: list[FieldError], message: str | None = None, *, code: str | None = None):
        errors = list(errors)
        if message is None:
            first = errors[0]
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            message = f"{first.field}: {first.message}{more}"
        super().__init__(message, errors, code=code)
