"""A database failure said as a domain error (core.errors): what a client can do about it, not a 500.

The database answers for races and overload: a write that waited the lock timeout for a row another request
holds is a Conflict to retry, a statement past the statement timeout or a database that cannot be reached is
ServiceUnavailable. Each carries `retry_after` (seconds) for the transports that can say it.
"""

from sqlalchemy import exc as sa

from e3.core.errors import BadRequest, Conflict, E3Error, ServiceUnavailable

RETRY_AFTER_S = 1
# SQLSTATEs a client's retry may cure: lock_not_available (lock_timeout), deadlock_detected, serialization_failure.
_BUSY = {"55P03", "40P01", "40001"}
QUERY_CANCELED = "57014"  # a statement past the statement timeout
# query_canceled (statement_timeout), idle_in_transaction_session_timeout, the server shutting down or gone.
_UNAVAILABLE_PREFIXES = ("57", "08", "25P03", "53")


def cured_by_retry(exc: BaseException) -> bool:
    """A database failure that the same transaction, tried again, may not meet (a lock wait, a deadlock's victim,
    a serialization conflict)."""
    return isinstance(exc, sa.DBAPIError) and (getattr(exc.orig, "sqlstate", None) or "") in _BUSY


def _retry_later(error: E3Error) -> E3Error:
    error.retry_after = RETRY_AFTER_S
    return error


def as_domain_error(exc: sa.SQLAlchemyError) -> E3Error | None:
    """The domain error for a database failure, or None for one that is a bug (left a 500)."""
    if isinstance(exc, sa.TimeoutError):  # no pooled connection came free in time
        return _retry_later(ServiceUnavailable("the database is busy: no connection came free in time; retry",
                                               code="database_busy"))
    if not isinstance(exc, sa.DBAPIError):
        return None
    state = getattr(exc.orig, "sqlstate", None) or ""
    if state == "23505":  # unique_violation: a concurrent create of the same name committed first
        return Conflict(f"it already exists ({getattr(exc.orig.diag, 'constraint_name', None) or 'unique key'}); "
                        "a concurrent request created it first", code="already_exists")
    if state in _BUSY:
        return _retry_later(Conflict("another request is changing the same resource; retry in a moment",
                                     code="resource_busy"))
    if state.startswith(_UNAVAILABLE_PREFIXES) or (isinstance(exc, sa.OperationalError) and not state) \
            or exc.connection_invalidated:
        return _retry_later(ServiceUnavailable("the database is unavailable or too slow to answer; retry in a "
                                               "moment", code="database_unavailable"))
    if isinstance(exc, sa.DataError):  # data exception: a value the database cannot hold (out of range, NUL, ...)
        return BadRequest(f"a value in the request cannot be stored: {str(exc.orig).splitlines()[0]}",
                          code="invalid_value")
    return None
