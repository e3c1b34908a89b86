"""Driving a running E3 from outside over its REST API: the HTTP client, and waiting for jobs, deployments
and migrations to end. Used by the CLI, the emulated clusters' launchers and the benchmarks."""
