"""Figure 11's pure parts: how decision and transport runs become transmit + decision, its source, verdicts, notes.

The runs themselves (the decision bench at scale, a controller with Postgres and Redis) are not started here.
"""

from e3.experiments import fig11, workload
from e3.experiments.base import RunContext
from e3.experiments.runner import discover

PAPER = workload.paper_values()["fig11"]


def _decision(servers: int, p50: float = 0.1, p99: float = 0.4, cpu_p99: float | None = None) -> dict:
    cpu_p99 = p99 if cpu_p99 is None else cpu_p99
    return {"servers": servers, "nodes": servers * 5, "instances": servers * 16, "decisions": 400, "injected": 400,
            "decision": {"p50_ms": p50, "p99_ms": p99, "max_ms": p99},
            "decision_cpu": {"p50_ms": p50, "p99_ms": cpu_p99, "max_ms": cpu_p99}}


def _transport(servers: int, accepted_share: float = 1.0, p50: float = 0.8, p99: float = 1.0) -> dict:
    scheduled = servers * 5 * 20
    return {"servers": servers, "nodes": servers * 5, "scheduled_hz": scheduled,
            "offered_hz": round(scheduled * min(1.0, accepted_share + 0.1)),
            "ingested_hz": round(scheduled * accepted_share), "loss": 0, "ticks": 1000, "ticks_missed": 0,
            "lag_redis_p50_ms": p50, "lag_redis_p99_ms": p99, "wire_bytes_per_heartbeat": 367.2,
            "controller_cpu_pct": 40.0, "postgres_cpu_pct": 10.0, "loadgen_cpu_pct": 10.0, "redis_cpu_pct": 5.0,
            "monitor_cpu_pct": 5.0}


def _by(quantities, name, **labels):
    return [q for q in quantities if q.name == name and all(q.labels.get(k) == v for k, v in labels.items())]


def test_discovered_with_no_needs_and_not_deterministic():
    experiment = discover()["fig11"]
    assert experiment.needs == frozenset() and experiment.deterministic is False


def test_paper_values_are_the_papers():
    assert PAPER["heartbeat_bytes"] == 16 and PAPER["heartbeat_period_ms"] == 50
    assert PAPER["transmit_and_decision_ms"] == 1.0 and PAPER["up_to_servers"] == 100_000


def test_full_rate_needs_the_scheduled_rate_sent_and_accepted_without_loss():
    assert fig11.is_full_rate(_transport(20))
    assert not fig11.is_full_rate(_transport(100, accepted_share=0.59))
    assert not fig11.is_full_rate(dict(_transport(20), loss=3))
    assert fig11.scheduled_hz(1000, 50) == 100_000


def test_measured_size_is_emulation_and_larger_sizes_are_a_labelled_model():
    combined = fig11.combine([_decision(20, 0.1, 0.3), _decision(100_000, 0.2, 0.5)], [_transport(20)], 50)
    measured, modelled = combined
    assert (measured.source, measured.transport_servers, measured.full_rate) == ("emulation", 20, True)
    assert measured.total_p50_ms == 0.9 and measured.total_p99_ms == 1.3
    assert (modelled.source, modelled.transport_servers) == ("model", 20)
    # 100K servers x 5 nodes / 50 ms = 10M heartbeats/s, over controllers carrying 2,000/s each
    assert modelled.controllers == 5_000
    assert abs(modelled.total_p99_ms - 1.5) < 1e-9


def test_an_overloaded_measurement_is_reported_as_measured_and_modelled_beside_it():
    combined = fig11.combine([_decision(100)], [_transport(20), _transport(100, 0.59, 380.0, 990.0)], 50)
    assert [(c.source, c.transport_servers, c.full_rate) for c in combined] == [
        ("emulation", 100, False), ("model", 20, True)]
    q = fig11.quantities(combined, [_transport(20), _transport(100, 0.59, 380.0, 990.0)], PAPER)
    emulated = _by(q, "transmit + decision p99", servers=100, transport_at_servers=100)
    assert emulated[0].verdict == "outside" and emulated[0].source == "emulation"
    below = _by(q, "transmit + decision p99 below a migration (10 ms)", servers=100, transport_at_servers=100)
    assert below[0].ours == 0.0 and below[0].verdict == "outside"
    assert len(_by(q, "decision p99 (detector + decision, in-process)", servers=100)) == 1


def test_tolerance_is_up_to_twice_the_papers_millisecond_and_below_counts():
    combined = fig11.combine([_decision(20, 0.05, 0.2)], [_transport(20, p50=0.1, p99=1.7)], 50)
    q = fig11.quantities(combined, [_transport(20, p50=0.1, p99=1.7)], PAPER)
    assert _by(q, "transmit + decision p50")[0].verdict == "within"  # 0.15 ms: below ~1 ms
    p99 = _by(q, "transmit + decision p99")[0]
    assert p99.ours == 1.9 and p99.verdict == "within"
    assert _by(q, "transmit + decision p99 below a migration (10 ms)")[0].verdict == "within"
    combined = fig11.combine([_decision(20, 0.05, 0.4)], [_transport(20, p99=1.7)], 50)
    assert _by(fig11.quantities(combined, [], PAPER), "transmit + decision p99")[0].verdict == "outside"


def test_no_full_rate_transport_leaves_larger_sizes_not_measured_and_says_so():
    transports = [_transport(100, 0.5)]
    combined = fig11.combine([_decision(10_000)], transports, 50)
    q = fig11.quantities(combined, transports, PAPER)
    assert _by(q, "transmit + decision p50", servers=10_000)[0].verdict == "not measured"
    text = " ".join(fig11.notes(combined, transports, PAPER, quick=False))
    assert "NOT the full rate" in text and "no model of transmit + decision" in text


def test_notes_name_the_model_the_wire_size_and_each_miss():
    transports = [_transport(20, p99=100.0)]
    combined = fig11.combine([_decision(20), _decision(50_000)], transports, 50)
    notes = fig11.notes(combined, transports, PAPER, quick=True)
    text = " ".join(notes)
    assert "labelled `model`" in text and "50,000: 2,500" in text
    assert "367.2 B on the wire" in text and "23x the paper's 16 B" in text
    misses = next(n for n in notes if n.startswith("Misses:"))
    assert "20 servers (emulation" in misses and "50,000 servers (model" in misses
    assert "decision alone" in misses and "under 1 ms at every size" in misses
    assert any(n.startswith("Quick mode") for n in notes)
    size = _by(fig11.quantities(combined, transports, PAPER), "heartbeat size on the wire (protobuf + gRPC prefix)")
    assert size[0].paper == 16 and size[0].ours == 367.2 and size[0].verdict == "outside"


def test_rows_and_plot(monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    transports = [_transport(20), _transport(1000, 0.25, 270.0, 490.0)]
    decisions = [_decision(1000), _decision(100_000)]
    combined = fig11.combine(decisions, transports, 50)
    rows = fig11.rows_of(decisions, transports, combined)
    assert [r["part"] for r in rows].count("decision") == 2
    assert [r["part"] for r in rows].count("transport") == 2
    assert {r["source"] for r in rows if r["part"] == "transmit+decision"} == {"emulation", "model"}
    figure = Figure()
    fig11._plotter(combined, transports, PAPER)(figure)
    ax = figure.axes[0]
    assert ax.get_xscale() == "log" and any("paper" in t.get_text() for t in ax.get_legend().get_texts())


def test_run_wires_the_benches_together(monkeypatch):
    monkeypatch.setattr(fig11, "run_scale", lambda servers, cfg, report: _decision(servers))
    monkeypatch.setattr(fig11, "run_ingest", lambda cfg, report: _transport(cfg.servers))
    seen = []
    result = fig11.EXPERIMENT.run(RunContext(quick=True, progress=lambda f, text: seen.append(f)))
    assert {q.labels.get("servers") for q in result.quantities} >= set(fig11.QUICK["decision_servers"])
    assert seen[-1] == 1.0 and seen == sorted(seen)
    assert result.incomplete is None


def test_a_decision_tail_over_a_millisecond_is_said_with_its_cpu_time():
    transports = [_transport(20, p99=100.0)]
    combined = fig11.combine([_decision(100), _decision(10_000, 0.13, 4.18, cpu_p99=0.62)], transports, 50)
    q = fig11.quantities(combined, transports, PAPER)
    assert _by(q, "decision p99, CPU time (detector + decision, in-process)", servers=10_000)[0].ours == 0.62
    misses = next(n for n in fig11.notes(combined, transports, PAPER, quick=False) if n.startswith("Misses:"))
    assert "p99 at most 4.18 ms (10,000 servers): over 1 ms" in misses and "CPU-time p99 at most 0.62 ms" in misses


def test_the_first_note_sums_up_decision_transport_and_the_verdicts():
    transports = [_transport(20, p50=1.58, p99=124.0), _transport(100, 0.45, 896.0, 1744.0)]
    combined = fig11.combine([_decision(100, 0.08, 0.23, 0.22), _decision(100_000, 0.32, 1.6, 0.52)], transports, 50)
    first = fig11.notes(combined, transports, PAPER, quick=False)[0]
    assert first.startswith("Decision up to 100,000 servers: p50 0.08-0.32 ms, CPU-time p99 at most 0.52 ms")
    assert "full 50 ms rate up to 20 servers: p50 1.58 ms, p99 124.0 ms" in first
    assert "not at the full rate at 100 (45% accepted) servers" in first
    # 100 measured (overloaded) + 100 and 100K modelled: 3 sizes x (p50, p99), the two modelled p50s within
    assert "transmit + decision (emulation and model)" in first and "2 of 6 within" in first


def test_each_full_rate_run_gives_its_own_model():
    transports = [_transport(20, p50=0.8, p99=90.0), _transport(50, p50=14.0, p99=208.0)]
    combined = fig11.combine([_decision(100_000)], transports, 50)
    assert [(c.source, c.transport_servers, c.controllers) for c in combined] == [
        ("model", 20, 5_000), ("model", 50, 2_000)]
    text = " ".join(fig11.notes(combined, transports, PAPER, quick=False))
    assert "from 20 servers: 100,000: 5,000; from 50 servers: 100,000: 2,000" in text
    from matplotlib.figure import Figure

    figure = Figure()
    fig11._plotter(combined, transports, PAPER)(figure)
    labels = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert "transmit + decision p50 (ours, model, transport of 50 servers)" in labels
