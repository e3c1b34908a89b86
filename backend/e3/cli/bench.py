"""`e3 bench ...`: benchmarks that print figures and ratios (and JSON with --json)."""

import json
import os

import typer

from e3.client.api import ClientError


def _int_list(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError as exc:
        raise ClientError(f"--servers takes whole numbers separated by commas, not '{text}'", exit_code=2) from exc
    if not values or any(v < 1 for v in values):
        raise ClientError("--servers needs at least one positive number", exit_code=2)
    return values


def _run(benchmark, cfg) -> dict:
    """Run a benchmark that starts its own services, progress on stderr; its failures as CLI errors."""
    try:
        return benchmark(cfg, report=lambda text: typer.echo(text, err=True))
    except KeyboardInterrupt:
        raise ClientError("interrupted; everything the benchmark started was stopped", exit_code=130) from None
    except RuntimeError as exc:
        raise ClientError(str(exc)) from exc


def register(app: typer.Typer) -> None:
    bench_app = typer.Typer(help="Benchmarks: measured timings, modelled energy, side-by-side ratios.",
                            no_args_is_help=True)
    app.add_typer(bench_app, name="bench")

    @bench_app.command("placement")
    def bench_placement(
        servers: str = typer.Option("100,1000,10000", help="Cluster sizes (type2-smartnic servers), comma-separated"),
        microservices: int = typer.Option(10_000, min=1, help="Instances placed at each size"),
        algorithms: str = typer.Option("hcm,annealing,ilp", help="Algorithms for the scale runs"),
        ilp_time_limit_s: float = typer.Option(30.0, min=0.1, help="Time cap of the ILP per run"),
        apps: bool = typer.Option(True, help="Also compare algorithms on each paper app (3 x type1-smartnic)"),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object per (scale or app, algorithm)"),
    ) -> None:
        """Placement speed at scale beside the paper's Table 6, and predicted quality per paper app."""
        from e3.bench.placement import BenchConfig, app_benchmark, scale_benchmark
        from e3.bench.placement_report import render
        from e3.placement import ALGORITHMS

        names = [a.strip() for a in algorithms.split(",") if a.strip()]
        unknown = [a for a in names if a not in ALGORITHMS]
        if unknown:
            raise ClientError(f"unknown algorithm(s) {', '.join(unknown)}; valid: {', '.join(ALGORITHMS)}", exit_code=2)
        cfg = BenchConfig(servers=_int_list(servers), microservices=microservices, ilp_time_limit_s=ilp_time_limit_s)
        quiet = (lambda *_: None) if as_json else (lambda text: typer.echo(text, err=True))
        scale_rows = scale_benchmark(cfg, names, report=quiet)
        app_rows = app_benchmark(cfg) if apps else []
        if as_json:
            print(json.dumps(scale_rows + app_rows, indent=1))
        else:
            print(render(scale_rows, app_rows))

    @bench_app.command("agent")
    def bench_agent(
        seconds: float = typer.Option(20.0, min=1, help="Measurement window per step"),
        period_ms: int = typer.Option(50, min=1, max=60_000, help="Heartbeat period, milliseconds"),
        instances: str = typer.Option("0,8", help="kvs instances on the agent's node, per step (comma-separated)"),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object for the run"),
    ) -> None:
        """CPU of one real e3-agent while it heartbeats (idle, then with instances), against the 2%-of-a-core
        target."""
        from e3.bench.agent import AgentBenchConfig, render, run_agent_bench

        try:
            steps = [int(n) for n in instances.split(",") if n.strip()]
        except ValueError:
            raise ClientError(f"--instances: expected numbers separated by commas, got {instances!r}", exit_code=2)
        if not steps or any(n < 0 or n > 64 for n in steps):
            raise ClientError("--instances: each step must be 0..64", exit_code=2)
        result = _run(run_agent_bench, AgentBenchConfig(seconds=seconds, period_ms=period_ms, instances=steps))
        print(json.dumps(result, indent=1) if as_json else render(result))

    @bench_app.command("ingest")
    def bench_ingest(
        servers: int = typer.Option(1000, min=1, help="type2-smartnic servers (5 nodes each: host + 4 SmartNICs)"),
        seconds: float = typer.Option(10.0, min=0.5, help="How long heartbeats are streamed"),
        period_ms: int = typer.Option(50, min=1, max=60_000, help="Heartbeat period per node, milliseconds"),
        batch: int = typer.Option(0, min=0, help="Agents (servers) multiplexed per StreamHeartbeats; 0: auto"),
        workers: int = typer.Option(0, min=0, help="Load-generator processes; 0: auto (1 up to 50 servers, else 2)"),
        instances: int = typer.Option(2, min=0, max=64, help="Instances reported in each heartbeat"),
        front: bool = typer.Option(False, "--front", help="The controller behind its compiled ingest front "
                                                          "(E3_INGEST_FRONT; e3-ingest from make agents)"),
        controllers: int = typer.Option(1, min=1, max=16, help="Controller processes (load-generator process i "
                                                               "streams to controller i mod N)"),
        kill_after: float = typer.Option(0.0, "--kill-after", min=0.0,
                                         help="kill -9 of the first controller this many seconds into the window: "
                                              "its streams move to the next one (needs --controllers 2+)"),
        loadgen: str = typer.Option("auto", "--loadgen", help="Who streams: native (e3-heartbeat-load, from make "
                                                              "agents), python, or auto (native when built, except "
                                                              "with --kill-after)"),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object for the run"),
    ) -> None:
        """Heartbeats from simulated agents into real controllers, Postgres and Redis started here: rates, loss,
        lag, CPU; with --kill-after, how long a killed controller's nodes take to report again elsewhere."""
        from e3.bench.ingest import IngestConfig, run_ingest
        from e3.bench.ingest_report import render

        from e3.bench import energy_accounting

        cfg = IngestConfig(servers=servers, seconds=seconds, period_ms=period_ms, agents_per_stream=batch,
                           workers=workers, instances=instances, front=front, controllers=controllers,
                           kill_after_s=kill_after, loadgen=loadgen)
        try:
            cfg.resolved()
        except ValueError as exc:
            raise ClientError(str(exc), exit_code=2) from None
        result = _run(run_ingest, cfg)
        result["energy_accounting"] = energy_accounting.run_energy_accounting(
            energy_accounting.AccountingConfig(nodes=min(cfg.servers * 5, 1000), instances=instances),
            report=lambda text: typer.echo(text, err=True))
        if as_json:
            print(json.dumps(result, indent=1))
        else:
            print(render(result))
            print()
            print(energy_accounting.render(result["energy_accounting"]))

    @bench_app.command("api")
    def bench_api(
        seconds: float = typer.Option(10.0, min=1, max=600, help="Length of the steady and overload sections"),
        rate: float = typer.Option(200.0, min=1, max=5000, help="Steady REST reads, requests/s"),
        overload_rate: float = typer.Option(400.0, min=1, max=10_000, help="Overload section, requests/s"),
        in_flight: int = typer.Option(1000, min=1, max=5000, help="Burst: requests sent at once"),
        hang_s: float = typer.Option(30.0, min=1, max=600, help="A request unanswered this long counts as hung"),
        setting: list[str] = typer.Option([], "--set", help="A setting for `e3 api`, NAME=VALUE (repeat), e.g. "
                                                            "E3_API_QUEUE=32"),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object for the run"),
    ) -> None:
        """The REST API under load, against a real `e3 api`, Postgres and Redis started here: read latency at a
        steady rate, 503 refusal latency when overloaded, hangs with many requests in flight."""
        from e3.bench.api_load import ApiLoadConfig, run_api_load
        from e3.bench.api_load_report import render

        bad = [s for s in setting if "=" not in s]
        if bad:
            raise ClientError(f"--set takes NAME=VALUE, not {bad[0]!r}", exit_code=2)
        cfg = ApiLoadConfig(seconds=seconds, rate=rate, overload_rate=overload_rate, in_flight=in_flight,
                            hang_s=hang_s, api_env=tuple(tuple(s.split("=", 1)) for s in setting))
        result = _run(run_api_load, cfg)
        print(json.dumps(result, indent=1) if as_json else render(result))

    @bench_app.command("metrics")
    def bench_metrics(
        nodes: int = typer.Option(5000, min=1, max=100_000, help="Computing nodes reporting"),
        instances: int = typer.Option(20_000, min=0, max=500_000, help="Microservice instances reporting"),
        requests: int = typer.Option(200, min=1, max=100_000, help="GET /metrics requests timed"),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object for the run"),
    ) -> None:
        """GET /metrics on a real `e3 api` with the controller's families of a ledger of that size, and what the
        controller's render of them costs."""
        from e3.bench.metrics import MetricsBenchConfig, run_metrics_bench
        from e3.bench.metrics_report import render

        result = _run(run_metrics_bench, MetricsBenchConfig(nodes=nodes, instances=instances, requests=requests))
        print(json.dumps(result, indent=1) if as_json else render(result))

    @bench_app.command("dataplane")
    def bench_dataplane(
        seconds: float = typer.Option(3.0, min=0.5, max=600, help="Sending time per section and round"),
        rounds: int = typer.Option(3, min=1, max=50, help="Rounds of every section, interleaved; the report "
                                                          "takes medians (the machine is shared and noisy)"),
        size: int = typer.Option(64, help="Ethernet frame bytes without FCS, 60..1514 (64: the per-packet worst "
                                          "case, as packets/s figures are quoted)"),
        flows: int = typer.Option(1, min=1, max=1024, help="UDP source ports the blaster rotates through"),
        adaptive_sink: bool = typer.Option(True, help="The host sink naps when idle, leaving the cores to the sender "
                                                      "and e3-nic (--no-adaptive-sink: it busy-polls)"),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object for the run"),
    ) -> None:
        """Packets/s through e3-nic beside raw af_packet on one veth, and memif messages/s (root: network
        namespaces e3b-*)."""
        from e3.bench.dataplane import DataplaneConfig, run_dataplane_bench
        from e3.bench.dataplane_report import render, targets

        if not 60 <= size <= 1514:
            raise ClientError(f"--size: {size} is not a frame size in 60..1514 bytes", exit_code=2)
        cfg = DataplaneConfig(seconds=seconds, rounds=rounds, size=size, flows=flows, adaptive_sink=adaptive_sink)
        result = _run(run_dataplane_bench, cfg)
        if as_json:
            print(json.dumps(dict(result, targets=targets(result["sections"])), indent=1))
        else:
            print(render(result))

    @bench_app.command("rack")
    def bench_rack(
        connections: int = typer.Option(2000, min=100, max=20000, help="Host connections for the ECMP count"),
        seconds: float = typer.Option(10.0, min=1, max=600, help="Load time per NFV-FIN placement"),
        load_connections: int = typer.Option(16, min=1, max=1024, help="e3-loadgen's requests outstanding"),
        sections: str = typer.Option("ecmp,nfv-fin", help="Which sections: ecmp, nfv-fin"),
        as_json: bool = typer.Option(False, "--json", help="Print the sections as JSON"),
    ) -> None:
        """On the emulated rack (root; runs its own `e3 up`): ECMP spread and failover over a type2 server's
        NICs, and NFV-FIN with HCM beside the same DAG on hosts only."""
        from e3.bench.rack import ecmp_section, nfv_fin_section
        from e3.bench.rack_report import render

        wanted = [s.strip() for s in sections.split(",") if s.strip()]
        unknown = set(wanted) - {"ecmp", "nfv-fin"}
        if unknown or not wanted:
            raise ClientError(f"--sections: {', '.join(sorted(unknown)) or 'none given'}; use ecmp, nfv-fin", exit_code=2)
        runs = {"ecmp": lambda cfg, report: ecmp_section(connections, report),
                "nfv-fin": lambda cfg, report: nfv_fin_section(seconds, load_connections, report)}
        result = [_run(runs[name], None) for name in wanted]
        print(json.dumps(result, indent=1) if as_json else render(result))

    @bench_app.command("orchestrator")
    def bench_orchestrator(
        section: str = typer.Option("decision", help="Sections, comma-separated: decision (in memory); real (a "
                                                     "controller process under heartbeat load); migration and "
                                                     "figure7 (root: each runs its own emulated rack)"),
        servers: str = typer.Option("1000,10000", help="decision, real: cluster sizes (type2-smartnic servers)"),
        injections: int = typer.Option(400, min=1, help="decision: troubled NICs per size (half overload, half "
                                                        "host starvation)"),
        batch: int = typer.Option(100, min=1, help="decision: NICs in trouble at the same time"),
        hosts_full: float = typer.Option(0.5, min=0.0, max=1.0, help="decision: share of hosts with no cores left"),
        seed: int = typer.Option(1, help="Random seed"),
        keys: int = typer.Option(100_000, min=1, max=10_000_000, help="migration: keys preloaded into the kvs"),
        seconds: float = typer.Option(10.0, min=1, max=600, help="figure7: load window per phase; real: heartbeats "
                                                                 "sent for this long (at least 10)"),
        troubled_nics: int = typer.Option(30, min=1, max=10_000, help="real: SmartNICs made troubled, one per "
                                                                      "server, each every 6 s"),
        connections: int = typer.Option(64, min=1, max=4096, help="figure7: e3-loadgen's requests outstanding"),
        front: bool = typer.Option(False, "--front", help="real: the controller behind its compiled ingest front, "
                                                          "which judges the heartbeats (e3-ingest, make agents)"),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object, a key per section"),
    ) -> None:
        """Data-plane orchestrator: decision latency at scale (Figure 11); on the emulated rack, migration and
        failover times and the paper's Figure 7 (gateway on a SmartNIC, before and after the orchestrator)."""
        from e3.bench.decision_path import real_path_section
        from e3.bench.orchestrator import RACK_SECTIONS, SECTIONS, DecisionBenchConfig, decision_section
        from e3.bench.orchestrator_report import render

        wanted = list(dict.fromkeys(s.strip() for s in section.split(",") if s.strip()))
        unknown = [s for s in wanted if s not in SECTIONS]
        if unknown or not wanted:
            raise ClientError(f"--section: {', '.join(unknown) or 'none given'}; valid: {', '.join(SECTIONS)}",
                           exit_code=2)
        if "real" in wanted and seconds < 10:
            raise ClientError(f"--seconds {seconds:g}: the real section needs at least 10 (windows start after 2 s, "
                              "and each NIC is troubled once per 6 s)", exit_code=2)
        rack = [s for s in wanted if s in RACK_SECTIONS]
        if rack and os.geteuid() != 0:
            raise ClientError(f"--section {', '.join(rack)}: needs root (it runs an emulated rack: network namespaces, "
                           "DPDK); run it as root, e.g. `sudo make bench-orchestrator-rack`")
        quiet = (lambda *_: None) if as_json else (lambda text: typer.echo(text, err=True))

        def rack_section(name):
            from e3.bench.figure7 import figure7_section
            from e3.bench.orchestrator_rack import migration_section

            if name == "migration":
                return _run(lambda cfg, report: migration_section(keys, report=report), None)
            return _run(lambda cfg, report: figure7_section(seconds, connections, report=report), None)

        runs = {"decision": lambda: decision_section(
            DecisionBenchConfig(servers=_int_list(servers), injections=injections, batch=batch,
                                hosts_full=hosts_full, seed=seed), report=quiet),
                "migration": lambda: rack_section("migration"), "figure7": lambda: rack_section("figure7"),
                "real": lambda: _run(lambda cfg, report: real_path_section(
                    _int_list(servers), seconds, troubled_nics, report, front=front), None)}
        result = {name: runs[name]() for name in wanted}
        print(json.dumps(result, indent=1) if as_json else render(result))
