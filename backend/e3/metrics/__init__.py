"""Prometheus metrics (docs/energy.md, "Prometheus metrics"): the controller's families rendered from its energy
ledger, pure (no DB, no web framework, no I/O)."""

# The controller's rendered families in Redis, with a time to live: a controller gone, its figures go too
# (rather than stand still, which Prometheus would read as zero power).
CONTROLLER_KEY = "e3:metrics:controller"
