"""The controller's families rendered from an energy ledger fed heartbeats by hand, read back with
prometheus_client's own parser: every figure as the ledger has it, labels as documented, nothing for what is
not resolved yet."""

import uuid

import pytest
from prometheus_client.parser import text_string_to_metric_families

from e3.energy.ledger import EnergyLedger
from e3.metrics.ledger_exposition import LedgerExposition, LedgerSnapshot

CLUSTER = str(uuid.uuid4())
HOST, NIC, GW = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
NIC_NAME = 's00 "nic"\\0'  # a quote and a backslash: escaped in the text, the same once parsed


def _samples(text: str) -> dict[tuple, float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def _ledger() -> EnergyLedger:
    ledger = EnergyLedger()
    host = ledger.account(HOST, CLUSTER, "host", "s00-host")
    host.add(100.0, 60.0, "rapl", 0.5, [])
    host.add(100.5, 61.5, "rapl", 0.5, [])  # 61.5 W x 0.5 s
    host.add(101.0, 40.0, "model", 0.5, [])  # RAPL lost: 40 W x 0.5 s, modelled
    nic = ledger.account(NIC, CLUSTER, "smartnic", NIC_NAME)
    nic.add(100.0, 12.0, "model", 0.5, [(GW, 10, 0.5)])
    nic.add(101.0, 12.0, "model", 0.5, [(GW, 20, 0.5)])
    return ledger


def _labels(**kw) -> tuple:
    return tuple(sorted(kw.items()))


def test_node_series_carry_cluster_node_kind_and_source():
    samples = _samples(LedgerExposition().render(LedgerSnapshot.of(_ledger()), {CLUSTER: "lab"}))
    host = dict(cluster="lab", node="s00-host", kind="host")
    assert samples[("e3_node_joules_total", _labels(**host, source="rapl"))] == pytest.approx(30.75)
    assert samples[("e3_node_joules_total", _labels(**host, source="model"))] == pytest.approx(20.0)
    assert samples[("e3_node_power_watts", _labels(**host, source="model"))] == 40.0  # the latest reading's
    nic = dict(cluster="lab", node=NIC_NAME, kind="smartnic", source="model")
    assert samples[("e3_node_joules_total", _labels(**nic))] == pytest.approx(12.0)
    assert samples[("e3_heartbeats_received_total", ())] == 5


def test_instance_series_appear_once_attributed_and_resolved_and_follow_a_move():
    ledger = _ledger()
    exposition = LedgerExposition()
    assert "e3_requests_total{" not in exposition.render(LedgerSnapshot.of(ledger), {CLUSTER: "lab"})  # step open
    ledger.close(float("inf"), idle_watts=lambda node: 5.0, reserved_cores=lambda instance: 1.0)
    assert "e3_requests_total{" not in exposition.render(LedgerSnapshot.of(ledger), {CLUSTER: "lab"})  # no labels
    ledger.instances[GW].labels = (str(uuid.uuid4()), "iot", "gw")
    entry = {GW: True}.get  # the gateway's primary: its requests are the application's
    samples = _samples(exposition.render(LedgerSnapshot.of(ledger), {CLUSTER: "lab"}, entry))
    gw = dict(cluster="lab", application="iot", dag_node="gw", instance=GW, node=NIC_NAME)
    joules = ledger.instances[GW].joules_by_source["model"]
    assert joules > 0
    assert samples[("e3_instance_joules_total", _labels(**gw, source="model"))] == pytest.approx(joules)
    assert samples[("e3_requests_total", _labels(**gw, entry="true"))] == 30

    ledger.nodes[HOST].add(102.0, 40.0, "model", 0.5, [(GW, 5, 0.5)])  # it moved to the host
    ledger.close(float("inf"), idle_watts=lambda node: 5.0, reserved_cores=lambda instance: 1.0)
    samples = _samples(exposition.render(LedgerSnapshot.of(ledger), {CLUSTER: "lab"}, {GW: False}.get))
    moved = dict(gw, node="s00-host", entry="false")  # label text not stale
    assert samples[("e3_requests_total", _labels(**moved))] == 35


def test_a_node_of_an_unknown_cluster_and_its_instances_are_left_out():
    ledger = _ledger()
    ledger.close(float("inf"), idle_watts=lambda node: 5.0, reserved_cores=lambda instance: 1.0)
    ledger.instances[GW].labels = (str(uuid.uuid4()), "iot", "gw")
    samples = _samples(LedgerExposition().render(LedgerSnapshot.of(ledger), {}))
    assert set(samples) == {("e3_heartbeats_received_total", ())}


def test_every_family_has_help_and_type_once():
    text = LedgerExposition().render(LedgerSnapshot.of(_ledger()), {CLUSTER: "lab"})
    types = [line.split()[2] for line in text.splitlines() if line.startswith("# TYPE")]
    assert len(types) == len(set(types))
    assert set(types) == {"e3_node_joules_total", "e3_node_power_watts", "e3_instance_joules_total",
                          "e3_requests_total", "e3_heartbeats_received_total", "e3_heartbeats_rejected_total"}


def test_refused_heartbeats_are_counted_by_reason():
    text = LedgerExposition().render(LedgerSnapshot.of(_ledger(), {"out_of_order": 3, "invalid": 1}), {CLUSTER: "lab"})
    samples = _samples(text)
    assert samples[("e3_heartbeats_rejected_total", (("reason", "out_of_order"),))] == 3.0
    assert samples[("e3_heartbeats_rejected_total", (("reason", "invalid"),))] == 1.0
