"""The controller's families reach /metrics: heartbeats a real controller takes are in the API's answer under
the cluster's name within an export, instances under their application and DAG node once a step closed, and
a controller that stops takes them away (docs/energy.md, "Prometheus metrics")."""

import time

import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families
from test_energy_rollups import beat, close_steps, placed, register, stream  # noqa: F401 (placed: a fixture)

from e3.core.config import get_settings
from e3.metrics import controller_key


def _samples(client) -> dict[tuple, float]:
    text = client.get("/metrics").text
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for f in text_string_to_metric_families(text) for s in f.samples}


def test_a_nodes_heartbeats_are_in_metrics_under_its_clusters_name_until_the_controller_stops(
        start_controller, agent_token, lab, client):
    import grpc

    from e3.rpc.pb import agent_pb2_grpc

    controller = start_controller(metrics_interval_ms=60_000)  # exported here, on demand
    try:
        with grpc.insecure_channel(f"127.0.0.1:{controller.port}") as channel:
            stub = agent_pb2_grpc.AgentServiceStub(channel)
            node = lab[0]
            node_id = register(stub, agent_token, node["name"], "metrics-agent", "lab")
            now = time.time()
            stream(stub, agent_token, "metrics-agent", [beat(node_id, now - 1.0, 30.0, []),
                                                         beat(node_id, now - 0.5, 50.0, [])])
        controller.call(controller.controller.metrics.export_once())
        samples = _samples(client)
        labels = tuple(sorted(dict(cluster="lab", node=node["name"], kind=node["kind"], source="model").items()))
        assert samples[("e3_node_joules_total", labels)] == pytest.approx(50.0 * 0.5)
        assert samples[("e3_node_power_watts", labels)] == 50.0
        assert samples[("e3_heartbeats_received_total", ())] == 2
        ttl_ms = redis.Redis.from_url(get_settings().redis_url).pttl(controller_key(controller.controller.hub.lease.name))
        assert 0 < ttl_ms <= 3 * 60_000  # a controller that dies: gone within three intervals
    finally:
        controller.stop()
    assert ("e3_heartbeats_received_total", ()) not in _samples(client)  # one that stops: gone at once


def test_instances_are_in_metrics_under_their_application_once_a_step_closed(controller, stub, agent_token, placed,
                                                                              client):  # noqa: F811
    (gw, gw_node, _), (store, store_node, _) = placed["gw"], placed["store"]
    agent = "metrics-instances"
    node_ids = {name: register(stub, agent_token, name, agent, "meter") for name in {gw_node, store_node}}
    start = time.time() - 40
    stream(stub, agent_token, agent, [beat(node_ids[gw_node], start + k * 0.05, 40.0, [(gw, 7, 0.25)])
                                      for k in range(5)]
           + [beat(node_ids[store_node], start + k * 0.05, 30.0, [(store, 5, 0.1)]) for k in range(5)])
    close_steps(controller)
    controller.call(controller.controller.metrics.export_once())
    samples = _samples(client)
    ledger = controller.controller.hub.energy
    for instance, dag_node, node, entry, requests in ((gw, "gw", gw_node, "true", 35), (store, "store", store_node,
                                                                                       "false", 25)):
        labels = dict(cluster="meter", application="metered", dag_node=dag_node, instance=instance, node=node)
        assert samples[("e3_requests_total", tuple(sorted(dict(labels, entry=entry).items())))] == requests
        joules = ledger.instances[instance].joules_by_source["model"]
        assert samples[("e3_instance_joules_total", tuple(sorted(dict(labels, source="model").items())))] == \
            pytest.approx(joules)
