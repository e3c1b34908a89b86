"""Where the C programs `make agents` builds live: the checkout's build tree, or an override."""

import os
from pathlib import Path

import e3
from e3.client.api import ClientError

BUILD_DIR = Path(e3.__file__).resolve().parents[2] / "build/agents"


def built_binary(env_var: str, relative: str) -> Path:
    """The executable named by `env_var`, else `build/agents/<relative>`; ClientError if it is missing."""
    configured = os.environ.get(env_var)
    path = Path(configured) if configured else BUILD_DIR / relative
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise ClientError(f"{path.name} not found at {path}: run `make agents` (or set {env_var})")
    return path


def agent_binary() -> Path:
    """The host agent, e3-agent (E3_AGENT_BIN overrides)."""
    return built_binary("E3_AGENT_BIN", "e3-agent/e3-agent")


def nic_binary() -> Path:
    """The emulated SmartNIC, e3-nic (E3_NIC_BIN overrides)."""
    return built_binary("E3_NIC_BIN", "nic-firmware/e3-nic")


def loadgen_binary() -> Path:
    """The load generator, e3-loadgen (E3_LOADGEN_BIN overrides)."""
    return built_binary("E3_LOADGEN_BIN", "e3-loadgen/e3-loadgen")


def ingest_binary() -> Path:
    """The controller's ingest front, e3-ingest (E3_INGEST_BIN overrides)."""
    return built_binary("E3_INGEST_BIN", "e3-ingest/e3-ingest")


def heartbeat_load_binary() -> Path:
    """The heartbeat benchmarks' compiled load generator, e3-heartbeat-load (E3_HEARTBEAT_LOAD_BIN overrides)."""
    return built_binary("E3_HEARTBEAT_LOAD_BIN", "e3-heartbeat-load/e3-heartbeat-load")
