"""The cost model, pure: Figure 3's RTT ratios, Table 1 calibration, knees, power rules, and provenance."""

import json
import random
from collections import defaultdict

import pytest

from e3 import catalog
from e3.placement import cost_model, problem_from_document
from e3.placement.cost_model import compare, edge_rtt_us, predict
from e3.placement.instances import DagNodeDemand, expand_instances
from e3.placement.model import LEVEL_POD, LEVEL_SAME_NODE, NodeCapacity, Placement, PlacementProblem, level_between
from e3.placement.network_model import pair_levels, through_ports


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: the cost model is pure and needs no database."""


def _server(s, server_type="type1-smartnic", rack="r0", pod=0):
    st = catalog.server_types()[server_type]
    nodes = [NodeCapacity(f"s{s}/host", f"s{s}/host", "host", f"s{s}", rack, st.host_cores, st.host_memory_gb * 1024,
                          st.bandwidth_gbps * 1000, pod=pod, server_type=server_type, core_class=st.host_core_class)]
    for k in range(st.smartnics):
        nodes.append(NodeCapacity(f"s{s}/nic{k}", f"s{s}/nic{k}", "smartnic", f"s{s}", rack, st.smartnic_cores,
                                  st.smartnic_memory_gb * 1024, int(st.smartnic_bandwidth_gbps * 1000), pod=pod,
                                  server_type=server_type, core_class="wimpy"))
    return nodes


def _cluster(n, server_type="type1-smartnic"):
    return [node for s in range(n) for node in _server(s, server_type)]


def _problem(nodes, edges=()):
    return PlacementProblem(expand_instances([DagNodeDemand(*n) for n in nodes], catalog.service_types()),
                            list(edges))


def _template(name):
    return problem_from_document(catalog.template(name))


def _spread(problem, servers, kind_of):
    """Shard k's replica r on server (k + r) mod n, on the node kind_of(service) picks ('host' or 'nic0')."""
    return Placement(algorithm="manual", assignments={
        i.key: f"s{(i.shard + i.replica) % servers}/{kind_of(i.service)}" for i in problem.instances})


def _by_id(prediction):
    return {n.id: n for n in prediction.nodes}


def test_figure3_ratios_smartnic_host_and_smartnic_smartnic_rtt_below_host_host_dpdk():
    s0, s1 = _server(0), _server(1)
    host_host = edge_rtt_us(s0[0], s1[0])
    assert host_host == cost_model.HOST_HOST_RTT_US
    assert 1 - edge_rtt_us(s0[1], s0[0]) / host_host == pytest.approx(0.833)  # SmartNIC -> its host, PCIe
    assert 1 - edge_rtt_us(s0[1], s1[1]) / host_host == pytest.approx(0.862)  # SmartNIC -> SmartNIC via the ToR
    far = _server(2, rack="r1")
    other_pod = _server(3, rack="r9", pod=1)
    assert edge_rtt_us(s0[0], s0[0]) < edge_rtt_us(s0[1], s0[0]) < host_host < edge_rtt_us(s0[0], far[0]) \
        < edge_rtt_us(s0[0], other_pod[0])


def test_co_located_edge_is_cheaper_than_a_cross_rack_one():
    nodes = _server(0) + _server(1, rack="r1")
    problem = _problem([("flow", "flow_monitor", 1, 0, "any"), ("ipsec", "ipsec", 1, 0, "any")], [("flow", "ipsec")])
    together = predict(problem, nodes, Placement("manual", {("flow", 0, 0): "s0/host", ("ipsec", 0, 0): "s0/host"}),
                       offered_rps=10_000)
    apart = predict(problem, nodes, Placement("manual", {("flow", 0, 0): "s0/host", ("ipsec", 0, 0): "s1/host"}),
                    offered_rps=10_000)
    assert together.edges[0].level == LEVEL_SAME_NODE
    assert apart.edges[0].level == LEVEL_POD
    assert together.edges[0].latency_us < apart.edges[0].latency_us
    assert together.avg_latency_ms < apart.avg_latency_ms


def test_a_service_alone_on_a_host_peaks_at_its_table1_rate_and_latency():
    ipsec = catalog.service_types()["ipsec"].calibration["host_dpdk"]
    problem = _problem([("i", "ipsec", 1, 0, "host")])
    p = predict(problem, _cluster(1, "beefy"), Placement("manual", {("i", 0, 0): "s0/host"}))
    assert p.knee_rps == pytest.approx(ipsec.rps)
    assert p.avg_latency_ms == pytest.approx(ipsec.avg_latency_ms)
    assert p.p99_latency_ms == pytest.approx(ipsec.p99_latency_ms)
    assert p.bottleneck.resource == "cores" and p.bottleneck.service == "ipsec"


def test_nfv_fin_on_smartnics_costs_fewer_joules_per_request_than_on_beefy_hosts():
    problem = _template("nfv-fin")
    on_nics = predict(problem, _cluster(3), _spread(problem, 3, lambda s: "nic0"))
    on_beefy = predict(problem, _cluster(3, "beefy"), _spread(problem, 3, lambda s: "host"))
    # Table 1: all three services have a higher requests-per-joule on the SmartNIC than on the host.
    assert all(catalog.service_types()[s].smartnic_speedup > 1 for s in ("flow_monitor", "ipsec", "nids"))
    assert on_nics.joules_per_request < on_beefy.joules_per_request
    assert on_nics.requests_per_joule > on_beefy.requests_per_joule
    assert {n.kind for n in on_nics.nodes} == {"smartnic"}


def test_top_ranker_on_smartnics_lowers_the_knee():
    problem = _template("rta-ptc")
    on_hosts = predict(problem, _cluster(3), _spread(problem, 3, lambda s: "host"))
    ranker_on_nics = predict(problem, _cluster(3),
                             _spread(problem, 3, lambda s: "nic0" if s == "top_ranker" else "host"))
    assert ranker_on_nics.knee_rps < on_hosts.knee_rps
    assert ranker_on_nics.bottleneck.service == "top_ranker"
    assert ranker_on_nics.bottleneck.node.endswith("nic0")


def test_utilisation_grows_linearly_with_offered_load():
    problem = _template("iot-ts")
    placement = _spread(problem, 3, lambda s: "host" if s in ("sql", "api_gateway") else "nic0")
    low, high = (predict(problem, _cluster(3), placement, offered_rps=r) for r in (1_000.0, 3_000.0))
    assert low.throughput_rps == 1_000.0 and high.throughput_rps == 3_000.0
    for node_id, node in _by_id(low).items():
        assert _by_id(high)[node_id].utilisation == pytest.approx(3 * node.utilisation)
    assert max(n.utilisation for n in low.nodes) == pytest.approx(1_000.0 / low.knee_rps)


def test_latency_rises_with_offered_load_towards_the_knee_and_is_unbounded_past_saturation():
    problem = _template("rta-shm")
    placement = _spread(problem, 3, lambda s: "host" if s == "sql" else "nic0")
    knee = predict(problem, _cluster(3), placement)
    curve = [predict(problem, _cluster(3), placement, offered_rps=f * knee.knee_rps)
             for f in (0.1, 0.5, 0.9, 1.0, 1.05)]
    avg = [p.avg_latency_ms for p in curve]
    p99 = [p.p99_latency_ms for p in curve]
    assert avg == sorted(avg) and len(set(avg)) == len(avg)
    assert p99 == sorted(p99) and len(set(p99)) == len(p99)
    assert all(a < b for a, b in zip(avg, p99))
    over = predict(problem, _cluster(3), placement, offered_rps=2 * knee.capacity_rps)
    assert over.saturated and over.avg_latency_ms is None
    assert over.throughput_rps == pytest.approx(knee.capacity_rps)


def test_smartnics_draw_full_power_at_any_load_hosts_in_proportion_and_idle_servers_count():
    nfv = _template("nfv-fin")
    nics = _spread(nfv, 2, lambda s: "nic0")  # a third server stays empty
    at_knee = predict(nfv, _cluster(3), nics)
    light = predict(nfv, _cluster(3), nics, offered_rps=0.1 * at_knee.knee_rps)
    assert light.power_watts == pytest.approx(at_knee.power_watts)  # no per-core sleep states on the LiquidIO
    table1 = max(catalog.service_types()[s].calibration["smartnic"].active_watts
                 for s in ("flow_monitor", "ipsec", "nids"))
    assert {n.power_watts for n in at_knee.nodes} == {table1}
    idle = catalog.server_types()["type1-smartnic"].idle_watts
    assert at_knee.power_watts == pytest.approx(3 * idle + 2 * table1)
    placed_only = predict(nfv, _cluster(3), nics, count_empty_servers=False)
    assert placed_only.power_watts == pytest.approx(at_knee.power_watts - idle)

    hosts = _spread(nfv, 3, lambda s: "host")
    half, full = (predict(nfv, _cluster(3, "beefy"), hosts, offered_rps=f * at_knee.knee_rps) for f in (0.25, 0.5))
    beefy = catalog.server_types()["beefy"]
    assert half.power_watts - 3 * beefy.idle_watts == pytest.approx((full.power_watts - 3 * beefy.idle_watts) / 2)


def test_backups_carry_no_request_load_but_wake_a_smartnic():
    problem = _problem([("kv", "kvs", 1, 1, "any")])
    p = predict(problem, _cluster(2), Placement("manual", {("kv", 0, 0): "s0/host", ("kv", 0, 1): "s1/nic0"}),
                offered_rps=100_000)
    nodes = _by_id(p)
    assert nodes["s1/nic0"].utilisation == 0.0
    assert nodes["s1/nic0"].power_watts == catalog.service_types()["kvs"].calibration["smartnic"].active_watts
    assert nodes["s0/host"].utilisation > 0


def test_a_network_bound_service_is_limited_by_the_server_ports():
    problem = _problem([("nat", "natv4", 1, 0, "host")])
    p = predict(problem, _cluster(1, "beefy"), Placement("manual", {("nat", 0, 0): "s0/host"}))
    assert p.bottleneck.resource == "ports"
    line_rate = catalog.server_types()["beefy"].bandwidth_gbps * 1e9 / ((512 + cost_model.WIRE_OVERHEAD_BYTES) * 8)
    assert p.knee_rps == pytest.approx(cost_model.PORT_KNEE_UTILISATION * line_rate)


def test_every_figure_carries_source_model_and_nothing_is_called_measured():
    problem = _template("iot-dh")
    p = predict(problem, _cluster(3), _spread(problem, 3, lambda s: "host" if s == "sql" else "nic0"))
    out = p.as_dict()
    text = json.dumps(out)  # JSON-ready
    assert "measured" not in text

    def walk(d):
        assert d["source"] == "model", d
        for v in d.values():
            for item in v if isinstance(v, list) else [v]:
                if isinstance(item, dict):
                    walk(item)

    walk(out)
    assert {"throughput_rps", "avg_latency_ms", "p99_latency_ms", "power_watts", "joules_per_request",
            "requests_per_joule", "bottleneck", "edges", "nodes"} <= out.keys()
    assert {"from", "to", "level", "latency_us", "source"} <= out["edges"][0].keys()
    assert {"id", "utilisation", "power_watts", "source"} <= out["nodes"][0].keys()
    table = compare({"nic": p, "host": predict(problem, _cluster(3), _spread(problem, 3, lambda s: "host"))})
    walk(table)


def test_compare_gives_ratios_against_the_baseline():
    problem = _template("nfv-fin")
    beefy = predict(problem, _cluster(3, "beefy"), _spread(problem, 3, lambda s: "host"))
    nics = predict(problem, _cluster(3), _spread(problem, 3, lambda s: "nic0"))
    table = compare({"beefy": beefy, "smartnic": nics})
    assert table["baseline"] == "beefy"
    base, other = table["rows"]
    assert base["requests_per_joule_ratio"] == pytest.approx(1.0)
    assert other["requests_per_joule_ratio"] == pytest.approx(nics.requests_per_joule / beefy.requests_per_joule)
    assert other["avg_latency_ratio"] == pytest.approx(nics.avg_latency_ms / beefy.avg_latency_ms)


def test_unplaced_instance_and_unknown_server_type():
    problem = _problem([("kv", "kvs", 2, 0, "any")])
    with pytest.raises(ValueError, match="kv \\(kvs\\) shard 1 primary"):
        predict(problem, _cluster(1), Placement("manual", {("kv", 0, 0): "s0/host"}))
    bare = [NodeCapacity("h", "h", "host", "x", "r", 12, 65536, 20000)]
    p = predict(problem, bare, Placement("manual", {("kv", 0, 0): "h", ("kv", 1, 0): "h"}))
    assert p.servers[0].server_type == "beefy" and p.servers[0].server_type_assumed


def test_edge_mix_from_counts_matches_every_shard_pair():
    rng = random.Random(7)
    nodes = [n for s in range(12) for n in _server(s, "type2-smartnic", rack=f"r{s // 3}", pod=s // 6)]
    for _ in range(20):
        src = [rng.choice(nodes) for _ in range(rng.randint(1, 9))]
        dst = [rng.choice(nodes) for _ in range(rng.randint(1, 9))]
        levels, total = pair_levels(src, dst)
        want, want_total = defaultdict(float), 0.0
        for a in src:
            for b in dst:
                want[level_between(a, b)] += 1
                want_total += edge_rtt_us(a, b)
        assert dict(levels) == dict(want)
        assert total == pytest.approx(want_total)
        ports = [sum(a.server != b.server or (a.id != b.id and a.kind == b.kind == "smartnic") for b in dst) / len(dst)
                 for a in src]
        assert through_ports(src, dst) == pytest.approx(ports)


def test_a_service_alone_reproduces_table1_on_every_platform_since_both_its_hops_are_network_io():
    for service, platform, node, server_type in (("kvs", "host_dpdk", "s0/host", "beefy"),
                                                 ("ipsec", "smartnic", "s0/nic0", "type1-smartnic")):
        row = catalog.service_types()[service].calibration[platform]
        problem = _problem([("x", service, 1, 0, "any")])
        p = predict(problem, _cluster(1, server_type), Placement("manual", {("x", 0, 0): node}), offered_rps=row.rps)
        cores = next(n.cpu_cores for n in _cluster(1, server_type) if n.id == node)
        # Table 1's rate keeps Table 1's cores at the knee (kvs's knee itself is set by the ports)
        assert _by_id(p)[node].utilisation == pytest.approx(row.cores / cores)
    # kvs, the lightest host_dpdk service, is all I/O: 2 messages x 0.50 us = 1.00 us per request
    assert cost_model.compute_s("kvs", "host_dpdk") == pytest.approx(0.0, abs=1e-12)
    assert 2 * cost_model.io_per_message_s("host_dpdk") == pytest.approx(2 / 2_005_000)


def test_a_co_located_pipeline_has_a_higher_knee_than_the_same_services_spread_over_nodes():
    problem = _problem([("a", "ddos", 1, 0, "any"), ("b", "natv4", 1, 0, "any"), ("c", "nids", 1, 0, "any")],
                       [("a", "b"), ("b", "c")])
    nodes = _cluster(3)
    together = predict(problem, nodes, Placement("manual", {("a", 0, 0): "s0/nic0", ("b", 0, 0): "s0/nic0",
                                                            ("c", 0, 0): "s0/nic0"}))
    apart = predict(problem, nodes, Placement("manual", {("a", 0, 0): "s0/nic0", ("b", 0, 0): "s1/nic0",
                                                         ("c", 0, 0): "s2/nic0"}))
    io = cost_model.io_per_message_s("smartnic")
    table1 = {s: catalog.service_types()[s].calibration["smartnic"] for s in ("ddos", "natv4", "nids")}
    # together: one core pool pays every service's compute, and I/O only at entry and exit
    per_request = sum(r.cores / r.rps for r in table1.values()) - 4 * io
    assert together.knee_rps == pytest.approx(12 / per_request)
    # apart: every hop is a network hop, so each node pays exactly its Table 1 cost; the slowest sets the knee
    assert apart.knee_rps == pytest.approx(min(r.rps * 12 / r.cores for r in table1.values()))
    assert _by_id(together)["s0/nic0"].utilisation == pytest.approx(1.0)
    # per node, co-location saves the I/O of the two internal hops
    single = {s: _by_id(predict(_problem([("x", s, 1, 0, "any")]), nodes,
                                Placement("manual", {("x", 0, 0): "s0/nic0"}), offered_rps=1e5))["s0/nic0"]
              for s in table1}
    at = predict(problem, nodes, Placement("manual", {("a", 0, 0): "s0/nic0", ("b", 0, 0): "s0/nic0",
                                                      ("c", 0, 0): "s0/nic0"}), offered_rps=1e5)
    assert _by_id(at)["s0/nic0"].utilisation == pytest.approx(
        sum(n.utilisation for n in single.values()) - 4 * io * 1e5 / 12)


def test_entry_shares_set_each_sources_load_so_applications_placed_together_keep_their_own():
    # Two single-node chains on one host: all the entry load on `a` loads the node with a's work only, as if
    # `b` were not there; the default splits the load evenly over both sources.
    problem = PlacementProblem(instances=expand_instances([
        DagNodeDemand(id="a", service="kvs", shards=1, replicas=0, platform="host", request_bytes=512),
        DagNodeDemand(id="b", service="bm25", shards=1, replicas=0, platform="host", request_bytes=512)],
        catalog.service_types()), edges=[])
    alone = PlacementProblem(instances=[i for i in problem.instances if i.dag_node == "a"], edges=[])
    node = NodeCapacity(id="h", name="h", kind="host", server="s", rack=0, cpu_cores=12, memory_mb=65536,
                        bandwidth_mbps=20000, server_type="beefy")
    placement = Placement("manual", {i.key: "h" for i in problem.instances})
    only_a = predict(problem, [node], placement, offered_rps=1e5, entry_shares={"a": 1.0, "b": 0.0})
    a_alone = predict(alone, [node], Placement("manual", {i.key: "h" for i in alone.instances}), offered_rps=1e5)
    even = predict(problem, [node], placement, offered_rps=1e5)
    assert only_a.capacity_rps == pytest.approx(a_alone.capacity_rps)
    assert even.capacity_rps < only_a.capacity_rps  # bm25 costs far more core time per request than kvs
