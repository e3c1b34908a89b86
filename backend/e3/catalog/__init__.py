"""The catalogue: the paper's 16 microservice types, 5 server types and 8 applications, as data.

Figures come from the paper's Tables 1-4 (copied into the JSON files beside this module);
per-instance reservations (memory, cores, bandwidth) are E3's choices, documented in
docs/catalog.md. Each service's configuration is described by a JSON Schema in
config_schemas/<name>.json (checked by e3.schemas.service_config). Everything here is read-only
and loaded once.
"""

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml

PLATFORMS = ("host", "smartnic")
CALIBRATION_PLATFORMS = ("host_linux", "host_dpdk", "smartnic")


@dataclass(frozen=True)
class Calibration:
    """Peak behaviour of one microservice on one platform, paper Table 1 (512 B requests)."""

    rps: float  # requests per second at peak, whole platform
    active_watts: float  # wall power at peak minus idle, W
    cores: int  # cores used at peak
    avg_latency_ms: float
    p99_latency_ms: float
    requests_per_joule: float


@dataclass(frozen=True)
class ServiceType:
    name: str
    description: str
    stateful: bool
    smartnic_accelerators: str | None
    memory_mb: int  # reserved per instance (chosen, not from the paper)
    cpu_cores: float  # reserved per instance, fraction of a core (chosen)
    bandwidth_mbps: int  # reserved per instance (chosen)
    platforms: tuple[str, ...]  # where an instance may run
    calibration: dict[str, Calibration]  # keyed by CALIBRATION_PLATFORMS
    config_schema: dict  # JSON Schema of the node's `config` (config_schemas/<name>.json)

    @property
    def smartnic_speedup(self) -> float:
        """Requests per joule on the SmartNIC over the host (DPDK): > 1 means it suits the SmartNIC."""
        return self.calibration["smartnic"].requests_per_joule / self.calibration["host_dpdk"].requests_per_joule

    @property
    def suits_smartnic(self) -> bool:
        return "smartnic" in self.platforms and self.smartnic_speedup > 1.0


@dataclass(frozen=True)
class ServerType:
    name: str
    cost_usd: int
    host_cores: int
    host_core_class: str  # beefy | wimpy
    host_memory_gb: int
    smartnics: int
    smartnic_cores: int  # per SmartNIC
    smartnic_memory_gb: int  # per SmartNIC
    memory_gb: int  # whole server, as Table 4
    bandwidth_gbps: int  # whole server
    idle_watts: int
    peak_watts: int
    hw: str

    @property
    def smartnic_bandwidth_gbps(self) -> float:
        """The server's ports are on its SmartNICs, split evenly."""
        return self.bandwidth_gbps / self.smartnics if self.smartnics else 0.0


@dataclass(frozen=True)
class ApplicationInfo:
    name: str
    description: str
    instances: int  # Table 3's N: shards x (1 + replicas), summed
    services: tuple[str, ...]


def _read_json(name: str) -> dict:
    return json.loads(resources.files(__package__).joinpath(name).read_text())


@cache
def service_types() -> dict[str, ServiceType]:
    out = {}
    for s in _read_json("microservices.json")["services"]:
        calibration = {p: Calibration(**c) for p, c in s.pop("calibration").items()}
        out[s["name"]] = ServiceType(**{**s, "platforms": tuple(s["platforms"])}, calibration=calibration,
                                     config_schema=_read_json(f"config_schemas/{s['name']}.json"))
    return out


@cache
def server_types() -> dict[str, ServerType]:
    return {s["name"]: ServerType(**s) for s in _read_json("server_types.json")["server_types"]}


@cache
def applications() -> dict[str, ApplicationInfo]:
    apps = _read_json("applications.json")["applications"]
    return {
        name: ApplicationInfo(name=name, description=a["description"], instances=a["instances"],
                              services=tuple(a["services"]))
        for name, a in apps.items()
    }


@cache
def _template_texts() -> dict[str, str]:
    folder = resources.files(__package__).joinpath("templates")
    return {f.name.removesuffix(".yaml"): f.read_text() for f in folder.iterdir() if f.name.endswith(".yaml")}


def template_names() -> list[str]:
    return sorted(_template_texts())


def template_yaml(name: str) -> str:
    """The paper application `name` as a DAG spec document (YAML text); KeyError if unknown."""
    return _template_texts()[name]


def template(name: str) -> dict:
    """The paper application `name` as a DAG spec document (a fresh dict each call)."""
    return yaml.safe_load(template_yaml(name))


@dataclass(frozen=True)
class NodeShape:
    """One computing node of a server type: its host (index 0) or a SmartNIC (index 1..)."""

    index: int
    suffix: str  # "host" or "nic<i>", appended to the server's name
    kind: str  # host | smartnic
    core_class: str  # beefy | wimpy
    cores: float
    memory_mb: int
    bandwidth_mbps: int


def computing_nodes(server_type: str) -> list[NodeShape]:
    """The computing nodes a server of `server_type` has (see docs/catalog.md for the rules)."""
    return server_type_nodes(server_types()[server_type])


def server_type_nodes(t: ServerType) -> list[NodeShape]:
    """The computing nodes of a server of type `t`, in or out of the catalogue (a custom type's too)."""
    nodes = [NodeShape(0, "host", "host", t.host_core_class, float(t.host_cores), t.host_memory_gb * 1024,
                       int(t.bandwidth_gbps * 1000))]
    for i in range(t.smartnics):
        nodes.append(NodeShape(i + 1, f"nic{i}", "smartnic", "wimpy", float(t.smartnic_cores),
                               t.smartnic_memory_gb * 1024, int(t.smartnic_bandwidth_gbps * 1000)))
    return nodes
