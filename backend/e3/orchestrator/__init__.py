"""Data-plane orchestrator and failover: pure decision logic (no DB, no network)."""
