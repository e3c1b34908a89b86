"""Migration decisions: the highest-CPU movable instance, to the nearest host with room by HCM's levels."""

from e3.bench.synthetic import fattree_nodes
from e3.orchestrator.decision import ClusterView, Decision, InstanceView, NoDecision, decide
from e3.orchestrator.detection import HOST_STARVATION, OVERLOAD, Detection
from e3.placement.model import LEVEL_POD, LEVEL_RACK_HOST, LEVEL_SAME_SERVER

NIC = "r0000-s00/nic0"
OWN_HOST, RACK_MATE_HOST = "r0000-s00/host", "r0000-s01/host"


def cluster(full=(), racks_per_pod=8):
    """2 racks of 3 type2 servers (host + 4 NICs); hosts in `full` have no cores left."""
    nodes = fattree_nodes(6, servers_per_rack=3, racks_per_pod=racks_per_pod)
    for n in nodes:
        if n.id in full:
            n.used["cpu_cores"] = n.cpu_cores
    return nodes


def inst(iid, share, node=NIC, **kw):
    kw.setdefault("service", "top_ranker")
    return InstanceView(iid, node, cpu_cores=0.5, memory_mb=128, bandwidth_mbps=100, cpu_share=share,
                        dag_node=iid, **kw)


def starving(node=NIC, **detail):
    return Detection(HOST_STARVATION, node, 10.0, detail)


ON_NIC = [inst("light", 0.1), inst("heavy", 0.6), inst("medium", 0.3)]


def test_moves_the_highest_cpu_instance_to_the_same_servers_host():
    d = decide(starving(), ClusterView(cluster(), ON_NIC))
    assert isinstance(d, Decision)
    assert (d.instance_id, d.source_node_id, d.target_node_id) == ("heavy", NIC, OWN_HOST)
    assert d.level == LEVEL_SAME_SERVER and d.reason == HOST_STARVATION
    assert d.detail["level_name"] == "same server" and d.detail["cpu_share"] == 0.6


def test_cpu_shares_of_the_detecting_heartbeat_win_over_the_views():
    d = decide(starving(cpu_shares={"light": 0.9, "heavy": 0.05, "medium": 0.05}), ClusterView(cluster(), ON_NIC))
    assert d.instance_id == "light" and d.detail["cpu_share"] == 0.9


def test_overload_moves_the_overloaded_instance_unless_it_may_not_move():
    view = ClusterView(cluster(), ON_NIC)
    assert decide(Detection(OVERLOAD, NIC, 10.0, {}, "light"), view).instance_id == "light"
    pinned = ClusterView(cluster(), [inst("light", 0.1, pinned=True), *ON_NIC[1:]])
    d = decide(Detection(OVERLOAD, NIC, 10.0, {}, "light"), pinned)
    assert d.instance_id == "heavy" and d.detail["refused"] == {"light": "pinned"}


def test_falls_back_to_a_rack_mates_host_when_its_own_host_is_full():
    d = decide(starving(), ClusterView(cluster(full={OWN_HOST}), ON_NIC))
    assert (d.instance_id, d.target_node_id, d.level) == ("heavy", RACK_MATE_HOST, LEVEL_RACK_HOST)


def test_then_the_other_rack_and_never_a_host_that_is_down():
    rack0_hosts = {OWN_HOST, RACK_MATE_HOST, "r0000-s02/host"}
    d = decide(starving(), ClusterView(cluster(full=rack0_hosts - {RACK_MATE_HOST}), ON_NIC, down={RACK_MATE_HOST}))
    assert (d.target_node_id, d.level) == ("r0001-s00/host", LEVEL_POD)


def test_a_suspect_node_is_decided_for_but_never_a_target():
    # its heartbeats are late (the controller under load): the ones that made the detection came from it all the same
    d = decide(starving(), ClusterView(cluster(), ON_NIC, unavailable={NIC, OWN_HOST}))
    assert (d.instance_id, d.source_node_id, d.target_node_id, d.level) == ("heavy", NIC, RACK_MATE_HOST,
                                                                           LEVEL_RACK_HOST)


def test_fault_domains_keep_it_off_servers_with_a_replica_of_its_shard():
    backup = InstanceView("heavy-b", "r0000-s01/nic2", "top_ranker", 0.5, 128, 100, dag_node="heavy", replica=1)
    d = decide(starving(), ClusterView(cluster(full={OWN_HOST}), [*ON_NIC, backup]))
    assert d.target_node_id == "r0000-s02/host"


def test_refuses_pinned_migrating_and_smartnic_only_instances():
    view = ClusterView(cluster(), [inst("heavy", 0.6, pinned=True), inst("medium", 0.3, migrating=True),
                                   inst("light", 0.1, platform="smartnic")])
    d = decide(starving(), view)
    assert isinstance(d, NoDecision) and "no instance" in d.reason
    assert d.detail["refused"] == {"heavy": "pinned", "medium": "already migrating", "light": "constrained to smartnic"}


def test_tries_the_next_instance_when_the_heaviest_fits_nowhere():
    big = InstanceView("huge", NIC, "knn", cpu_cores=32.0, memory_mb=256, bandwidth_mbps=100, cpu_share=0.9,
                       dag_node="huge")
    d = decide(starving(), ClusterView(cluster(), [big, *ON_NIC]))
    assert d.instance_id == "heavy" and d.detail["skipped_no_room"] == ["huge"]


def test_no_decision_when_no_host_has_room():
    hosts = {n.id for n in cluster() if n.kind == "host"}
    d = decide(starving(), ClusterView(cluster(full=hosts), ON_NIC))
    assert isinstance(d, NoDecision) and "no host has room" in d.reason
    assert d.detail["tried"] == ["heavy", "medium", "light"]


def test_no_decision_for_a_down_node_or_a_host():
    assert "down" in decide(starving(), ClusterView(cluster(), ON_NIC, down={NIC})).reason
    assert "is a host" in decide(starving(OWN_HOST), ClusterView(cluster(), ON_NIC)).reason


def test_begin_migration_holds_the_target_and_marks_the_instance():
    view = ClusterView(cluster(), ON_NIC)
    first = decide(starving(), view)
    view.begin_migration(first)
    assert view.instances["heavy"].migrating
    assert view.topology.node(OWN_HOST).used["cpu_cores"] == 0.5
    assert decide(starving(), view).instance_id == "medium"
