"""Figure 7 (orchestrator off vs on on the emulated rack): the pure parts. How measured phases become quantities,
verdicts against the paper's "up to" figures, the notes on a miss, and the four applications' documents. No rack
here (the experiment needs root and the rack; see docs/reproduce.md)."""

import pytest

from e3.bench.figure7 import FIG7_APPS, moved_to_hosts
from e3.experiments import fig7, workload
from e3.experiments.runner import discover
from e3.schemas.dag import validate_application

PAPER = workload.paper_values()["fig7"]


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: nothing here touches a database."""


def _phase(rps, watts, avg_us, p99_us):
    return {"throughput_rps": rps, "watts": watts, "avg_us": avg_us, "p50_us": avg_us, "p99_us": p99_us,
            "errors": 0, "timeouts": 0, "entry": "s00/nic0", "nic_queue_max": {"s00/nic0": 60, "s01/nic0": None}}


def _by_name(quantities):
    return {q.name: q for q in quantities}


def test_found_by_the_runner_and_needs_root_and_the_rack():
    assert discover()["fig7"] is fig7.EXPERIMENT
    assert fig7.EXPERIMENT.needs == frozenset({"root", "rack"}) and not fig7.EXPERIMENT.deterministic


def test_gain_and_reduction():
    assert fig7.gain(100.0, 2900.0) == pytest.approx(29.0)
    assert fig7.reduction_pct(1000.0, 110.0) == pytest.approx(89.0)
    assert fig7.reduction_pct(100.0, 150.0) == pytest.approx(-50.0)  # worse with the orchestrator: negative
    assert fig7.gain(0.0, 5.0) is None and fig7.gain(None, 5.0) is None and fig7.reduction_pct(10.0, None) is None


def test_a_phase_row_carries_requests_per_joule_and_the_largest_nic_queue():
    row = fig7.phase_row("rta-ptc", "off", _phase(3000.0, 600.0, 20_000.0, 40_000.0))
    assert row["requests_per_joule"] == pytest.approx(5.0) and row["max_nic_queue"] == 60
    assert row["app"] == "rta-ptc" and row["phase"] == "off" and row["watts_model"] == 600.0


def test_app_quantities_sources_and_the_migrated_service_verdict():
    off, on = _phase(1000.0, 500.0, 60_000.0, 90_000.0), _phase(10_000.0, 520.0, 6_000.0, 20_000.0)
    moved = [{"service": "top_ranker", "dag_node": "rank", "shard": 0, "from": "s01/nic0", "to": "s01/host"}]
    q = _by_name(fig7.app_quantities("rta-ptc", off, on, moved, "top_ranker"))
    assert q["energy-efficiency gain (on / off)"].ours == pytest.approx((10_000 / 520) / (1000 / 500))
    assert q["energy-efficiency gain (on / off)"].source == "emulation+model-power"
    assert q["average latency reduction"].ours == pytest.approx(90.0)
    assert q["average latency reduction"].source == "emulation"
    assert q["p99 latency reduction"].ours == pytest.approx(100 * (1 - 20 / 90))
    which = q["the paper's interfering service (top_ranker) moved to a host"]
    assert which.verdict == "within" and which.labels["ours_moved"] == "top_ranker"
    other = _by_name(fig7.app_quantities("rta-sf", off, on, [dict(moved[0], service="bayes")], "spike"))
    miss = other["the paper's interfering service (spike) moved to a host"]
    assert miss.verdict == "outside" and miss.labels["ours_moved"] == "bayes"


def test_headline_takes_the_best_application_and_judges_it_with_the_tolerance():
    per_app = {"rta-ptc": (_phase(100.0, 500.0, 64_000.0, 1), _phase(2500.0, 500.0, 8_000.0, 1)),  # 25x, 87.5%
               "iot-ts": (_phase(1000.0, 500.0, 10_000.0, 1), _phase(2000.0, 500.0, 5_000.0, 1))}  # 2x, 50%
    gain_q, cut_q = fig7.headline_quantities(per_app, PAPER)
    assert gain_q.labels["app"] == "rta-ptc" and gain_q.ours == pytest.approx(25.0) and gain_q.paper == 29
    assert gain_q.verdict == "within" and cut_q.verdict == "within" and cut_q.ours == pytest.approx(87.5)
    assert fig7.misses([gain_q, cut_q]) == []
    small = {"iot-ts": per_app["iot-ts"]}
    gain_q, cut_q = fig7.headline_quantities(small, PAPER)
    assert gain_q.verdict == "outside" and cut_q.verdict == "outside"
    missed = fig7.misses([gain_q, cut_q])
    assert len(missed) == 2 and "x0.07" in missed[0] and "iot-ts" in missed[0]


def test_headline_with_nothing_measured_is_not_measured():
    gain_q, cut_q = fig7.headline_quantities({}, PAPER)
    assert gain_q.verdict == cut_q.verdict == "not measured"


def test_notes_name_a_miss_of_the_migrated_service_and_a_failed_application():
    run = {"off": _phase(0.0, 500.0, 0.0, 0.0) | {"timeouts": 192}, "on": _phase(900.0, 500.0, 70_000.0, 1),
           "moved": [{"service": "bayes"}], "switch": {"events": [
               {"kind": "orchestrator.decision", "service": "bayes", "cpu_share": 0.5, "trouble": "overload"}]},
           "onto_nics": [
        {"service": "count", "moved": True, "node": "s00/nic0"},
        {"service": "kvs", "moved": False, "node": "s02/host", "state": "failed"}]}
    text = "\n".join(fig7.notes({"rta-sf": run, "iot-dh": {"error": "RuntimeError: boom", "spec_note": "x"}},
                                PAPER, 3.0, quick=True))
    assert "rta-sf: on the NICs before: count (no NIC took kvs)" in text
    assert "MISS: the orchestrator did not move spike" in text and "bayes (CPU share 0.50, overload)" in text
    assert "MISS (direction)" not in text  # nothing completed when off: unbounded, not worse
    assert "iot-dh: not measured: RuntimeError: boom" in text and "(quick mode)" in text
    assert "Tolerances" in text
    assert "rta-sf: with the orchestrator off no request completed in the 3 s window (192 timed out; the NIC's " \
           "queue reached 60)" in text


def test_the_four_applications_are_valid_one_shard_documents():
    assert set(FIG7_APPS) == set(PAPER["apps"])
    for name, app in FIG7_APPS.items():
        spec = validate_application(app.application())
        assert all(n.shards == 1 and n.replicas == 0 for n in spec.nodes), name
        assert app.entry in {n.id for n in spec.sources()}, name
        assert PAPER["migrated_to_host"][name] in {n.service for n in spec.nodes}, name  # the paper's, runs here
        # one request line per stage along a path from the entry
        assert app.payload.count("\\n") >= 1, name
    dh = validate_application(FIG7_APPS["iot-dh"].application())
    assert dh.children("api") == ["registry"]


def test_moved_to_hosts_is_the_nic_to_host_difference():
    before = [{"id": "a", "node_kind": "smartnic", "node": "s00/nic0"},
              {"id": "b", "node_kind": "smartnic", "node": "s01/nic0"},
              {"id": "c", "node_kind": "host", "node": "s02/host"}]
    after = [{"id": "a", "node_kind": "host", "node": "s00/host", "dag_node": "rank", "service": "top_ranker",
              "shard": 0}, {"id": "b", "node_kind": "smartnic", "node": "s01/nic0", "dag_node": "x", "service": "x",
                            "shard": 0},
             {"id": "c", "node_kind": "host", "node": "s00/host", "dag_node": "s", "service": "sql", "shard": 0}]
    assert moved_to_hosts(before, after) == [{"dag_node": "rank", "service": "top_ranker", "shard": 0,
                                              "from": "s00/nic0", "to": "s00/host"}]


def test_a_worse_on_phase_is_a_named_direction_miss_and_decisions_are_listed():
    off, on = _phase(1283.0, 315.0, 50_000.0, 1), _phase(494.0, 315.0, 126_000.0, 1)
    text = fig7.direction_miss("rta-ptc", off, on)
    assert text.startswith("MISS (direction): rta-ptc was worse with the orchestrator: energy efficiency x0.39, "
                           "average latency +152% (1,283 -> 494 req/s; largest NIC queue 60 -> 60 packets")
    assert "the NIC keeps a standing queue after the move" in text
    assert fig7.direction_miss("rta-ptc", on | {"avg_us": 200_000.0}, off) is None  # better: no note
    switch = {"events": [{"kind": "orchestrator.detection", "service": None},
                         {"kind": "orchestrator.decision", "service": "count", "cpu_share": 0.41,
                          "trouble": "host_starvation"}]}
    assert fig7.decisions(switch) == "count (CPU share 0.41, host_starvation)"
