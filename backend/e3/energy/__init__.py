"""Energy: every energy computation of E3, in one package (docs/energy.md).

- `joules`: joules per request (energy over an interval / requests completed in it) and its inverse;
- `cost`: the paper's cost efficiency (§5.5), CAPEX and power from Table 4;
- `attribution`: a node's energy shared among its instances, Kepler-style (idle and dynamic);
- `server_split`: a server's IPMI reading split into its host and SmartNIC nodes;
- `rapl`: the RAPL powercap reader (counter wrap-around).

All pure: no database, no web framework (tests/test_architecture.py).
"""
