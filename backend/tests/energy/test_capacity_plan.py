"""The capacity planner's core (issue 20, item 5): candidates placed, predicted and priced by the paper's
formula; the feasible ranked by requests per dollar, the infeasible last; custom server types; and the paper's
Figure 10 orderings (§5.5) where its clusters carry a common load."""

import pytest

from e3 import catalog
from e3.energy.capacity_plan import (Candidate, PlanApplication, custom_server_type, evaluate, joint_problem,
                                     plan_capacity, rank)
from e3.energy.cost import HOURS_PER_YEAR, SECONDS_PER_YEAR

TYPES = catalog.server_types()
PRICE = 0.0733


def app(name: str, load: float) -> PlanApplication:
    return PlanApplication(name, catalog.template(name), load)


def per_usd(rps: float, watts: float, capex: float, years: int, price: float = PRICE) -> float:
    """The paper's §5.5 formula, written out here from its inputs."""
    return rps * years * SECONDS_PER_YEAR / (capex + watts / 1000 * years * HOURS_PER_YEAR * price)


def test_a_wimpy_cluster_is_priced_by_hand_from_table_4():
    # NFV-FIN on 4 wimpy servers at 1 Mrps: every host holds instances, and cnMIPS cores have no sleep
    # states, so each draws its Table 4 peak (95 W); CAPEX 4 x $2,209.
    c = evaluate([app("nfv-fin", 1e6)], TYPES["wimpy"], 4, years=5, usd_per_kwh=PRICE)
    assert c.feasible and c.reason is None
    assert c.capex_usd == 4 * 2209 and c.power_watts == pytest.approx(4 * 95) and c.utilisation == 1.0
    assert c.throughput_rps == pytest.approx(1e6)
    assert [p.years for p in c.points] == [1, 2, 3, 4, 5]
    for p in c.points:
        assert p.requests_per_usd == pytest.approx(per_usd(1e6, 380, 8836, p.years))
    assert c.joules_per_request == pytest.approx(380 / 1e6)


def test_two_candidates_rank_by_the_formula_and_the_infeasible_last():
    # A custom type the shape of a wimpy server at half its price and watts beats the wimpy one by the
    # formula's own inputs; a count too small to place comes last.
    half = custom_server_type(name="half-wimpy", cost_usd=2209 / 2, idle_watts=79 / 2, peak_watts=95 / 2,
                              host_cores=32, host_core_class="wimpy", host_memory_gb=2)
    apps = [app("nfv-fin", 1e6)]
    wimpy = evaluate(apps, TYPES["wimpy"], 4, years=5, usd_per_kwh=PRICE)
    custom = evaluate(apps, half, 4, years=5, usd_per_kwh=PRICE)
    short = evaluate(apps, TYPES["wimpy"], 3, years=5, usd_per_kwh=PRICE)
    assert custom.feasible and custom.capex_usd == pytest.approx(4418) and custom.power_watts == pytest.approx(190)
    assert custom.requests_per_usd == pytest.approx(per_usd(1e6, 190, 4418, 5))
    assert custom.requests_per_usd == pytest.approx(2 * wimpy.requests_per_usd)
    assert not short.feasible and short.reason.startswith("placement fails") and short.points == []
    assert rank([short, wimpy, custom]) == [custom, wimpy, short]


def test_a_cluster_that_cannot_carry_the_load_says_so_and_ranks_after_the_feasible():
    plan = plan_capacity([app("rta-shm", 1e6)], [TYPES["beefy"], TYPES["type2-smartnic"]], years=5,
                         usd_per_kwh=PRICE, price_source="paper", max_servers=6)
    beefy = [c for c in plan.candidates if c.server_type == "beefy"]
    assert len(beefy) == 1 and beefy[0].count == 6 and not beefy[0].feasible
    assert "is below the load 1,000,000 req/s" in beefy[0].reason and beefy[0].capacity_rps < 1e6
    feasible = [c for c in plan.candidates if c.feasible]
    assert [c.server_type for c in feasible] == ["type2-smartnic"] * 3  # the first that carries it, and 2 more
    assert [c.count for c in feasible] == [2, 3, 4]  # more servers: more CAPEX and idle watts, same load
    assert plan.candidates[:3] == feasible and plan.candidates[3] == beefy[0]
    one = plan.candidates[4]  # placement fails: no capacity at all, so after the short one
    assert (one.server_type, one.count, one.feasible, one.capacity_rps) == ("type2-smartnic", 1, False, None)
    assert plan.evaluated == 6 + 4  # beefy 1..6; type2 1..4


def test_a_latency_bound_makes_a_candidate_infeasible():
    loose = evaluate([app("nfv-fin", 1e6)], TYPES["beefy"], 4, years=1, usd_per_kwh=PRICE)
    tight = evaluate([app("nfv-fin", 1e6)], TYPES["beefy"], 4, years=1, usd_per_kwh=PRICE,
                     max_p99_latency_ms=loose.p99_latency_ms / 2)
    assert loose.feasible and not tight.feasible and "p99 latency" in tight.reason


def test_applications_together_share_the_load_by_their_own():
    problem, shares = joint_problem([app("nfv-fin", 3e5), app("rta-shm", 1e5)])
    assert shares == {"nfv-fin/flow": pytest.approx(0.75), "rta-shm/count": pytest.approx(0.25)}
    assert {i.dag_node.split("/")[0] for i in problem.instances} == {"nfv-fin", "rta-shm"}
    both = evaluate([app("nfv-fin", 3e5), app("rta-shm", 1e5)], TYPES["type2-smartnic"], 3, years=5,
                    usd_per_kwh=PRICE)
    assert both.feasible and both.throughput_rps == pytest.approx(4e5)
    assert {p.application for p in both.placement} == {"nfv-fin", "rta-shm"}


def test_a_higher_price_lowers_every_years_figure():
    cheap = evaluate([app("nfv-fin", 1e6)], TYPES["wimpy"], 4, years=3, usd_per_kwh=PRICE)
    dear = evaluate([app("nfv-fin", 1e6)], TYPES["wimpy"], 4, years=3, usd_per_kwh=0.3)
    assert all(d.requests_per_usd < c.requests_per_usd for c, d in zip(cheap.points, dear.points))


# Paper §5.5 (Figure 10): "when all microservices are able to run on a low power platform (NFV-FIN), both
# 4xWimpy and 2xType2-SmartNIC clusters are the most cost efficient. After 5 years, 4xWimpy is 14.1% more cost
# efficient than 2xType2-SmartNIC"; "when a microservice application contains both compute and IO-intensive
# microservices (RTA-SHM, IOT-TS), the 2xType2-SmartNIC cluster is up to 1.9x more cost efficient after 5 years
# of ownership than the next best cluster configuration (4xBeefy in both cases)". The paper prices each
# cluster at its own peak; the planner at a common load, one every cluster compared carries. Only the
# orderings are checked: the ratios differ (docs/energy.md).
PAPER_CLUSTERS = [("beefy", 4), ("wimpy", 4), ("type2-smartnic", 2)]


@pytest.mark.parametrize("application, load, best, then", [
    ("nfv-fin", 1e6, ("wimpy", 4), ("type2-smartnic", 2)),
    ("rta-shm", 2e5, ("type2-smartnic", 2), ("beefy", 4)),
    ("iot-ts", 5e3, ("type2-smartnic", 2), ("beefy", 4)),
])
def test_figure_10_orderings_after_5_years(application, load, best, then):
    priced = {(t, n): evaluate([app(application, load)], TYPES[t], n, years=5, usd_per_kwh=PRICE)
              for t, n in PAPER_CLUSTERS}
    ranked = [(c.server_type, c.count) for c in rank(list(priced.values())) if c.feasible]
    assert ranked[:2] == [best, then], ranked


def test_candidates_are_built_in_the_catalogues_shape():
    c: Candidate = evaluate([app("nfv-fin", 1e5)], TYPES["type2-smartnic"], 2, years=1, usd_per_kwh=PRICE)
    kinds = {(i[0], i[1]) for p in c.placement for i in p.instances}
    assert kinds <= {("type2-smartnic", "host"), ("type2-smartnic", "smartnic")}
    assert sum(n for p in c.placement for n in p.instances.values()) == 72  # NFV-FIN: 36 shards, 1 replica each


def test_a_cluster_too_small_for_the_reservations_is_refused_before_placing():
    # RTA-SHM reserves 24 SQL instances x 1 GB alone; 4 wimpy servers have 2 GB each (Table 4).
    c = evaluate([app("rta-shm", 1e3)], TYPES["wimpy"], 4, years=1, usd_per_kwh=PRICE)
    assert not c.feasible and c.capacity_rps is None
    assert "reserve" in c.reason and "MB of memory in all, the servers have 8,192 MB" in c.reason
