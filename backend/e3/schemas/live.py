"""The live channel's messages (e3.live.hub, docs/live.md): the same JSON over WebSocket, SSE and polling."""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from e3.heartbeat_record import INSTANCE_FIELDS, NODE_FIELDS
from e3.schemas.record_fields import live_instance_fields, live_node_fields

PowerSource = Literal["rapl", "ipmi", "ipmi-split", "model"]


class LivePower(BaseModel):
    watts: float
    source: PowerSource


LiveInstanceFigures = create_model(
    "LiveInstanceFigures", __module__=__name__, id=(str, ...),
    requests_per_s=(float | None, Field(description="over the last second of heartbeats; null until two came")),
    **live_instance_fields(INSTANCE_FIELDS))


class _LiveNodeHead(BaseModel):
    id: str
    name: str
    kind: Literal["host", "smartnic"]
    server: str
    rack: str
    state: Literal["up", "suspect", "down"]
    state_since: str | None
    ts: str | None = Field(description="when the latest heartbeat was measured (ISO 8601); null: none yet")
    age_ms: int | None = Field(description="server_time - ts")
    stale: bool = Field(description="no heartbeat for more than stale_after_ms: the figures are not current")


# a node: the fields above, then its latest heartbeat's node fields (power nested) and instances
LiveNode = create_model("LiveNode", __base__=_LiveNodeHead, __module__=__name__, **live_node_fields(NODE_FIELDS),
                        power=(LivePower | None, ...), instances=(list[LiveInstanceFigures], ...))


class LiveInstance(BaseModel):
    id: str
    node_id: str
    deployment_id: str
    application: str
    dag_node: str
    service: str
    role: Literal["primary", "backup"]
    shard: int
    replica: int


class LiveAggregatePower(BaseModel):
    watts: float | None
    source: Literal["rapl", "ipmi", "ipmi-split", "model", "mixed"] | None
    sources: list[PowerSource]


class LiveLatency(BaseModel):
    avg_us: float | None = Field(description="measured_at_entry: the mean latency of the requests the entry "
                                             "primaries answered OK in the window, arrival to reply (downstream "
                                             "calls included, not the client's network); exec_time_path: the "
                                             "sum of mean execution times along the DAG's slowest path (a "
                                             "lower bound: no network, no queueing)")
    p99_us: float | None = Field(description="measured_at_entry: the highest per-heartbeat p99 in the window, an "
                                             "upper bound of the window's p99; null for exec_time_path")
    p99_is_upper_bound: bool
    basis: Literal["measured_at_entry", "exec_time_path"]
    exec_path_us: float | None = Field(description="the execution-time path, in either case")


class LivePredicted(BaseModel):
    throughput_rps: float | None
    avg_latency_ms: float | None
    p99_latency_ms: float | None
    joules_per_request: float | None
    source: str = Field(description="model: the cost model's prediction for the placement")


class LiveDagNode(BaseModel):
    """One DAG node of a live application (e3.live.dag_figures)."""

    dag_node: str
    instances: dict[str, int] = Field(description="its instances by platform: host, smartnic (unknown: a node the "
                                                  "channel does not know)")
    primaries: int
    instances_stale: int = Field(description="its instances on nodes not reporting (left out of the figures)")
    throughput_rps: float | None = Field(description="requests/s its primaries completed")
    avg_latency_us: float | None = Field(description="request-weighted mean of its primaries' measured latency, "
                                                     "arrival to reply (its downstream calls included)")
    p99_latency_us: float | None = Field(description="the highest per-heartbeat p99 among its primaries: an upper "
                                                     "bound")
    joules_per_request: float | None = Field(description="the watts attributed to its instances over its throughput")
    cpu_share: float | None = Field(description="mean CPU share of its primaries, 0..1")
    queue_max: int | None = Field(description="the deepest queue of the nodes its primaries run on, packets")


class LiveEdge(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    from_: str = Field(alias="from")
    to: str
    rate_rps: float | None = Field(description="requests/s along it: its target's throughput, split by its callers' "
                                               "throughputs when it has several (an estimate: the agents count "
                                               "requests per instance, not per caller)")
    basis: Literal["target_throughput", "split_by_caller_rate", "not_measured"]
    per_request: float | None = Field(description="its rate over its source's: calls a request of the source makes "
                                                  "along it")


class LiveApplication(BaseModel):
    deployment_id: str
    application: str
    version: int
    instances: int
    nodes_stale: int = Field(description="nodes of its instances not reporting (left out of the figures)")
    complete: bool
    throughput_rps: float | None = Field(description="requests/s completed by the primaries of its entry DAG nodes")
    latency: LiveLatency
    power: LiveAggregatePower
    joules_per_request: float | None
    predicted: LivePredicted | None
    dag_nodes: list[LiveDagNode] = Field(default_factory=list, description="per DAG node, in the spec's order")
    edges: list[LiveEdge] = Field(default_factory=list, description="per edge, the direction requests flow")


class LiveTotals(BaseModel):
    nodes: int
    nodes_reporting: int
    nodes_stale: int
    complete: bool
    power: LiveAggregatePower
    throughput_rps: float | None
    requests_per_joule: float | None


class LiveCluster(BaseModel):
    id: str
    name: str


class LiveMessage(BaseModel):
    """A snapshot (every node, `cluster` and `instances` set) or an update (the nodes changed since the
    previous message; applications and totals always whole)."""

    type: Literal["snapshot", "update"]
    seq: int = Field(description="1, 2, ... per connection")
    server_time: str = Field(description="when the message was made (ISO 8601, UTC)")
    stale_after_ms: int
    nodes: list[LiveNode]
    applications: list[LiveApplication]
    totals: LiveTotals
    cluster: LiveCluster | None = None
    instances: list[LiveInstance] | None = None


class LiveHistoryNode(BaseModel):
    node_id: str
    points: list[tuple[int, float | None, float | None, float | None, str]] = Field(
        description="per step (`step_s`): [its end in ms since the epoch, mean queue depth (packets), mean CPU "
                    "utilisation (0..1), mean watts, their source (`mixed` when they differ within the step)]")


class LiveHistoryApplication(BaseModel):
    deployment_id: str
    application: str
    points: list[tuple[int, float, float | None, float | None]] = Field(
        description="per step (`step_s`): [its end in ms, requests/s its entry primaries completed, their mean "
                    "latency µs (null: none answered), the highest p99 µs (an upper bound)]")


class LiveHistory(BaseModel):
    """The last minutes (up to 7 days) of the live channel's figures, from the stored 1 s rollups merged into
    steps of `step_s` seconds, at most 720 over the window (e3.live.recent_history)."""

    cluster: str
    since: datetime
    minutes: int
    step_s: int
    nodes: list[LiveHistoryNode]
    nodes_left_out: int = Field(description="nodes past the first 500 (by name), whose series are not given")
    applications: list[LiveHistoryApplication]
    totals: list[tuple[int, float, float | None, float | None]] = Field(
        description="per step (`step_s`): [its end in ms, the nodes' watts summed, the applications' requests/s "
                    "summed, requests per joule]")
