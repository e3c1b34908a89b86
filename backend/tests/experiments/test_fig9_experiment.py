"""Figure 9's pure parts: how measured rows become gains beside the paper's, the verdicts, and the notes on a miss.
The rack run itself is not exercised here (it needs root and minutes): `e3 experiment run fig9`."""

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure

from e3.experiments import fig9
from e3.experiments.workload import paper_values

PAPER = paper_values()["fig9"]


def _row(config: str, rps: float, watts: float, host_fps: float, rate: float | None = 1e6, ports: int = 4) -> dict:
    return {"app": "nfv-fin", "config": config, "throughput_rps": rps, "watts": watts,
            "requests_per_joule": rps / watts, "host_frames_per_s": host_fps,
            "host_bandwidth_available_bit_s": None if rate is None else rate * ports}


def _by_name(quantities) -> dict:
    return {q.name: q for q in quantities if "config" not in q.labels}


def test_gains_are_sharing_over_dedicated_beside_the_papers_up_to_values():
    rows = [_row("unpaced", 3000, 300, 6000, rate=None), _row("sharing", 2900, 300, 5800),
            _row("dedicated", 1000, 290, 2000, ports=1)]
    q = _by_name(fig9.quantities(PAPER, rows))
    throughput = q["throughput gain, sharing / dedicated"]
    assert (throughput.paper, throughput.ours, throughput.source) == (2.9, 2.9, "emulation")
    assert throughput.verdict == "within"
    energy = q["energy-efficiency gain, sharing / dedicated"]
    assert energy.source == "emulation+model-power" and energy.paper == 2.7
    assert abs(energy.ours - (2900 / 300) / (1000 / 290)) < 1e-9
    bandwidth = q["available host bandwidth, sharing / dedicated"]  # fixed by the set-up: beside the paper, unjudged
    assert (bandwidth.ours, bandwidth.paper, bandwidth.verdict) == (4.0, 4.0, "not judged")
    assert q["host traffic received, sharing / dedicated"].paper is None


def test_a_miss_is_outside_and_the_notes_say_by_how_much_and_why():
    rows = [_row("sharing", 1100, 300, 2200), _row("dedicated", 1000, 300, 2000, ports=1)]
    q = _by_name(fig9.quantities(PAPER, rows))
    assert q["throughput gain, sharing / dedicated"].verdict == "outside"
    misses = [n for n in fig9.notes(PAPER, rows) if n.startswith("Miss: nfv-fin throughput gain")]
    assert misses and "1.10x" in misses[0] and "2.9x" in misses[0] and "-62%" in misses[0]


def test_without_a_dedicated_run_no_gain_is_claimed():
    q = fig9.quantities(PAPER, [_row("sharing", 1100, 300, 2200)])
    assert not [x for x in q if "sharing / dedicated" in x.name]
    assert fig9.gain(5.0, 0.0) is None and fig9.gain(None, 2.0) is None


def test_the_scaled_link_rate_splits_the_unpaced_bytes_over_the_four_ports():
    assert fig9.port_rate(1_000_000) == 2_000_000  # 8 Mbit/s into the server -> 2 Mbit/s per port


def test_the_application_pins_its_client_facing_node_to_the_host():
    apps = fig9._apps()
    assert list(fig9._apps(quick=True)) == ["nfv-fin"] and set(apps) == {"nfv-fin", "iot-ts"}
    nodes = {n["id"]: n for n in fig9.application(apps["nfv-fin"])["spec"]["nodes"]}
    assert nodes["flow"]["constraints"]["platform"] == "host"
    assert all(n["shards"] == fig9.NFV_SHARDS and n["replicas"] == 0 for n in nodes.values())
    nodes = {n["id"]: n for n in fig9.application(apps["iot-ts"])["spec"]["nodes"]}
    assert nodes["api"]["constraints"]["platform"] == "host" and nodes["api"]["config"]["keys"]


def test_the_plot_draws_both_configurations():
    rows = [_row("sharing", 2900, 300, 5800), _row("dedicated", 1000, 290, 2000, ports=1)]
    figure = Figure()
    fig9.plotter(PAPER, rows)(figure)
    assert len(figure.axes) == 2 and all(ax.get_yscale() == "log" for ax in figure.axes)


def test_the_app_that_benefits_least_is_compared_when_two_apps_ran():
    rows = [_row("sharing", 2900, 300, 5800), _row("dedicated", 1000, 290, 2000, ports=1),
            dict(_row("sharing", 500, 300, 900), app="iot-ts"), dict(_row("dedicated", 450, 290, 800), app="iot-ts")]
    least = _by_name(fig9.quantities(PAPER, rows))["IOT-TS benefits the least from sharing"]
    assert (least.ours, least.verdict, least.labels["ours_least"]) == (1.0, "within", "iot-ts")


def test_alternating_rounds_are_averaged_per_configuration():
    rows = [_row("sharing", 3000, 300, 6000), _row("dedicated", 1000, 300, 2000, ports=1),
            _row("sharing", 2000, 300, 4000), _row("dedicated", 1000, 300, 2000, ports=1)]
    means = fig9.by_config(rows)
    assert means[("nfv-fin", "sharing")]["throughput_rps"] == 2500 and means[("nfv-fin", "sharing")]["rounds"] == 2
    assert _by_name(fig9.quantities(PAPER, rows))["throughput gain, sharing / dedicated"].ours == 2.5


def test_a_different_least_benefit_app_is_a_miss_named_in_the_notes():
    rows = [_row("sharing", 1100, 300, 2200), _row("dedicated", 1000, 290, 2000, ports=1),
            dict(_row("sharing", 900, 300, 900), app="iot-ts"), dict(_row("dedicated", 450, 290, 800), app="iot-ts")]
    least = _by_name(fig9.quantities(PAPER, rows))["IOT-TS benefits the least from sharing"]
    assert least.verdict == "outside" and least.labels["ours_least"] == "nfv-fin"
    assert any(n.startswith("Miss: IOT-TS benefits the least") and "nfv-fin" in n for n in fig9.notes(PAPER, rows))


def test_the_notes_say_where_the_bytes_went_and_when_the_watts_do_not_move():
    rows = [dict(_row("sharing", 1100, 168.4, 2200), into_server_bytes_per_port={"t1p0": 600, "t1p1": 200,
                                                                                 "t1p2": 100, "t1p3": 100}),
            dict(_row("dedicated", 1000, 168.5, 2000, ports=1), into_server_bytes_per_port={"t1p1": 900})]
    notes = fig9.notes(PAPER, rows)
    assert any("t1p0 60%" in n and "even: 25%" in n for n in notes)
    assert any("energy-efficiency gain is the throughput gain" in n for n in notes)


def test_a_failed_measurement_is_the_error_raised_even_when_restoring_the_rack_fails_too(monkeypatch):
    calls, reports = [], []

    def pace_ports(plan, rate):
        calls.append(("pace", rate))
        if rate is None:
            raise OSError("tc: no such device")

    class FakeApi:  # only what restoring asks of the API
        def request(self, method, path):
            calls.append((method, path))

    monkeypatch.setattr(fig9.rack_network, "pace_ports", pace_ports)
    monkeypatch.setattr(fig9.rack_network, "route_host_via", lambda plan, server, nics: calls.append(("route", nics)))
    monkeypatch.setattr(fig9, "deploy", lambda api, document: ("dep-1", []))
    monkeypatch.setattr(fig9, "_measure", lambda *args: (_ for _ in ()).throw(TimeoutError("e3-loadgen timed out")))
    load = fig9.AppLoad("nfv-fin", lambda: {}, "entry", "x", shards=None)
    monkeypatch.setattr(fig9, "application", lambda load: {})
    plan = type("Plan", (), {"servers": ["s00"]})()
    try:
        fig9._run_app(FakeApi(), plan, load, 1.0, 1, reports.append, [])
    except TimeoutError as exc:
        assert str(exc) == "e3-loadgen timed out"  # the measurement's error, not the restore's
    else:
        raise AssertionError("the measurement's error was swallowed")
    # every restore step was tried although the first failed, and the failure was reported beside the error
    assert calls == [("pace", None), ("route", None), ("DELETE", "/api/v1/deployments/dep-1")]
    assert any("restoring the rack failed too: unpacing the ports: tc: no such device" in r for r in reports)
