"""The cost model's per-edge request ratios: the share of a parent's requests that reach each child."""

import pytest

from e3 import catalog
from e3.placement import hcm, problem_from_document
from e3.placement.cost_model import predict
from e3.placement.fattree import fattree_nodes
from e3.placement.model import copy_nodes


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: the cost model is pure and needs no database."""


@pytest.fixture(scope="module")
def iot_ts_on_beefy():
    nodes = fattree_nodes(catalog.server_types()["beefy"], 4)
    problem = problem_from_document(catalog.template("iot-ts"))
    return problem, nodes, hcm.hcm(problem, copy_nodes(nodes))


def _rps(prediction):
    return {d.id: d.rps for d in prediction.dag_nodes}


def test_without_ratios_every_request_reaches_every_node_as_before(iot_ts_on_beefy):
    problem, nodes, placement = iot_ts_on_beefy
    plain = predict(problem, nodes, placement)
    all_ones = predict(problem, nodes, placement, edge_ratios={e: 1.0 for e in problem.edges})
    assert all(rps == pytest.approx(plain.throughput_rps) for rps in _rps(plain).values())
    assert all_ones.throughput_rps == pytest.approx(plain.throughput_rps)
    assert all_ones.power_watts == pytest.approx(plain.power_watts)


def test_a_ratio_scales_the_requests_reaching_the_child_and_its_descendants(iot_ts_on_beefy):
    problem, nodes, placement = iot_ts_on_beefy
    p = predict(problem, nodes, placement, offered_rps=1000.0,
                edge_ratios={("api", "sql"): 0.5, ("sql", "recommend"): 0.01})
    rps = _rps(p)
    assert rps["api"] == pytest.approx(1000.0)
    assert rps["sql"] == pytest.approx(500.0)
    assert rps["ema"] == pytest.approx(500.0)  # edges left out carry all of the parent's requests
    assert rps["recommend"] == pytest.approx(5.0)


def test_fewer_requests_reaching_the_bottleneck_raise_the_knee(iot_ts_on_beefy):
    problem, nodes, placement = iot_ts_on_beefy
    plain = predict(problem, nodes, placement)
    assert plain.bottleneck.service == "recommend"
    lighter = predict(problem, nodes, placement, edge_ratios={("sql", "recommend"): 0.1})
    assert lighter.knee_rps > 5 * plain.knee_rps
