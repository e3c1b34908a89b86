"""fig3's pure parts: the requests it times, how loadgen rows become RTTs and reductions, the verdicts and the notes.

The rack run itself (e3 up, migrations, e3-loadgen) is not in `make test`: `e3 experiment run fig3`.
"""

import pytest

from e3.experiments import fig3, workload
from e3.experiments.fig3 import (HOST_HOST, KIND_CHAINED, KIND_DIRECT, level_rtts, notes, payloads, quantities,
                                 rtt_estimates, up_to_reduction)

PAPER = workload.paper_values()["fig3"]


def _row(level, size, kind, avg, p99, completed=1000):
    return {"level": level, "size": size, "kind": kind, "completed": completed, "avg_us": avg, "p99_us": p99}


def _rows(rtt_by_level: dict[str, dict[int, float]], direct_us: float = 100.0) -> list[dict]:
    rows = []
    for level, by_size in rtt_by_level.items():
        for size, rtt in by_size.items():
            rows += [_row(level, size, KIND_DIRECT, direct_us, direct_us * 2),
                     _row(level, size, KIND_CHAINED, direct_us + rtt, direct_us * 2 + rtt * 1.5)]
    return rows


def _quantity(qs, name, level):
    return next(q for q in qs if q.name.startswith(name) and q.labels.get("level") == fig3.LABELS[level])


def test_paper_values_are_the_papers_reductions():
    assert PAPER["reduction_pct"] == {"smartnic_host_pcie": 83.3, "smartnic_smartnic_tor": 86.2}


@pytest.mark.parametrize("size", [32, 128])
def test_the_two_requests_have_one_length_and_only_the_chained_one_has_a_second_line(size):
    p = payloads(size)
    wire = {k: v.replace("\\n", "\n") for k, v in p.items()}  # e3-loadgen turns \n into a newline
    assert len(wire[KIND_DIRECT]) == len(wire[KIND_CHAINED])
    assert "\n" not in wire[KIND_DIRECT]
    first, forwarded = wire[KIND_CHAINED].split("\n")
    assert first == "GET k" and len(forwarded) == size and forwarded.split() == ["GET", "k"]


def test_rtt_is_chained_minus_direct_with_averages_weighted_by_requests():
    rows = [_row("pcie", 32, KIND_DIRECT, 100, 300, completed=3000), _row("pcie", 32, KIND_DIRECT, 200, 400, 1000),
            _row("pcie", 32, KIND_CHAINED, 300, 700, completed=1000), _row("pcie", 32, KIND_CHAINED, 300, 900, 1000)]
    [rtt] = rtt_estimates(rows)
    assert rtt.avg_us == pytest.approx(300 - (100 * 3000 + 200 * 1000) / 4000)
    assert rtt.p99_us == pytest.approx(800 - 350)  # medians of the rounds' p99s
    assert rtt.samples == 2000


def test_a_level_missing_a_kind_or_without_replies_gets_no_rtt():
    rows = [_row("pcie", 32, KIND_DIRECT, 100, 300), _row("nic-nic", 32, KIND_DIRECT, 100, 300),
            _row("nic-nic", 32, KIND_CHAINED, 200, 400, completed=0)]
    assert rtt_estimates(rows) == []


def test_reduction_is_the_largest_over_sizes_against_host_host_at_the_same_size():
    levels = level_rtts(rtt_estimates(_rows({"pcie": {32: 50, 128: 80}, HOST_HOST: {32: 100, 128: 400}})))
    assert up_to_reduction(levels, "pcie") == pytest.approx(80.0)  # 1 - 80/400 beats 1 - 50/100
    assert levels["pcie"]["avg_us"] == pytest.approx(65)
    assert up_to_reduction(levels, "nic-nic") is None


def test_close_reductions_are_within_and_the_order_holds():
    levels = level_rtts(rtt_estimates(_rows({"same-node-host": {32: 10}, "pcie": {32: 20}, "nic-nic": {32: 15},
                                             HOST_HOST: {32: 100}})))
    qs = quantities(PAPER, levels)
    pcie, nic = _quantity(qs, "RTT reduction", "pcie"), _quantity(qs, "RTT reduction", "nic-nic")
    assert (pcie.ours, pcie.paper, pcie.verdict) == (pytest.approx(80.0), 83.3, "within")
    assert (nic.ours, nic.verdict, nic.source) == (pytest.approx(85.0), "within", "emulation")
    below = next(q for q in qs if q.name.startswith("SmartNIC-Host and SmartNIC-SmartNIC"))
    assert below.ours == 1.0 and below.verdict == "within"
    assert below.labels["order"] == "same-node-host < nic-nic < pcie < host-host"
    in_order = next(q for q in qs if q.name.startswith("SmartNIC-Host and SmartNIC-SmartNIC RTT in the paper's order"))
    assert (in_order.ours, in_order.verdict) == (1.0, "within")  # NIC-NIC below PCIe, as the paper's 86.2% > 83.3% reductions
    assert not any(n.startswith("Miss") for n in notes(PAPER, levels, fig3.FULL))


def test_a_miss_is_outside_and_named_in_the_notes_with_its_size():
    levels = level_rtts(rtt_estimates(_rows({"pcie": {32: 90}, "nic-nic": {32: 120}, HOST_HOST: {32: 100}})))
    qs = quantities(PAPER, levels)
    assert _quantity(qs, "RTT reduction", "pcie").verdict == "outside"
    below = next(q for q in qs if q.name.startswith("SmartNIC-Host and SmartNIC-SmartNIC"))
    assert below.ours == 0.0 and below.verdict == "outside"  # NIC-NIC above host-host
    in_order = next(q for q in qs if q.name.startswith("SmartNIC-Host and SmartNIC-SmartNIC RTT in the paper's order"))
    assert (in_order.ours, in_order.verdict) == (0.0, "outside")  # NIC-NIC above PCIe: reversed
    text = "\n".join(notes(PAPER, levels, fig3.FULL))
    assert ("Miss: PCIe: host <-> its SmartNIC (memif): RTT reduction vs host-host 10.0%, the paper's 83.3% "
            "(-73.3 points)") in text
    assert "Miss: NIC <-> NIC (via ToR): RTT reduction vs host-host -20.0%, the paper's 86.2% (-106.2 points)" in text
    assert "ours do not (120 us vs 90 us)" in text


def test_notes_say_it_is_the_emulation_and_that_the_order_is_the_check():
    text = " ".join(notes(PAPER, {}, fig3.QUICK))
    assert "EMULATION, not hardware" in text and "ORDER of the levels" in text
    assert "no reduction measured" in text


def test_an_unmeasured_level_is_reported_as_not_measured():
    qs = quantities(PAPER, level_rtts(rtt_estimates(_rows({HOST_HOST: {32: 100}}))))
    assert _quantity(qs, "average RTT", "pcie").verdict == "not measured"
    assert _quantity(qs, "RTT reduction", "nic-nic").verdict == "not measured"


def test_the_plot_draws_every_level_measured():
    from matplotlib.figure import Figure

    levels = level_rtts(rtt_estimates(_rows({"pcie": {32: 20}, "nic-nic": {32: 15}, HOST_HOST: {32: 100}})))
    figure = Figure()
    fig3.plot(figure, PAPER, levels)
    ax = figure.axes[0]
    assert [t.get_text().split("\n")[0] for t in ax.get_xticklabels()] == ["PCIe:", "NIC <-> NIC", "host <-> host"]
    assert any("paper: -83.3%" in t.get_text() for t in ax.texts)


def test_the_experiment_needs_the_rack_and_root():
    assert fig3.EXPERIMENT.needs == frozenset({"root", "rack"}) and not fig3.EXPERIMENT.deterministic


def test_an_rtt_within_the_rounds_drift_and_a_negative_p99_are_called_unresolved():
    rows = [_row("same-node-host", 32, KIND_DIRECT, 390, 5300), _row("same-node-host", 32, KIND_DIRECT, 290, 900),
            _row("same-node-host", 32, KIND_CHAINED, 345, 1700), _row("same-node-host", 32, KIND_CHAINED, 345, 800),
            _row(HOST_HOST, 32, KIND_DIRECT, 250, 700), _row(HOST_HOST, 32, KIND_DIRECT, 260, 700),
            _row(HOST_HOST, 32, KIND_CHAINED, 1050, 2000), _row(HOST_HOST, 32, KIND_CHAINED, 1050, 2000)]
    levels = level_rtts(rtt_estimates(rows))
    assert levels["same-node-host"]["avg_us"] == pytest.approx(5) and levels["same-node-host"]["spread_us"] == 100
    text = "\n".join(notes(PAPER, levels, fig3.FULL))
    assert ("same node (host): its average RTT (5.0 us) is within how far the direct requests' average moved "
            "between rounds (100.0 us)") in text
    assert "same node (host): its p99 estimate is not positive (-1850.0 us)" in text
    assert "host <-> host (via ToR): its" not in text  # 795 us, resolved
