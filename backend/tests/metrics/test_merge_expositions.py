"""Two controllers' expositions as one (E3_CONTROLLERS > 1): each family once; a counter two controllers both
count (a node that moved, the heartbeat totals) summed; a gauge kept from the first; the result parses as
Prometheus text and its figures are the sums a scrape of one controller holding everything would give."""

import pytest
from prometheus_client.parser import text_string_to_metric_families

from e3.metrics.ledger_exposition import HEARTBEATS, NODE_JOULES, NODE_WATTS, REJECTED, header
from e3.metrics.merge import MalformedExposition, merge_expositions

A = (header(NODE_JOULES) + 'e3_node_joules_total{cluster="c",node="n1",kind="host",source="model"} 10.5\n'
     'e3_node_joules_total{cluster="c",node="n2",kind="host",source="model"} 4.0\n'
     + header(NODE_WATTS) + 'e3_node_power_watts{cluster="c",node="n1",kind="host",source="model"} 90.0\n'
     + header(HEARTBEATS) + "e3_heartbeats_received_total 100.0\n"
     + header(REJECTED) + 'e3_heartbeats_rejected_total{reason="out_of_order"} 2.0\n')
B = (header(NODE_JOULES) + 'e3_node_joules_total{cluster="c",node="n2",kind="host",source="model"} 6.0\n'
     'e3_node_joules_total{cluster="c",node="n3",kind="host",source="rapl"} 1.0\n'
     + header(NODE_WATTS) + 'e3_node_power_watts{cluster="c",node="n2",kind="host",source="model"} 80.0\n'
     'e3_node_power_watts{cluster="c",node="n1",kind="host",source="model"} 70.0\n'
     + header(HEARTBEATS) + "e3_heartbeats_received_total 50.0\n"
     + header(REJECTED) + 'e3_heartbeats_rejected_total{reason="stale_epoch"} 1.0\n')


def _samples(text):
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_two_controllers_figures_merge_into_one_valid_exposition():
    merged = merge_expositions([A, B])
    assert merged.count(f"# TYPE {NODE_JOULES} ") == 1 and merged.count(f"# HELP {HEARTBEATS} ") == 1
    samples = _samples(merged)
    node = lambda n, source="model": (("cluster", "c"), ("kind", "host"), ("node", n), ("source", source))  # noqa: E731
    assert samples[("e3_node_joules_total", node("n2"))] == 10.0  # counted at A before it moved, then at B
    assert samples[("e3_node_joules_total", node("n1"))] == 10.5
    assert samples[("e3_node_joules_total", node("n3", "rapl"))] == 1.0
    assert samples[("e3_node_power_watts", node("n1"))] == 90.0  # a gauge: the first controller's
    assert samples[("e3_heartbeats_received_total", ())] == 150.0
    assert samples[("e3_heartbeats_rejected_total", (("reason", "out_of_order"),))] == 2.0
    assert samples[("e3_heartbeats_rejected_total", (("reason", "stale_epoch"),))] == 1.0


def test_one_exposition_passes_through_with_the_same_figures():
    assert _samples(merge_expositions([A])) == _samples(A)


def test_a_sample_outside_any_family_or_a_value_that_is_no_number_is_refused_naming_the_text():
    with pytest.raises(MalformedExposition, match="outside any family") as refused:
        merge_expositions([A, "e3_heartbeats_received_total 1\n"])
    assert refused.value.index == 1
    with pytest.raises(MalformedExposition, match="not a sample") as refused:
        merge_expositions(["# TYPE e3_x counter\ne3_x one\n", A])
    assert refused.value.index == 0
