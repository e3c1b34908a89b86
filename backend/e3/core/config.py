"""One Settings object, read from the environment (prefix-free names for the URLs), validated at start-up."""

from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from e3.energy.history_policy import DEFAULT_RETENTION_DAYS

MAX_CONTROLLER_ADDRESSES = 16  # controllers in an agent's --controller list
MAX_CONTROLLER_ADDRESS_LEN = 255  # characters of one of them


def _default_data_dir() -> Path:
    return Path.cwd() / ".e3"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", extra="ignore", case_sensitive=False)

    # Unset means: `e3 up` starts an embedded PostgreSQL / Redis under data_dir.
    database_url: str | None = Field(default=None, alias="DATABASE_URL")
    redis_url: str | None = Field(default=None, alias="REDIS_URL")
    data_dir: Path = Field(default_factory=_default_data_dir, alias="E3_DATA_DIR")
    api_host: str = Field(default="127.0.0.1", alias="E3_API_HOST")
    api_port: int = Field(default=8000, alias="E3_API_PORT", ge=1, le=65535)
    # Local mode (set by `e3 up`): the UI may fetch the local admin token from loopback.
    local_mode: bool = Field(default=False, alias="E3_LOCAL_MODE")
    local_admin_token: str | None = Field(default=None, alias="E3_LOCAL_ADMIN_TOKEN")
    frontend_dist: Path | None = Field(default=None, alias="E3_FRONTEND_DIST")
    heartbeat_retention_days: int = Field(default=7, alias="E3_HEARTBEAT_RETENTION_DAYS", ge=1)  # and rollups'
    # how often the controller adds its telemetry rollups' new figures to Postgres (docs/agents.md)
    rollup_flush_ms: int = Field(default=1000, alias="E3_ROLLUP_FLUSH_MS", ge=50, le=60_000)
    # a controller's lease (its row in `controllers`), renewed this often (docs/controller-scale-out.md §4)
    controller_lease_ms: int = Field(default=2000, alias="E3_CONTROLLER_LEASE_MS", ge=500, le=60_000)
    controller_renew_ms: int = Field(default=500, alias="E3_CONTROLLER_RENEW_MS", ge=50, le=30_000)
    # seconds of raw heartbeats the controller keeps per node for GET /nodes/{id}/telemetry (0: none)
    raw_tail_s: int = Field(default=10, alias="E3_RAW_TAIL_S", ge=0, le=600)
    # energy rollups (docs/energy.md, "Energy history") older than this are dropped, and not queried
    energy_retention_days: int = Field(default=DEFAULT_RETENTION_DAYS, alias="E3_ENERGY_RETENTION_DAYS", ge=1)
    # The controller (gRPC, for agents) and its failure detector.
    controller_host: str = Field(default="127.0.0.1", alias="E3_CONTROLLER_HOST")
    controller_port: int = Field(default=50051, alias="E3_CONTROLLER_PORT", ge=1, le=65535)
    # PEM files: set both and the controller speaks TLS on every address (docs/security.md); unset, plaintext,
    # which it warns about on any address but loopback (agents' tokens would cross the network in clear).
    controller_tls_cert: Path | None = Field(default=None, alias="E3_CONTROLLER_TLS_CERT")
    controller_tls_key: Path | None = Field(default=None, alias="E3_CONTROLLER_TLS_KEY")
    # PEM certificates the agents E3 starts (local, rack) trust for the controller; default its own
    # certificate (E3_CONTROLLER_TLS_CERT), as for a self-signed one. Unset with no certificate: plaintext.
    controller_tls_ca: Path | None = Field(default=None, alias="E3_CONTROLLER_TLS_CA")
    # The controllers the agents E3 starts (local, rack) are given, comma-separated host:port: each agent prefers
    # one by a hash of its cluster/server and moves to the next when it fails (docs/agents.md). Unset: the
    # controllers `e3 up` starts, E3_CONTROLLER_HOST at E3_CONTROLLER_PORT, and the next ports for E3_CONTROLLERS.
    controller_addresses: str | None = Field(default=None, alias="E3_CONTROLLER_ADDRESSES")
    # How many controller processes `e3 up` starts, on E3_CONTROLLER_PORT, E3_CONTROLLER_PORT + 1, ... (one
    # Postgres, one Redis; each node held by one of them, the leader chosen by an advisory lock: docs/agents.md).
    controllers: int = Field(default=1, alias="E3_CONTROLLERS", ge=1, le=MAX_CONTROLLER_ADDRESSES)
    # `e3 controller` puts its compiled front (e3-ingest, E3_INGEST_BIN overrides where it is) on its public
    # address(es) and serves on unix:<E3_DATA_DIR>/controller-<port>.sock behind it (docs/agents.md, "Ingest
    # front"). Off by default until the front takes the heartbeats itself (docs/controller-scale-out.md, 10).
    ingest_front: bool = Field(default=False, alias="E3_INGEST_FRONT")
    heartbeat_period_ms: int = Field(default=50, alias="E3_HEARTBEAT_PERIOD_MS", ge=1, le=60_000)
    suspect_after_missed: int = Field(default=3, alias="E3_SUSPECT_AFTER_MISSED", ge=1)
    down_after_ms: int = Field(default=1000, alias="E3_DOWN_AFTER_MS", ge=1)
    # an agent whose connection broke (process killed) is down this long after, unless it comes back
    lost_grace_ms: int = Field(default=250, alias="E3_LOST_GRACE_MS", ge=1)
    # how often the controller renders its Prometheus families into Redis for /metrics (docs/energy.md)
    metrics_interval_ms: int = Field(default=5000, alias="E3_METRICS_INTERVAL_MS", ge=100, le=60_000)
    # a starting controller gives the agents of nodes that were up before it this long to register again
    # before it takes the nodes down and fails them over (unset: E3_DOWN_AFTER_MS); `e3 up` sets it
    resume_grace_ms: int | None = Field(default=None, alias="E3_RESUME_GRACE_MS", ge=1)
    # The data-plane orchestrator (docs/orchestrator.md): `migrate` acts on what it detects, `observe`
    # only records detections and decisions as events, `off` judges nothing.
    orchestrator: Literal["migrate", "observe", "off"] = Field(default="migrate", alias="E3_ORCHESTRATOR")
    # a decision is made on the cluster's view kept this long; older (up to the stale age) it is still used while a
    # new one is read in the background; older than that it is read first (controller/cluster_view_cache.py)
    orchestrator_view_fresh_ms: int = Field(default=1000, alias="E3_ORCHESTRATOR_VIEW_FRESH_MS", ge=0, le=600_000)
    orchestrator_view_stale_ms: int = Field(default=10_000, alias="E3_ORCHESTRATOR_VIEW_STALE_MS", ge=0,
                                            le=3_600_000)
    detect_window: int = Field(default=3, alias="E3_DETECT_WINDOW", ge=1)  # heartbeats a condition must last
    detect_queue_packets: int = Field(default=32, alias="E3_DETECT_QUEUE_PACKETS", ge=2)  # a standing queue
    detect_overload: float = Field(default=0.20, alias="E3_DETECT_OVERLOAD", gt=0, le=10)  # exec time over baseline
    detect_cooldown_s: float = Field(default=5.0, alias="E3_DETECT_COOLDOWN_S", ge=0)
    # heartbeats with traffic an instance's execution-time baseline needs before it is judged (docs/orchestrator.md)
    detect_warmup: int = Field(default=20, alias="E3_DETECT_WARMUP", ge=1)
    # the overload noise floor (docs/orchestrator.md): exec time also this many us above the baseline, unless
    # the NIC's queue reached E3_DETECT_OVERLOAD_QUEUE packets in the last E3_DETECT_WINDOW heartbeats
    detect_overload_floor_us: float = Field(default=1.0, alias="E3_DETECT_OVERLOAD_FLOOR_US", ge=0)
    detect_overload_queue: int = Field(default=4, alias="E3_DETECT_OVERLOAD_QUEUE", ge=1)
    # `e3 up` also starts a cluster and the demo on it: `rack` (an emulated rack of rack_servers
    # rack_type servers, needs root), `local` (local_servers beefy servers, one e3-agent each on
    # loopback), `auto` (rack where possible, else local, saying why) or `none`.
    cluster_mode: Literal["auto", "rack", "local", "none"] = Field(default="auto", alias="E3_CLUSTER_MODE")
    rack_servers: int = Field(default=3, alias="E3_RACK_SERVERS", ge=1, le=50)
    rack_type: Literal["type1-smartnic", "type2-smartnic"] = Field(default="type1-smartnic", alias="E3_RACK_TYPE")
    local_servers: int = Field(default=2, alias="E3_LOCAL_SERVERS", ge=0, le=64)
    demo_rate: float = Field(default=200.0, alias="E3_DEMO_RATE", ge=0)  # requests/s of the demo's load (0: none)
    # the cluster's first server gets an emulated BMC and IPMI comes first (e3/emulation/emulated_bmc.py)
    emulated_bmc: bool = Field(default=False, alias="E3_EMULATED_BMC")
    # The API under load (docs/reliability.md, "API under concurrency and load"). api_db_connections is the
    # request pool's size and so the number of requests served at once (e3/api/admission.py derives the
    # thread limit from it); up to api_queue more wait at most api_queue_wait_s for one, any beyond get a 503.
    # 8: more requests at once than that only contend for the one interpreter lock (measured with `e3 bench api`).
    api_db_connections: int = Field(default=8, alias="E3_API_DB_CONNECTIONS", ge=1, le=500)
    api_queue: int = Field(default=128, alias="E3_API_QUEUE", ge=0, le=100_000)
    api_queue_wait_s: float = Field(default=5.0, alias="E3_API_QUEUE_WAIT_S", gt=0, le=300)
    # `e3 api` processes sharing the port (uvicorn workers), each with the limits above of its own.
    api_workers: int = Field(default=1, alias="E3_API_WORKERS", ge=1, le=64)
    # Every session of an API request: a write waiting this long for a row lock answers 409, a statement
    # running this long 503, a transaction left idle this long is ended by Postgres (0 turns one off).
    db_lock_timeout_ms: int = Field(default=3000, alias="E3_DB_LOCK_TIMEOUT_MS", ge=0)
    db_statement_timeout_ms: int = Field(default=30_000, alias="E3_DB_STATEMENT_TIMEOUT_MS", ge=0)
    db_idle_in_transaction_timeout_ms: int = Field(default=60_000, alias="E3_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS",
                                                   ge=0)
    # POST /clusters with more servers than this answers 202 and a worker builds the cluster (a job).
    cluster_job_servers: int = Field(default=2000, alias="E3_CLUSTER_JOB_SERVERS", ge=1)

    @field_validator("database_url")
    @classmethod
    def _psycopg_driver(cls, url: str | None) -> str | None:
        # Accept plain postgres:// URLs (docker, managed services) and use psycopg 3 for them.
        if url is None:
            return None
        for prefix in ("postgresql://", "postgres://"):
            if url.startswith(prefix):
                return "postgresql+psycopg://" + url[len(prefix):]
        if not url.startswith("postgresql+psycopg://"):
            raise ValueError("DATABASE_URL must be a postgresql:// URL")
        return url

    @field_validator("controller_addresses")
    @classmethod
    def _controller_list(cls, value: str | None) -> str | None:
        if value is None:
            return None
        addresses = [a.strip() for a in value.split(",")]
        # the agent's own limits (agents/e3-agent/src/ctlist.h), refused here before any agent starts
        if len(addresses) > MAX_CONTROLLER_ADDRESSES:
            raise ValueError(f"at most {MAX_CONTROLLER_ADDRESSES} addresses")
        for index, address in enumerate(addresses, 1):
            if not address:
                raise ValueError(f"address {index} is empty")
            host, _, port = address.rpartition(":")
            if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
                raise ValueError(f"address {index} ({address!r}) is not host:port")
            if len(address) > MAX_CONTROLLER_ADDRESS_LEN:
                raise ValueError(f"address {index} is longer than {MAX_CONTROLLER_ADDRESS_LEN} characters")
        return ",".join(addresses)

    @model_validator(mode="after")
    def _down_after_suspect(self) -> "Settings":
        if self.down_after_ms <= self.heartbeat_period_ms * self.suspect_after_missed:
            raise ValueError("E3_DOWN_AFTER_MS must exceed E3_HEARTBEAT_PERIOD_MS x E3_SUSPECT_AFTER_MISSED")
        if self.lost_grace_ms > self.down_after_ms:
            raise ValueError("E3_LOST_GRACE_MS must not exceed E3_DOWN_AFTER_MS")
        if (self.controller_tls_cert is None) != (self.controller_tls_key is None):
            raise ValueError("E3_CONTROLLER_TLS_CERT and E3_CONTROLLER_TLS_KEY go together: set both or neither")
        if self.controller_port + self.controllers - 1 > 65535:
            raise ValueError(f"E3_CONTROLLERS={self.controllers} from E3_CONTROLLER_PORT={self.controller_port} "
                             f"needs ports past 65535")
        if self.orchestrator_view_stale_ms < self.orchestrator_view_fresh_ms:
            raise ValueError("E3_ORCHESTRATOR_VIEW_STALE_MS must not be less than E3_ORCHESTRATOR_VIEW_FRESH_MS")
        return self

    @property
    def agent_tls_ca(self) -> Path | None:
        """What the agents E3 starts trust for the controller (None: they speak plaintext)."""
        return self.controller_tls_ca or self.controller_tls_cert

    @property
    def agent_controllers(self) -> str:
        """The --controller of the agents E3 starts: E3_CONTROLLER_ADDRESSES, else the controllers `e3 up` starts."""
        return self.controller_addresses or ",".join(f"{self.controller_host}:{port}"
                                                     for port in self.controller_ports)

    @property
    def controller_ports(self) -> list[int]:
        """The ports of the E3_CONTROLLERS controllers `e3 up` starts."""
        return [self.controller_port + i for i in range(self.controllers)]

    @property
    def env_file(self) -> Path:
        return self.data_dir / "env"


@cache
def get_settings() -> Settings:
    return Settings()
