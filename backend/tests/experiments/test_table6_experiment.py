"""Table 6: microservices deployed one by one (each placement keeps the earlier ones), ms per microservice.

No timing is asserted (a 2-core machine shared with others): only what was deployed, how, and what is reported.
"""

import pytest

from e3 import catalog
from e3.experiments import table6
from e3.experiments.base import RunContext
from e3.placement.fattree import fattree_nodes
from e3.placement.model import RESOURCES


def _small_cluster(servers: int = 4):
    return fattree_nodes(catalog.server_types()[table6.SERVER_TYPE], servers, table6.SERVERS_PER_RACK)


@pytest.mark.parametrize("algorithm, options", [("hcm", {}), ("annealing", {"iterations": 50}),
                                                ("ilp", {"time_limit_s": 5.0})])
def test_each_microservice_is_one_placement_call_and_earlier_ones_stay_put(monkeypatch, algorithm, options):
    calls, returned = [], {}
    real_run = table6.run

    def recording_run(name, problem, nodes, **kwargs):
        placement = real_run(name, problem, nodes, **kwargs)
        calls.append((problem, placement))
        return placement

    monkeypatch.setattr(table6, "run", recording_run)
    nodes = _small_cluster()
    first_app = len(next(table6.application_copies())[1].instances)
    deployment = table6.deploy_one_by_one(algorithm, nodes, first_app + 3, options)  # into the second copy

    assert deployment.deployed == deployment.calls == len(calls) == first_app + 3
    for problem, placement in calls:
        new = [inst for inst in problem.instances if inst.key not in problem.fixed]
        assert len(new) == 1  # one microservice per call
        for key, node in problem.fixed.items():  # every earlier one of its copy where it was put
            assert placement.assignments[key] == node == returned[key]
        returned.update(placement.assignments)
        if len(problem.instances) == first_app:  # a new copy starts with nothing fixed
            returned = {}
    # The cluster holds every microservice deployed, each once.
    deployed = [inst for problem, _ in calls for inst in problem.instances if inst.key not in problem.fixed]
    for r in RESOURCES:
        assert sum(n.used[r] for n in nodes) == pytest.approx(sum(inst.resource(r) for inst in deployed))


def test_an_ilp_deployment_at_its_cap_stops_the_deployment_and_reports_no_time():
    deployment = table6.deploy_one_by_one("ilp", _small_cluster(), 10, {"time_limit_s": 5.0}, cap_s=0.0)
    assert deployment.over_cap and deployment.deployed == 1
    assert deployment.ms_per_microservice is None  # never the cap divided by the microservices


def test_over_the_cap_at_one_size_reports_that_size_and_every_larger_one_as_over(monkeypatch):
    monkeypatch.setattr(table6, "QUICK", {"servers": (3, 4), "microservices": 12, "ilp_cap_s": 0.0,
                                          "ilp_servers": (3, 4), "annealing_iterations": 50})
    result = table6.EXPERIMENT.run(RunContext(quick=True))
    ilp = {q.labels["servers"]: q for q in result.quantities
           if q.name == "ms per microservice" and q.labels["algorithm"] == "ilp"}
    assert ilp[3].ours is None and ilp[4].ours is None
    assert [r["servers"] for r in result.rows if r["algorithm"] == "ilp"] == [3]  # not run after the cap
    assert any("over the cap" in note for note in result.notes)
    [slowest] = [q for q in result.quantities if q.name.startswith("ILP slower")]
    assert slowest.ours == 1.0  # over the cap counts as slower


@pytest.fixture(scope="module")
def quick_result():
    return table6.EXPERIMENT.run(RunContext(quick=True))


def test_quick_run_reports_every_algorithm_and_size_beside_the_paper(quick_result):
    assert table6.EXPERIMENT.deterministic is False
    timings = {(q.labels["algorithm"], q.labels["servers"]): q for q in quick_result.quantities
               if q.name == "ms per microservice"}
    assert set(timings) == {("hcm", 100), ("hcm", 200), ("annealing", 100), ("annealing", 200), ("ilp", 100)}
    assert timings[("hcm", 100)].paper == 4.85 and timings[("ilp", 100)].paper == 7.64
    for q in timings.values():
        assert q.source == "emulation" and q.unit == "ms" and q.tolerance is None and q.ours > 0
    claims = {q.name: q for q in quick_result.quantities if q.unit == "1 = yes"}
    assert set(claims) == {"HCM under 1 s per microservice at every size",
                           "annealing faster than HCM at the largest size",
                           "ILP slower than HCM and annealing at every size it ran"}
    assert all(q.paper == 1.0 and q.ours in (0.0, 1.0) for q in claims.values())


def test_quick_run_rows_count_the_microservices_deployed_one_call_each(quick_result):
    assert len(quick_result.rows) == 5
    for row in quick_result.rows:
        assert row["microservices"] == row["placement_calls"] == 500
        assert row["error"] is None and row["over_cap"] is False
        assert row["total_s"] > 0


def test_quick_run_draws_its_plot(quick_result):
    from matplotlib.figure import Figure

    figure = Figure()
    quick_result.plot(figure)
    ax = figure.axes[0]
    assert ax.get_yscale() == "log" and "ms" in ax.get_ylabel() and "servers" in ax.get_xlabel()
