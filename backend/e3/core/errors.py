"""Domain errors that the API turns into 4xx JSON bodies naming the field at fault."""

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
    """Base of every error the API answers with a JSON body: {code, message, errors[]}."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, errors: list[FieldError] | tuple = (), *, code: str | None = None):
        super().__init__(message)
        self.message = message
        self.errors = list(errors)
        if code:
            self.code = code

    def body(self) -> dict:
        return {"code": self.code, "message": self.message, "errors": [e.as_dict() for e in self.errors]}


class BadRequest(E3Error):
    status = 400
    code = "bad_request"


class Unauthorized(E3Error):
    status = 401
    code = "unauthorized"


class Forbidden(E3Error):
    status = 403
    code = "forbidden"


class NotFound(E3Error):
    status = 404
    code = "not_found"


class Conflict(E3Error):
    status = 409
    code = "conflict"


class PreconditionFailed(E3Error):
    status = 412
    code = "precondition_failed"


class PayloadTooLarge(E3Error):
    status = 413
    code = "payload_too_large"


class UnsupportedMediaType(E3Error):
    status = 415
    code = "unsupported_media_type"


class ServiceUnavailable(E3Error):
    status = 503
    code = "service_unavailable"


class ValidationFailed(E3Error):
    status = 422
    code = "validation_failed"

    def __init__(self, errors: list[FieldError], message: str | None = None, *, code: str | None = None):
        errors = list(errors)
        if message is None:
            first = errors[0]
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            message = f"{first.field}: {first.message}{more}"
        super().__init__(message, errors, code=code)
