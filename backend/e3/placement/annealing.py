"""Simulated annealing in the style of Service Fabric's Cluster Resource Manager: the paper's baseline (§3.3, §5.4).

Service Fabric "ignores network topology and favors spreading load over multiple nodes" (paper §3.3).
Its search (microsoft/service-fabric, src/prod/src/Reliability/LoadBalancing/Searcher.cpp) minimises
an energy that averages per-metric balance scores, each kept from running sums of the node loads and
of their squares (Accumulator.cpp). The energy here follows it:

    energy = w_balance       * mean over cores, memory, bandwidth of stddev(per-node utilisation)
           + w_interference  * stddev / mean of the per-node instance count
           + w_communication * mean over DAG edges of the price of a request (COMMUNICATION_WEIGHTS)

Utilisation is load over capacity, as SF's BalancingByPercentage. The instance-count term is SF's
default `Count` metric scored as SF scores every metric (NormStdDev); with the number of instances
fixed it falls exactly when fewer pairs of instances share a node: co-execution interference.
Communication is weighted 0 by default, as in SF.

The search starts from first-fit, then tries random moves (one instance to another node) and swaps
(two instances trade nodes). A candidate the shared rules (`e3.placement.constraints`) refuse is
dropped, so every state visited is feasible. Each candidate is priced in O(1) from the running sums
(plus its DAG neighbours when communication counts), never by recomputing the whole energy.

Defaults are Service Fabric's (PLBConfig.h) where it has one; see docs/placement-baselines.md. SF
bounds a search by wall time (PlacementSearchTimeout 0.5 s, MaxSimulatedAnnealingIterations -1), which
would make results depend on the machine: here the budget is a number of moves that grows with the
number of instances, and a seed fixes the run.
"""

import math
import random
import time
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence

from e3.placement.constraints import PlacementState, can_host
from e3.placement.cost_model import LEVEL_RTT_US
from e3.placement.first_fit import first_fit, most_constrained_first
from e3.placement.model import (
    LEVEL_RACK_HOST,
    RESOURCES,
    InstanceKey,
    NodeCapacity,
    Placement,
    PlacementError,
    PlacementProblem,
    ProgressFn,
    copy_nodes,
)
from e3.placement.positions import NodePositions

# Service Fabric defaults (PLBConfig.h, section PlacementAndLoadBalancing).
ITERATIONS_PER_ROUND = 100  # PlacementSearchIterationsPerRound (balancing rounds use 1000)
TEMPERATURE_DECAY = 0.8  # the ratio SearchForPlacement passes; FastBalancingTemperatureDecayRate
INITIAL_TEMPERATURE_PROBES = 50  # InitialTemperatureProbeCount
INITIAL_TEMPERATURE_FACTOR = 50.0  # GetInitialTemperature: 50 x the largest probed change, "98% acceptance"
SWAP_PROBABILITY = 0.3  # SwapPrimaryProbability, SF's share of swap moves
# E3's own: SF stops on wall time, this stops on a count that scales with the problem.
ITERATIONS_PER_INSTANCE = 20
MIN_ITERATIONS = 10_000
RESUM_EVERY_ROUNDS = 64  # recompute the running sums from scratch, so float drift cannot build up
PROGRESS_REPORTS = 100  # progress calls per run at most (the search reports by share of its budget)

DEFAULT_WEIGHTS = {"balance": 1.0, "interference": 1.0, "communication": 0.0}

# The price of one request between nodes at each LEVEL_*: its RTT in the cost model, relative to
# host <-> host through the ToR (so co-located is cheapest, and another pod the dearest).
COMMUNICATION_WEIGHTS = {level: rtt / LEVEL_RTT_US[LEVEL_RACK_HOST] for level, rtt in LEVEL_RTT_US.items()}


def annealing(problem: PlacementProblem, nodes: Sequence[NodeCapacity], *, progress: ProgressFn | None = None,
              seed: int = 0, iterations: int | None = None, initial_temperature: float | None = None,
              decay: float = TEMPERATURE_DECAY, weights: dict[str, float] | None = None,
              swap_probability: float = SWAP_PROBABILITY,
              iterations_per_round: int = ITERATIONS_PER_ROUND) -> Placement:
    """Place every instance, then anneal towards balanced, spread-out load; PlacementError if nothing fits.

    `iterations` (candidate moves drawn, refused ones included, as SF counts its transitions) defaults
    to max(MIN_ITERATIONS, ITERATIONS_PER_INSTANCE x instances that may move). `progress` hears the
    share of that budget spent, scaled to the number of instances.
    `initial_temperature` defaults to SF's rule, 50 x the largest energy change among 50 random moves.
    As in SF the temperature is multiplied by `decay` after every round of `iterations_per_round`
    candidates that found no new best. `weights` override DEFAULT_WEIGHTS. Same seed, same placement.
    """
    started = time.perf_counter()
    w = {**DEFAULT_WEIGHTS, **(weights or {})}
    unknown = set(w) - set(DEFAULT_WEIGHTS)
    if unknown:
        raise ValueError(f"unknown annealing weights: {', '.join(sorted(unknown))}")
    start, start_rule = _feasible_start(problem, nodes)
    space = SearchSpace(problem, nodes, start.assignments)
    anneal = _Annealer(space, w)
    total = len(problem.instances)
    budget = max(MIN_ITERATIONS, ITERATIONS_PER_INSTANCE * len(space.movable)) if iterations is None else iterations
    rng = random.Random(seed)
    details = {"seed": seed, "start": start_rule, "initial_cost": anneal.energy(), "iterations": 0,
               "accepted_moves": 0, "rounds": 0}
    if space.movable and budget > 0:
        if initial_temperature is None:
            initial_temperature = anneal.probe_temperature(rng, swap_probability)
        report = (lambda done: progress(total * done // budget, total)) if progress else None
        anneal.run(rng, budget, initial_temperature, decay, swap_probability, iterations_per_round, report)
        details.update(iterations=budget, accepted_moves=anneal.accepted, rounds=anneal.rounds,
                       initial_temperature=initial_temperature, final_temperature=anneal.temperature)
    details.update(final_cost=anneal.energy(), **anneal.terms())
    for inst, n in zip(space.instances, space.pos, strict=True):
        nodes[n].reserve(inst)
    if progress:
        progress(total, total)
    return Placement(algorithm="annealing", assignments=space.assignments(),
                     runtime_ms=(time.perf_counter() - started) * 1000.0, details=details)


def _feasible_start(problem: PlacementProblem, nodes: Sequence[NodeCapacity]) -> tuple[Placement, str]:
    """Where the search starts: first-fit in the problem's order, or, when that runs out of room, most constrained
    first (Service Fabric's search also starts from a placement of every replica); PlacementError (first-fit's
    reason) when neither places everything."""
    try:
        return first_fit(problem, copy_nodes(nodes)), "first_fit"
    except PlacementError as in_order:
        try:
            return first_fit(most_constrained_first(problem), copy_nodes(nodes)), "first_fit, most constrained first"
        except PlacementError:
            raise in_order from None


def communication_pairs(problem: PlacementProblem) -> tuple[list[tuple[int, int, float]], int]:
    """DAG-adjacent primary pairs (index of the caller, index of the callee, weight), and how many edges.

    Requests on an edge A -> B spread evenly over A's shards and, by key, over B's shards, so each of the
    sA x sB primary pairs carries 1/(sA sB) of the edge's requests (as the cost model averages an edge
    over its shard pairs); backups serve none.
    """
    primaries: dict[str, list[int]] = defaultdict(list)
    for idx, inst in enumerate(problem.instances):
        if inst.replica == 0:
            primaries[inst.dag_node].append(idx)
    pairs, edges = [], 0
    for a, b in dict.fromkeys(problem.edges):
        src, dst = primaries.get(a), primaries.get(b)
        if not src or not dst or a == b:
            continue
        edges += 1
        w = 1.0 / (len(src) * len(dst))
        pairs.extend((i, j, w) for i in src for j in dst)
    return pairs, edges


class SearchSpace(NodePositions):
    """A placement being searched: private copies of the nodes with the loads reserved on them, the
    shared rules' bookkeeping (`PlacementState`), and node positions as small integers."""

    def __init__(self, problem: PlacementProblem, nodes: Sequence[NodeCapacity],
                 assignments: dict[InstanceKey, Hashable]):
        self.nodes = copy_nodes(nodes)
        self.n = len(self.nodes)
        index = {node.id: k for k, node in enumerate(self.nodes)}
        self.inv_cap = [[1.0 / getattr(node, r) if getattr(node, r) > 0 else 0.0 for r in RESOURCES]
                        for node in self.nodes]
        NodePositions.__init__(self, self.nodes)
        self.count = [0] * self.n
        self.instances = list(problem.instances)
        self.demand = [tuple(float(inst.resource(r)) for r in RESOURCES) for inst in self.instances]
        self.state = PlacementState(problem.anti_affinity)
        self.pos = [index[assignments[inst.key]] for inst in self.instances]
        for k, n in enumerate(self.pos):
            self.nodes[n].reserve(self.instances[k])
            self.state.add(self.instances[k], self.nodes[n])
            self.count[n] += 1
        by_platform: dict[str, list[int]] = {}
        self.targets = []
        for inst in self.instances:
            if inst.platform not in by_platform:
                by_platform[inst.platform] = [k for k, node in enumerate(self.nodes) if inst.allows(node)]
            self.targets.append(by_platform[inst.platform])
        self.movable = [k for k, inst in enumerate(self.instances)
                        if inst.key not in problem.fixed and len(self.targets[k]) > 1]
        self.pairs, edges = communication_pairs(problem)
        self.comm_norm = 1.0 / edges if edges else 0.0
        self.neighbours: list[list[int]] = [[] for _ in self.instances]
        for p, (i, j, _) in enumerate(self.pairs):
            self.neighbours[i].append(p)
            self.neighbours[j].append(p)

    def utilisation(self, n: int) -> tuple[float, float, float]:
        used, inv = self.nodes[n].used, self.inv_cap[n]
        return used["cpu_cores"] * inv[0], used["memory_mb"] * inv[1], used["bandwidth_mbps"] * inv[2]

    def move(self, k: int, n: int) -> None:
        inst, a, b = self.instances[k], self.nodes[self.pos[k]], self.nodes[n]
        a.release(inst)
        self.state.remove(inst, a)
        b.reserve(inst)
        self.state.add(inst, b)
        self.count[self.pos[k]] -= 1
        self.count[n] += 1
        self.pos[k] = n

    def swap(self, i: int, j: int) -> None:
        a, b = self.pos[i], self.pos[j]
        self.move(i, b)
        self.move(j, a)

    def can_move(self, k: int, n: int) -> bool:
        """Whether the shared rules let instance k leave its node for node n."""
        a = self.pos[k]
        if n == a:
            return False
        inst, node_a = self.instances[k], self.nodes[a]
        self.state.remove(inst, node_a)  # its own replica does not block its new server
        ok = can_host(inst, self.nodes[n], self.state.blocked(inst))
        self.state.add(inst, node_a)
        return ok

    def can_swap(self, i: int, j: int) -> bool:
        """Whether the shared rules let instances i and j trade nodes."""
        a, b = self.pos[i], self.pos[j]
        if a == b:
            return False
        inst_i, inst_j, node_a, node_b = self.instances[i], self.instances[j], self.nodes[a], self.nodes[b]
        state = self.state
        if not (inst_i.allows(node_b) and inst_j.allows(node_a)):
            return False
        # Take both off, put i on b, then ask whether j may go on a.
        node_a.release(inst_i)
        state.remove(inst_i, node_a)
        node_b.release(inst_j)
        state.remove(inst_j, node_b)
        ok = can_host(inst_i, node_b, state.blocked(inst_i))
        if ok:
            node_b.reserve(inst_i)
            state.add(inst_i, node_b)
            ok = can_host(inst_j, node_a, state.blocked(inst_j))
            node_b.release(inst_i)
            state.remove(inst_i, node_b)
        node_a.reserve(inst_i)
        state.add(inst_i, node_a)
        node_b.reserve(inst_j)
        state.add(inst_j, node_b)
        return ok


    def communication(self) -> float:
        """Mean over priced DAG edges of the price of a request."""
        pos, level = self.pos, self.level
        return self.comm_norm * sum(w * COMMUNICATION_WEIGHTS[level(pos[i], pos[j])] for i, j, w in self.pairs)

    def communication_delta(self, changes: dict[int, int]) -> float:
        """How `communication()` would change if each instance in `changes` moved to its node."""
        pos, pairs, level = self.pos, self.pairs, self.level
        seen: set[int] = set()
        delta = 0.0
        for k in changes:
            for p in self.neighbours[k]:
                if p not in seen:
                    seen.add(p)
                    i, j, w = pairs[p]
                    delta += w * (COMMUNICATION_WEIGHTS[level(changes.get(i, pos[i]), changes.get(j, pos[j]))]
                                  - COMMUNICATION_WEIGHTS[level(pos[i], pos[j])])
        return delta * self.comm_norm

    def assignments(self) -> dict[InstanceKey, Hashable]:
        return {inst.key: self.nodes[n].id for inst, n in zip(self.instances, self.pos, strict=True)}


class _Annealer:
    """The energy, kept as running sums over the nodes, and the annealing loop."""

    def __init__(self, space: SearchSpace, weights: dict[str, float]):
        self.s = space
        self.wb = weights["balance"] / len(RESOURCES)  # a mean over the resources
        self.wi = weights["interference"]
        self.wc = weights["communication"]
        self.accepted = self.rounds = 0
        self.temperature = 0.0
        self.resum()

    def resum(self) -> None:
        """The running sums from scratch: utilisation sums and sums of squares per resource, sum of
        squared instance counts, and the communication price."""
        s1, s2 = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
        for n in range(self.s.n):
            for r, u in enumerate(self.s.utilisation(n)):
                s1[r] += u
                s2[r] += u * u
        self.s1, self.s2 = s1, s2
        self.c2 = float(sum(c * c for c in self.s.count))
        self.comm = self.s.communication() if self.wc else 0.0

    def _balance(self, s1: Sequence[float], s2: Sequence[float]) -> float:
        n = self.s.n
        return sum(math.sqrt(max(0.0, s2[r] / n - (s1[r] / n) ** 2)) for r in range(3))

    def _interference(self, c2: float) -> float:
        m = len(self.s.instances)
        return math.sqrt(max(0.0, self.s.n * c2 / (m * m) - 1.0)) if m else 0.0

    def _energy(self, s1, s2, c2, comm) -> float:
        return self.wb * self._balance(s1, s2) + self.wi * self._interference(c2) + self.wc * comm

    def energy(self) -> float:
        return self._energy(self.s1, self.s2, self.c2, self.comm)

    def terms(self) -> dict[str, float]:
        """The unweighted terms of the energy now."""
        return {"balance": self._balance(self.s1, self.s2) / len(RESOURCES),
                "interference": self._interference(self.c2), "communication": self.s.communication()}

    def _shift(self, a: int, b: int, d: Sequence[float]) -> tuple[list[float], list[float]]:
        """The utilisation sums if demand d left node a for node b."""
        s1, s2 = list(self.s1), list(self.s2)
        ua, ub = self.s.utilisation(a), self.s.utilisation(b)
        inv_a, inv_b = self.s.inv_cap[a], self.s.inv_cap[b]
        for r in range(3):
            if d[r]:
                na, nb = ua[r] - d[r] * inv_a[r], ub[r] + d[r] * inv_b[r]
                s1[r] += na - ua[r] + nb - ub[r]
                s2[r] += na * na - ua[r] * ua[r] + nb * nb - ub[r] * ub[r]
        return s1, s2

    def _candidate(self, rng: random.Random, swap_probability: float):
        """A random feasible candidate, or None if the rules refuse the one drawn: (energy, running sums,
        i, j, True) to swap instances i and j, or (energy, running sums, i, node, False) to move i."""
        s = self.s
        i = s.movable[rng.randrange(len(s.movable))]
        a = s.pos[i]
        if rng.random() < swap_probability:
            j = s.movable[rng.randrange(len(s.movable))]
            if not s.can_swap(i, j):
                return None
            b = s.pos[j]
            di, dj = s.demand[i], s.demand[j]
            s1, s2 = self._shift(a, b, [di[r] - dj[r] for r in range(3)])
            c2 = self.c2
            comm = self.comm + s.communication_delta({i: b, j: a}) if self.wc else 0.0
            return self._energy(s1, s2, c2, comm), (s1, s2, c2, comm), i, j, True
        targets = s.targets[i]
        b = targets[rng.randrange(len(targets))]
        if not s.can_move(i, b):
            return None
        s1, s2 = self._shift(a, b, s.demand[i])
        c2 = self.c2 + 2.0 * (s.count[b] - s.count[a]) + 2.0
        comm = self.comm + s.communication_delta({i: b}) if self.wc else 0.0
        return self._energy(s1, s2, c2, comm), (s1, s2, c2, comm), i, b, False

    def probe_temperature(self, rng: random.Random, swap_probability: float) -> float:
        """SF's rule: 50 x the largest energy change among InitialTemperatureProbeCount random moves."""
        current = self.energy()
        biggest = 0.0
        for _ in range(INITIAL_TEMPERATURE_PROBES):
            cand = self._candidate(rng, swap_probability)
            if cand is not None:
                biggest = max(biggest, abs(cand[0] - current))
        if biggest == 0.0:
            return current if current > 0 else 1.0
        return INITIAL_TEMPERATURE_FACTOR * biggest

    def run(self, rng: random.Random, budget: int, temperature: float, decay: float, swap_probability: float,
            per_round: int, report: Callable[[int], None] | None) -> None:
        """Anneal for `budget` candidates and leave the space at the best state seen."""
        s = self.s
        energy = best_energy = self.energy()
        journal: list[tuple[int, int]] = []  # (instance, node it left), since the best state
        done = 0
        next_report = budget / PROGRESS_REPORTS
        while done < budget:
            found_best = False
            steps = min(per_round, budget - done)
            for _ in range(steps):
                cand = self._candidate(rng, swap_probability)
                if cand is None:
                    continue
                e, sums, i, x, is_swap = cand
                diff = e - energy
                if diff > 0 and (temperature <= 0 or rng.random() >= math.exp(-diff / temperature)):
                    continue
                journal.append((i, s.pos[i]))
                if is_swap:
                    journal.append((x, s.pos[x]))
                    s.swap(i, x)
                else:
                    s.move(i, x)
                self.s1, self.s2, self.c2, self.comm = sums
                energy = e
                self.accepted += 1
                if energy < best_energy:
                    best_energy = energy
                    journal.clear()
                    found_best = True
            done += steps
            self.rounds += 1
            if not found_best:
                temperature *= decay
            if self.rounds % RESUM_EVERY_ROUNDS == 0:
                self.resum()
                energy = self.energy()
            if report and done >= next_report:
                report(done)
                next_report = done + budget / PROGRESS_REPORTS
        self.temperature = temperature
        for k, n in reversed(journal):
            s.move(k, n)
        self.resum()
