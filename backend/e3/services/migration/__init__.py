"""Migration of an instance and failover of a node: the request and its checks, the step runner, the
failover of a node that went down, and handing a migration to a worker."""
