"""Every error leaves the API as {code, message, errors[]} with the field at fault named."""

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException

from e3.core.db_errors import as_domain_error
from e3.core.errors import E3Error, FieldError, ValidationFailed

# Each kind of domain error (core.errors) as the HTTP status it is answered with.
HTTP_STATUS = {"invalid": 400, "unauthenticated": 401, "forbidden": 403, "not_found": 404, "conflict": 409,
               "failed_precondition": 412, "too_large": 413, "unsupported_media_type": 415, "invalid_fields": 422,
               "unavailable": 503}


def _loc_to_field(loc) -> str:
    parts = [p for p in loc if p not in ("body", "query", "path", "header")]
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "body"


def _validation_body(exc: RequestValidationError) -> dict:
    errors = [FieldError(_loc_to_field(e.get("loc", ())), e.get("msg", "invalid"), e.get("type", "invalid"))
              for e in exc.errors()]
    return ValidationFailed(errors or [FieldError("body", "invalid request")]).body()


def error_response(exc: E3Error) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if exc.kind == "unauthenticated" else {}
    if exc.retry_after is not None:
        headers["Retry-After"] = str(exc.retry_after)
    return JSONResponse(exc.body(), status_code=HTTP_STATUS[exc.kind], headers=headers or None)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(E3Error)
    async def e3_error(request: Request, exc: E3Error) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(SQLAlchemyError)
    async def database_error(request: Request, exc: SQLAlchemyError) -> JSONResponse:
        domain = as_domain_error(exc)
        if domain is None:
            raise exc  # a bug: the 500 handler below answers it
        return error_response(domain)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"code": "internal_error", "message": "internal server error", "errors": []},
                            status_code=500)

    @app.exception_handler(RequestValidationError)
    async def request_validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(_validation_body(exc), status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse({"code": code, "message": str(exc.detail), "errors": []}, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))
