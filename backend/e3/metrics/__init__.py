"""Prometheus metrics (docs/energy.md, "Prometheus metrics"): the controller's families rendered from its energy
ledger, pure (no DB, no web framework, no I/O)."""

# Each controller's rendered families in Redis under controller_key(its name), with a time to live: a controller
# gone, its figures go too (rather than stand still, which Prometheus would read as zero power). CONTROLLERS_KEY,
# a sorted set, names the controllers whose parts count, each scored with the Unix time (ms) its part expires;
# the API merges them when there are several (metrics.merge).
CONTROLLERS_KEY = "e3:metrics:controllers"


def controller_key(name: str) -> str:
    return f"e3:metrics:controller:{name}"
