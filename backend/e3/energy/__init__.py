"""Energy: power sources, attribution to instances, cost (docs/energy.md)."""
