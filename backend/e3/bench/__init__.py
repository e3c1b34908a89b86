"""Benchmarks: figures and ratios printed for people and as JSON, never pass/fail on timing."""
