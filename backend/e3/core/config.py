"""One Settings object, read from the environment (prefix-free names for the URLs), validated at start-up."""

from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


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
    heartbeat_retention_days: int = Field(default=7, alias="E3_HEARTBEAT_RETENTION_DAYS", ge=1)
    # The controller (gRPC, for agents) and its failure detector.
    controller_host: str = Field(default="127.0.0.1", alias="E3_CONTROLLER_HOST")
    controller_port: int = Field(default=50051, alias="E3_CONTROLLER_PORT", ge=1, le=65535)
    heartbeat_period_ms: int = Field(default=50, alias="E3_HEARTBEAT_PERIOD_MS", ge=1, le=60_000)
    suspect_after_missed: int = Field(default=3, alias="E3_SUSPECT_AFTER_MISSED", ge=1)
    down_after_ms: int = Field(default=1000, alias="E3_DOWN_AFTER_MS", ge=1)
    # an agent whose connection broke (process killed) is down this long after, unless it comes back
    lost_grace_ms: int = Field(default=250, alias="E3_LOST_GRACE_MS", ge=1)
    # a starting controller gives the agents of nodes that were up before it this long to register again
    # before it takes the nodes down and fails them over (unset: E3_DOWN_AFTER_MS); `e3 up` sets it
    resume_grace_ms: int | None = Field(default=None, alias="E3_RESUME_GRACE_MS", ge=1)
    # The data-plane orchestrator (docs/orchestrator.md): `migrate` acts on what it detects, `observe`
    # only records detections and decisions as events, `off` judges nothing.
    orchestrator: Literal["migrate", "observe", "off"] = Field(default="migrate", alias="E3_ORCHESTRATOR")
    detect_window: int = Field(default=3, alias="E3_DETECT_WINDOW", ge=1)  # heartbeats a condition must last
    detect_queue_packets: int = Field(default=32, alias="E3_DETECT_QUEUE_PACKETS", ge=2)  # a standing queue
    detect_overload: float = Field(default=0.20, alias="E3_DETECT_OVERLOAD", gt=0, le=10)  # exec time over baseline
    detect_cooldown_s: float = Field(default=5.0, alias="E3_DETECT_COOLDOWN_S", ge=0)
    # `e3 up` also starts a cluster and the demo on it: `rack` (an emulated rack of rack_servers
    # rack_type servers, needs root), `local` (local_servers beefy servers, one e3-agent each on
    # loopback), `auto` (rack where possible, else local, saying why) or `none`.
    cluster_mode: Literal["auto", "rack", "local", "none"] = Field(default="auto", alias="E3_CLUSTER_MODE")
    rack_servers: int = Field(default=3, alias="E3_RACK_SERVERS", ge=1, le=50)
    rack_type: Literal["type1-smartnic", "type2-smartnic"] = Field(default="type1-smartnic", alias="E3_RACK_TYPE")
    local_servers: int = Field(default=2, alias="E3_LOCAL_SERVERS", ge=0, le=64)
    demo_rate: float = Field(default=200.0, alias="E3_DEMO_RATE", ge=0)  # requests/s of the demo's load (0: none)

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

    @model_validator(mode="after")
    def _down_after_suspect(self) -> "Settings":
        if self.down_after_ms <= self.heartbeat_period_ms * self.suspect_after_missed:
            raise ValueError("E3_DOWN_AFTER_MS must exceed E3_HEARTBEAT_PERIOD_MS x E3_SUSPECT_AFTER_MISSED")
        if self.lost_grace_ms > self.down_after_ms:
            raise ValueError("E3_LOST_GRACE_MS must not exceed E3_DOWN_AFTER_MS")
        return self

    @property
    def env_file(self) -> Path:
        return self.data_dir / "env"


@cache
def get_settings() -> Settings:
    return Settings()
