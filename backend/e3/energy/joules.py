"""Joules per request, computed here and nowhere else (docs/energy.md).

The definition is energy over an interval divided by the requests completed in it. Where a figure is a
rate (watts, requests/s), the interval is one second: W / (req/s) = J/s / (req/s) = J/req. Without
requests (or without energy) there is no per-request figure: None, never 0 or infinity.

Pure: no database, no web framework, no clock.
"""

RATE_INTERVAL_S = 1.0  # watts and requests/s are per-second figures: the interval they stand for


def joules_per_request_over(joules: float | None, requests: float | None) -> float | None:
    """Energy over an interval / the requests completed in it; None without energy or without requests."""
    if joules is None or not requests or requests <= 0:
        return None
    return joules / requests


def joules_per_request(watts: float | None, requests_per_s: float | None) -> float | None:
    """Power / throughput, the rate form: one second's energy over one second's requests."""
    joules = None if watts is None else watts * RATE_INTERVAL_S
    requests = None if requests_per_s is None else requests_per_s * RATE_INTERVAL_S
    return joules_per_request_over(joules, requests)


def requests_per_joule(watts: float | None, requests_per_s: float | None) -> float | None:
    """Throughput / power (energy efficiency, the paper's Table 5 in thousands); None without a throughput or
    without a positive power."""
    if requests_per_s is None or watts is None or watts <= 0:
        return None
    return requests_per_s / watts
