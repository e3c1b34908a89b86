"""Energy: every energy computation of E3, in one package (docs/energy.md).

- `joules`: joules per request (energy over an interval / requests completed in it) and its inverse;
- `cost`: the paper's cost efficiency (§5.5), CAPEX and power from Table 4.

Both are pure: no database, no web framework.
"""
