"""Placement benchmark: speed at scale beside the paper's Table 6, and predicted quality per paper app.

Every (scale, algorithm) run happens in a fresh child process, so its peak memory is its own.
Timing figures are measured on this machine; energy and latency figures are the cost model's
predictions (source: model), never measurements.
"""

import multiprocessing
from queue import Empty
import resource
import time
from dataclasses import dataclass

from e3 import catalog
from e3.bench.synthetic import fattree_nodes, paper_mix_problem
from e3.placement import algorithm_options, problem_from_document, run
from e3.placement.cost_model import predict
from e3.placement.model import PlacementError, copy_nodes

# Paper Table 6: ms per microservice placing 10K microservices on a FatTree of Type2 servers.
PAPER_TABLE6 = {
    100: {"hcm": 4.85, "annealing": 3.15, "ilp": 7.64},
    200: {"hcm": 8.31, "annealing": 4.73, "ilp": 19.43},
    400: {"hcm": 19.83, "annealing": 7.43, "ilp": 84.83},
    600: {"hcm": 34.32, "annealing": 15.64, "ilp": 361.85},
    800: {"hcm": 74.39, "annealing": 23.5, "ilp": None},
    1000: {"hcm": 263.46, "annealing": 61.42, "ilp": None},
}
# Paper Figure 6: HCM's energy efficiency gain, "up to", over its baselines.
PAPER_FIG6_RPJ_GAIN = {"annealing": 1.352, "ilp": 1.22}

SCALE_ALGORITHMS = ("hcm", "annealing", "ilp")
APP_ALGORITHMS = ("hcm", "annealing", "ilp", "first_fit")


@dataclass(frozen=True)
class BenchConfig:
    servers: tuple[int, ...] = (100, 1000, 10000)
    microservices: int = 10_000
    ilp_time_limit_s: float = 30.0
    seed: int = 0


def _options(algorithm: str, cfg: BenchConfig) -> dict:
    return algorithm_options(algorithm, seed=cfg.seed, ilp_time_limit_s=cfg.ilp_time_limit_s)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def _one_scale_run(servers: int, algorithm: str, cfg: BenchConfig) -> dict:
    """In a child process: build the cluster and the 10K-instance mix, place, predict."""
    from e3.placement import ALGORITHMS

    nodes = fattree_nodes(servers)
    problem = paper_mix_problem(cfg.microservices)
    row = dict(kind="scale", servers=servers, app="paper-mix", algorithm=algorithm,
               microservices=len(problem.instances))
    started = time.perf_counter()
    try:
        placement = ALGORITHMS[algorithm](problem, nodes, **_options(algorithm, cfg))
    except PlacementError as exc:
        return dict(row, error=exc.message, peak_rss_mb=round(_peak_rss_mb(), 1))
    elapsed_ms = (time.perf_counter() - started) * 1000
    prediction = predict(problem, nodes, placement)
    return dict(row, ms_per_microservice=round(elapsed_ms / len(problem.instances), 4),
                total_s=round(elapsed_ms / 1000, 2), optimal=placement.optimal,
                predicted_rpj=round(prediction.requests_per_joule, 3),
                predicted_latency_ms=round(prediction.avg_latency_ms, 4),
                paper_ms_per_microservice=PAPER_TABLE6.get(servers, {}).get(algorithm),
                peak_rss_mb=round(_peak_rss_mb(), 1), source={"timing": "measured", "rpj": "model"})


def _child(queue, servers, algorithm, cfg) -> None:
    try:
        queue.put(_one_scale_run(servers, algorithm, cfg))
    except Exception as exc:  # reported as a row, so one failure does not hide the other figures
        queue.put(dict(kind="scale", servers=servers, app="paper-mix", algorithm=algorithm,
                       error=f"{type(exc).__name__}: {exc}"))


def _result_of(proc, queue, row: dict) -> dict:
    """The child's row, or an error row if it died without one (killed for memory, say)."""
    while True:
        try:
            return queue.get(timeout=1.0)
        except Empty:
            if not proc.is_alive():
                return dict(row, error=f"the benchmark process died (exit code {proc.exitcode})")


def scale_benchmark(cfg: BenchConfig, algorithms=SCALE_ALGORITHMS, report=print) -> list[dict]:
    ctx = multiprocessing.get_context("spawn")
    rows = []
    for servers in cfg.servers:
        for algorithm in algorithms:
            queue = ctx.Queue()
            proc = ctx.Process(target=_child, args=(queue, servers, algorithm, cfg))
            proc.start()
            row = _result_of(proc, queue, dict(kind="scale", servers=servers, app="paper-mix", algorithm=algorithm))
            proc.join()
            report(f"  {servers:>6} servers  {algorithm:<10} "
                   + (f"{row['ms_per_microservice']:.4f} ms/microservice" if "error" not in row else row["error"]))
            rows.append(row)
    return rows


def app_benchmark(cfg: BenchConfig, algorithms=APP_ALGORITHMS, servers: int = 3,
                  server_type: str = "type1-smartnic") -> list[dict]:
    """Each paper application alone on a small cluster: predicted energy efficiency and latency."""
    base = fattree_nodes(servers, server_type)
    rows = []
    for app in catalog.template_names():
        problem = problem_from_document(catalog.template(app))
        for algorithm in algorithms:
            nodes = copy_nodes(base)
            row = dict(kind="app", servers=servers, server_type=server_type, app=app, algorithm=algorithm,
                       microservices=len(problem.instances))
            try:
                placement = run(algorithm, problem, nodes, **_options(algorithm, cfg))
            except PlacementError as exc:
                rows.append(dict(row, error=exc.message))
                continue
            prediction = predict(problem, nodes, placement)
            rows.append(dict(row, ms_per_microservice=round(placement.runtime_ms / len(problem.instances), 4),
                             optimal=placement.optimal, predicted_rpj=round(prediction.requests_per_joule, 3),
                             predicted_latency_ms=round(prediction.avg_latency_ms, 4),
                             predicted_p99_latency_ms=round(prediction.p99_latency_ms, 4),
                             peak_rss_mb=round(_peak_rss_mb(), 1), source={"timing": "measured", "rpj": "model"}))
    return rows
