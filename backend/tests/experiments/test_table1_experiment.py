"""Table 1's pure parts: the knee rule on made-up load-generator results, the sweep, the pacing's
expected ratio, and how rows become quantities (sources, verdicts, the notes on a miss)."""

import pytest

from e3.experiments import table1
from e3.experiments.runner import discover
from e3.experiments.workload import paper_values


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: nothing here touches the database."""


def _run(offered, completed=None, errors=0, timeouts=0, p99_us=500.0):
    return {"offered": offered, "completed": offered if completed is None else completed, "errors": errors,
            "timeouts": timeouts, "latency_us": {"p99": p99_us}}


def test_found_by_the_runner_needs_root_and_the_rack():
    assert discover()["table1"] is table1.EXPERIMENT
    assert table1.EXPERIMENT.needs == {"root", "rack"} and not table1.EXPERIMENT.deterministic


@pytest.mark.parametrize("run, why", [
    (_run(1000), None),
    (_run(1000, completed=949), "completed 94.9%"),
    (_run(1000, errors=1), "1 error replies"),
    (_run(1000, timeouts=11, completed=989), "timeouts 1.1%"),
    (_run(1000, p99_us=20_001), "p99 20.0 ms"),
    (_run(0), "nothing offered"),
])
def test_a_step_is_good_only_when_it_keeps_up_under_the_p99_bound(run, why):
    problem = table1.step_problem(1000, run)
    assert problem is None if why is None else why in problem


def test_the_sweep_grows_then_bisects_and_the_knee_is_the_highest_good_rate():
    capacity = 4000.0  # a made-up service: keeps up to 4,000/s, then drops what it cannot serve
    seen = []

    def measure(rate):
        seen.append(rate)
        return _run(int(rate), completed=int(min(rate, capacity)))

    steps = table1.sweep(measure, start=1000, ceiling=1e6, bisections=2)
    assert seen[:4] == [1000, 1500, 2250, 3375]  # x1.5 until the first bad step (5062.5), measured twice
    assert seen[4:6] == pytest.approx([5062.5, 5062.5])
    assert seen[6:] == pytest.approx([4218.75, 4218.75, (3375 + 4218.75) / 2])  # two halvings, the bad one twice
    assert table1.knee_of(steps) == pytest.approx(3796.875)
    assert not table1.capped(steps)


def test_a_single_stall_is_measured_again_and_does_not_end_the_sweep():
    runs = iter([_run(1000), _run(1500, p99_us=90_000), _run(1500), _run(2250)])
    steps = table1.sweep(lambda rate: next(runs), start=1000, ceiling=2300, bisections=0)
    assert [(s["offered_rps"], s["problem"]) for s in steps] == [(1000, None), (1500, None), (2250, None)]


def test_a_sweep_that_never_fails_is_capped_and_one_that_fails_at_once_has_no_knee():
    steps = table1.sweep(lambda rate: _run(int(rate)), start=1000, ceiling=3000)
    assert [s["offered_rps"] for s in steps] == [1000, 1500, 2250] and table1.capped(steps)
    bad = table1.sweep(lambda rate: _run(int(rate), errors=3), start=1000, ceiling=3000)
    assert len(bad) == 1 and table1.knee_of(bad) is None


def test_the_pacing_expects_12_nic_cores_against_the_host_workers_never_above_1():
    assert table1.expected_ratio(1.0, 2) == 1.0
    assert table1.expected_ratio(52.155, 2) == pytest.approx(12 / (2 * 52.155))
    assert table1.expected_ratio(6.0, 2) == 1.0


def _row(service, host, nic, factor, host_capped=False, nic_capped=False):
    return {"service": service, "pace_factor": factor, "host_knee_rps": host, "smartnic_knee_rps": nic,
            "host_capped": host_capped, "smartnic_capped": nic_capped}


def test_rows_become_sourced_quantities_and_a_miss_is_explained():
    paper = paper_values()["table1"]["services"]
    assert len(paper) == 16
    rows = [_row("top_ranker", 40_000, 4_600, 52.155), _row("api_gateway", 50_000, 45_000, 12.725)]
    qs = table1.quantities(rows, paper, host_workers=2)
    by = {(q.labels["service"], q.name): q for q in qs}
    host = by[("top_ranker", "knee on the host")]
    assert (host.source, host.paper, host.verdict) == ("emulation", 771_900.0, "not judged")  # other hardware
    nic = by[("top_ranker", "knee on the emulated SmartNIC")]
    assert (nic.source, nic.paper, nic.ours) == ("calibration input", 14_800.0, 4_600)
    good = by[("top_ranker", "SmartNIC / host knee ratio vs the pacing's")]
    assert good.source == "calibration input" and good.verdict == "within"  # 0.115 vs 12 / 104.3
    miss = by[("api_gateway", "SmartNIC / host knee ratio vs the pacing's")]
    assert miss.verdict == "outside"
    text = " ".join(table1.notes(rows, qs, host_workers=2))
    assert "Miss: api_gateway ratio 0.900 vs the pacing's 0.472" in text
    assert "2-core VM" in text and "unpaced" in text and "calibration input" in text


def test_an_unmeasured_knee_is_not_measured_and_capped_knees_are_named():
    paper = paper_values()["table1"]["services"]
    rows = [_row("kvs", 150_000, None, 1.0, host_capped=True) | {"smartnic_answers_after": False}]
    qs = table1.quantities(rows, paper, host_workers=2)
    assert {q.name: q.verdict for q in qs}["SmartNIC / host knee ratio vs the pacing's"] == "not measured"
    text = " ".join(table1.notes(rows, qs, host_workers=2))
    assert "kvs (host)" in text
    assert "e3-nic did not answer one request (1 s) right after its sweep passed the knee, on: kvs" in text


def test_every_table1_service_has_a_load_and_an_application_pinned_to_both_platforms():
    assert set(table1.LOADS) == set(paper_values()["table1"]["services"])
    doc = table1.application("api_gateway")
    assert [(n["id"], n["constraints"]["platform"]) for n in doc["spec"]["nodes"]] == \
        [("on-host", "host"), ("on-smartnic", "smartnic")]
    assert doc["spec"]["nodes"][0]["config"]["keys"] == "bench-key"


@pytest.mark.parametrize("row, ours, expected, reason", [
    (_row("knn", 150_000, 150_000, 1.418, True, True), 1.0, 0.7, "both knees reached e3-loadgen's ceiling"),
    (_row("bayes", 16_000, 15_000, 8.562), 0.94, 0.70, "too short for the pacing to dominate"),
    (_row("kvs", 16_000, 8_500, 1.0) | {"smartnic_answers_after": False}, 0.53, 1.0, "the NIC stopped answering past its knee"),
    (_row("kvs", 16_000, 8_500, 1.0) | {"smartnic_answers_after": True}, 0.53, 1.0, "share 2 CPUs"),
    (_row("api_gateway", 130_000, 17_000, 12.725, host_capped=True), 0.13, 0.47, "share 2 CPUs"),
    (_row("spike", 130_000, 120_000, 1.413, host_capped=True), 0.92, 0.71, "only a lower bound"),
])
def test_a_miss_gets_the_reason_its_row_shows(row, ours, expected, reason):
    assert reason in table1.miss_reason(row, ours, expected)


def test_every_application_is_valid_and_sql_runs_on_the_host_only():
    from e3.schemas.dag import validate_application

    for service in table1.LOADS:
        validate_application(table1.application(service))  # raises on a config the API would refuse (422)
    assert [n["id"] for n in table1.application("sql")["spec"]["nodes"]] == ["on-host"]
    paper = paper_values()["table1"]["services"]
    rows = [_row("sql", 30_000, None, 13.367) | {"smartnic_node_kind": None}]
    text = " ".join(table1.notes(rows, table1.quantities(rows, paper, 2), host_workers=2))
    assert "Not run on the SmartNIC" in text and "sql" in text


def test_a_platform_never_good_even_at_the_first_step_is_said_so_not_left_silent():
    paper = paper_values()["table1"]["services"]
    row = _row("top_ranker", 79_000, None, 52.155) | {
        "host_node_kind": "host", "host_steps": 14, "smartnic_node_kind": "smartnic", "smartnic_steps": 1,
        "smartnic_stopped_by": "p99 54.6 ms (> 20 ms)"}
    qs = table1.quantities([row], paper, host_workers=2)
    ratio = next(q for q in qs if q.name == "SmartNIC / host knee ratio vs the pacing's")
    assert ratio.verdict == "not measured"
    text = " ".join(table1.notes([row], qs, host_workers=2))
    assert ("No good rate at all, even the sweep's first step (1000/s): the knee is below it, so no knee or ratio "
            "is reported: top_ranker on the smartnic (p99 54.6 ms (> 20 ms))") in text
