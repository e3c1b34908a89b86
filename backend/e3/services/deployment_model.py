"""The cost model's figures for a deployment's current placement at a given entry load: what the live dashboard
shows beside the measured figures, at the load it measures, so that the two are the same quantity.

The placement's stored prediction (deployments.run_placement) is the model at the knee: at the demo's 100
requests/s it says 21,701 requests/s and 0.017 J/request beside a measured 3.2 J/request, 190x apart, mostly
because the cluster's idle power is shared over a knee's worth of requests. Here the model is evaluated at the
offered load asked (the dashboard asks the measured one), and its power is charged to the application by the
rule the measured figure follows (e3.energy.attribution, as e3.live.aggregate applies it): on each node that runs
one of its instances, the node's modelled idle watts are shared among all the node's instances by their reserved
cores, and the node's modelled power above idle, all of it from this application's load, goes to this
application. The knee and the saturation rate come with it, as the placement's capacity.
"""

import uuid

from sqlalchemy import select
from sqlalchemy.orm import Session

from e3.core.errors import Conflict
from e3.energy.attribution import InstanceUsage, NodeInterval, attribute
from e3.energy.joules import joules_per_request
from e3.models import ApplicationVersion, Instance
from e3.placement import problem_from_document
from e3.placement.cost_model import SOURCE, predict
from e3.placement.model import Placement
from e3.services.capacities import cluster_capacities
from e3.services.deployments import get_deployment
from e3.services.energy_labels import idle_watts


def model_at_load(session: Session, deployment_id: uuid.UUID, offered_rps: float | None) -> dict:
    """The model's throughput, latencies and power of the deployment's placement at `offered_rps` entry requests/s
    (None: at the knee). Conflict when it has no placement yet, or an instance is on a node that is down."""
    deployment = get_deployment(session, deployment_id)
    instances = list(session.scalars(select(Instance).where(Instance.deployment_id == deployment.id)))
    if not instances:
        raise Conflict(f"deployment {deployment_id} is {deployment.state}: it has no placement to model",
                       code="not_placed")
    spec = session.get(ApplicationVersion, deployment.application_version_id).spec
    problem = problem_from_document(spec, anti_affinity=deployment.anti_affinity)
    placement = Placement("current", {(i.dag_node, i.shard, i.replica): i.node_id for i in instances})
    try:
        prediction = predict(problem, cluster_capacities(session, deployment.cluster_id), placement,
                             offered_rps=offered_rps, count_empty_servers=False)
    except ValueError as exc:  # an instance on a node that is down (until its failover places it again)
        raise Conflict(f"deployment {deployment_id} cannot be modelled now: {exc} (a node that is down?)",
                       code="not_modelled") from None
    watts = attributed_watts(session, {i.id for i in instances}, {n.id: n.power_watts for n in prediction.nodes})
    return dict(deployment_id=deployment.id, offered_rps=offered_rps, throughput_rps=prediction.throughput_rps,
                knee_rps=prediction.knee_rps, capacity_rps=prediction.capacity_rps, saturated=prediction.saturated,
                avg_latency_ms=prediction.avg_latency_ms, p99_latency_ms=prediction.p99_latency_ms,
                power_watts=watts, joules_per_request=joules_per_request(watts, prediction.throughput_rps),
                servers_power_watts=prediction.power_watts, source=SOURCE)


def attributed_watts(session: Session, own: set[uuid.UUID], active_watts: dict[uuid.UUID, float]) -> float:
    """The modelled watts charged to the instances `own` (one deployment's): on each node running one of them, its
    idle watts by reserved cores among every instance there, and its `active_watts` (above idle: this deployment's
    load) to them."""
    on_nodes = list(session.scalars(select(Instance).where(
        Instance.node_id.in_(select(Instance.node_id).where(Instance.id.in_(own))))))
    idle = idle_watts(session, {str(i.node_id) for i in on_nodes})
    by_node: dict[uuid.UUID, list[Instance]] = {}
    for instance in on_nodes:
        by_node.setdefault(instance.node_id, []).append(instance)
    total = 0.0
    for node_id, there in by_node.items():
        mine = [i for i in there if i.id in own]
        usages = [InstanceUsage(str(i.id), 1.0 / len(mine) if i.id in own else 0.0, reserved_cores=i.cpu_cores)
                  for i in there]
        node_idle = idle.get(str(node_id), 0.0)
        energy = attribute(NodeInterval.from_watts(str(node_id), node_idle + active_watts.get(node_id, 0.0), 1.0,
                                                   node_idle, SOURCE, usages, cpu_utilization=None))
        total += sum(e.joules for e in energy.instances if uuid.UUID(e.instance_id) in own)  # over 1 s: watts
    return total
