"""Placement by integer linear programme (HiGHS): the paper's exact but slow baseline (§5.4, §5.6, Table 6).

Minimises co-execution interference plus communication under the shared rules of
`e3.placement.constraints`, with a wall-time cap. The model (docs/placement-baselines.md):

    x[i,n] in {0,1}    instance i on candidate node n;     sum_n x[i,n] = 1
    capacity           sum_i demand[i,r] x[i,n] <= free[n,r]            per node; cores, memory, bandwidth
    fault domains      sum of a shard's replicas on server S <= 1       per shard and server
    anti-affinity      sum of a DAG node's instances on server S <= 1   (when asked; replaces the above)
    interference       z[n] >= sum_i x[i,n] + already[n] - 1, z >= 0   instances beyond the first on n
    communication      per DAG-adjacent primary pair i -> j with weight w (its share of the edge's
                       requests): w * PRICES[level_between(node of i, node of j)] / number of edges

    minimise  w_interference * sum_n z[n] + w_communication * communication

A pair's price is linearised level by level, with indicators "same pod", "same rack", "same server"
and "callee on a SmartNIC of another server of the rack":

    price = P5 + (P4-P5) pod + (P3-P4) rack + (P1-P3) server - (P3-P2) rack_smartnic

Every coefficient is negative, so each indicator needs only upper bounds: one variable s_G per group G
shared by the two candidate sets, s_G <= (x-sum of i in G) and s_G <= (x-sum of j in G). "Same server"
also gets its lower bound s_S >= X_i(S) + X_j(S) - 1, since rack_smartnic <= rack - server and
rack_smartnic <= (x-sum of j on SmartNICs) would otherwise let the solver trade it away. Indicators the
candidate sets decide (no shared group, or one group holding every candidate) become constants or
plain coefficients on x. Two instances on one node are priced as two on one server (see PRICES).

Scale: with every node a candidate the model has instances x nodes binaries (10,000 x 5,000 = 50 M),
hopeless. Up to `exact_limit` instance-node pairs it is built complete, and one solve proves the
optimum. Beyond, the problem is split by DAG connected component, solved one at a time with the other
components' instances held where they are (first-fit's spot until their turn), so capacity stays
exact; and each instance gets `candidates` nodes: its first-fit node, then the nodes of a window of
servers in a pool: its component's first-fit servers, then servers with the most empty nodes, nearest
first (same rack, pod, anywhere). Shard k of every DAG node of a component shares window k,
so communicating shards can meet. That model is an approximation, and optimal=True only ever means
a complete model solved to optimality. First-fit's placement goes to HiGHS as a complete starting
solution (setSolution), so every solve has an incumbent; the time cap is shared among the components
in proportion to their instances, and a component HiGHS cannot improve in its share stays at first-fit.
"""

import math
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import highspy
import numpy as np

from e3.placement.annealing import COMMUNICATION_WEIGHTS, communication_pairs
from e3.placement.constraints import PlacementState, can_host
from e3.placement.first_fit import first_fit
from e3.placement.model import (
    LEVEL_POD,
    LEVEL_RACK_HOST,
    LEVEL_RACK_SMARTNIC,
    LEVEL_REMOTE,
    LEVEL_SAME_NODE,
    LEVEL_SAME_SERVER,
    RESOURCES,
    NodeCapacity,
    Placement,
    PlacementError,
    PlacementProblem,
    ProgressFn,
    copy_nodes,
)
from e3.placement.positions import NodePositions

DEFAULT_WEIGHTS = {"interference": 1.0, "communication": 1.0}
# Prices per LEVEL_* (annealing's, from the cost model's RTTs), except that two instances on one node
# are priced as two on one server: a "same node" indicator per pair and node made the models 2-3x
# larger and HiGHS 20-100x slower to prove optimality, and interference (weighted highest, as in the
# paper) keeps communicating instances off shared nodes anyway.
PRICES = {**COMMUNICATION_WEIGHTS, LEVEL_SAME_NODE: COMMUNICATION_WEIGHTS[LEVEL_SAME_SERVER]}
CANDIDATES = 16  # nodes per instance in the split model
EXACT_LIMIT = 2_000  # instance-node pairs up to which every node is a candidate (one complete model)
POOL_FACTOR = 2  # pool nodes per instance of a component
EPSILON = 1e-9

_STATUS = highspy.HighsModelStatus


def ilp(problem: PlacementProblem, nodes: Sequence[NodeCapacity], *, progress: ProgressFn | None = None,
        time_limit_s: float = 10.0, weights: dict[str, float] | None = None, candidates: int = CANDIDATES,
        exact_limit: int = EXACT_LIMIT, threads: int = 1) -> Placement:
    """Place every instance minimising interference + communication; PlacementError if none can be found.

    At the time cap the best placement found so far comes back with optimal=False (never an error);
    `details` gives HiGHS's status, the MIP gap, objective and bound, and whether the model was complete.
    """
    started = time.perf_counter()
    w = {**DEFAULT_WEIGHTS, **(weights or {})}
    unknown = set(w) - set(DEFAULT_WEIGHTS)
    if unknown:
        raise ValueError(f"unknown ILP weights: {', '.join(sorted(unknown))}")
    insts = problem.instances
    try:
        start = first_fit(problem, copy_nodes(nodes)).assignments
        failure = None
    except PlacementError as err:
        start, failure = None, err
    cluster = _Cluster(nodes, problem.anti_affinity)
    fixed = {k for k, inst in enumerate(insts) if inst.key in problem.fixed}
    pos = [-1] * len(insts)
    for k in fixed:  # as reserve_fixed: they are where they are, unchecked
        pos[k] = cluster.index[problem.fixed[insts[k].key]]
        cluster.take(pos[k], insts[k])
    if start is not None:  # each component's first-fit spots stay taken until its turn
        for k, inst in enumerate(insts):
            if k not in fixed:
                pos[k] = cluster.index[start[inst.key]]
                cluster.take(pos[k], inst)
    pairs, edges = communication_pairs(problem)
    pair_weight = w["communication"] / edges if edges else 0.0
    allowed = [cluster.allowed(inst) for inst in insts]
    movable = [k for k in range(len(insts)) if k not in fixed]
    exact = sum(len(allowed[k]) for k in movable) <= exact_limit
    if start is None and not exact:
        raise failure
    blocks = [movable] if exact else _components(problem, movable)
    complete = len(blocks) == 1  # the model has every choice (one block, every node a candidate)
    by_instance = defaultdict(list)
    for p, (i, j, _) in enumerate(pairs):
        by_instance[i].append(p)
        by_instance[j].append(p)
    deadline = started + time_limit_s
    solves: list[_Result] = []
    kept = 0
    for b, block in enumerate(blocks):
        if not block:
            continue
        before = {k: pos[k] for k in block}
        for k in block:
            if pos[k] >= 0:
                cluster.give_back(pos[k], insts[k])
        cands = ({k: list(allowed[k]) for k in block} if exact
                 else cluster.candidates(block, insts, pos, allowed, candidates))
        model = _Block(cluster, insts, pos, cands, w["interference"])
        model.add_pairs([pairs[p] for p in sorted({p for k in block for p in by_instance[k]})], pair_weight)
        # The time left, shared in proportion to the instances still to place.
        budget = max(0.0, deadline - time.perf_counter()) * len(block) / sum(len(blk) for blk in blocks[b:])
        complete = complete and all(len(cands[k]) == len(allowed[k]) for k in block)
        result = model.run(budget, threads, start=pos if start is not None else None)
        solves.append(result)
        if result.assignment is not None and cluster.place(block, insts, result.assignment):
            for k, n in result.assignment.items():
                pos[k] = n
        elif start is not None:
            kept += 1  # no (valid) solution in time: keep first-fit's
            for k in block:
                pos[k] = before[k]
                cluster.take(pos[k], insts[k])
        elif result.status == _STATUS.kInfeasible:
            raise failure
        else:
            raise PlacementError(f"no placement found within the ILP's {time_limit_s:g} s cap, and first-fit "
                                 f"found none either: {failure.message}", failure.instance, failure.resource)
        if progress:
            progress(len(fixed) + sum(len(blk) for blk in blocks[:b + 1]), len(insts))
    for k, n in enumerate(pos):
        nodes[n].reserve(insts[k])
    if progress and not movable:
        progress(len(insts), len(insts))
    optimal = complete and all(r.status == _STATUS.kOptimal for r in solves)
    details = _details(solves, complete, kept, cluster, pos, pairs, edges, w)
    return Placement(algorithm="ilp", assignments={inst.key: cluster.nodes[pos[k]].id for k, inst in enumerate(insts)},
                     runtime_ms=(time.perf_counter() - started) * 1000.0, optimal=optimal, details=details)


class _Cluster(NodePositions):
    """Nodes as small integers, private copies of them holding what is placed so far, the shared rules'
    bookkeeping for it, and how many instances share each node."""

    def __init__(self, nodes: Sequence[NodeCapacity], anti_affinity: bool):
        self.nodes = list(nodes)
        self.work = copy_nodes(nodes)
        self.state = PlacementState(anti_affinity)
        self.index = {node.id: k for k, node in enumerate(self.nodes)}
        # Something already runs on a node with reservations: the first instance placed there shares it.
        self.occupied = [1 if any(node.used[r] > EPSILON for r in RESOURCES) else 0 for node in self.nodes]
        self.preloaded = list(self.occupied)
        NodePositions.__init__(self, self.nodes)
        self.server_nodes: dict[int, list[int]] = defaultdict(list)
        for n, s in enumerate(self.server):
            self.server_nodes[s].append(n)
        self._allowed: dict[str, list[int]] = {}

    def allowed(self, inst) -> list[int]:
        if inst.platform not in self._allowed:
            self._allowed[inst.platform] = [n for n, node in enumerate(self.nodes) if inst.allows(node)]
        return self._allowed[inst.platform]

    def take(self, n: int, inst) -> None:
        self.work[n].reserve(inst)
        self.state.add(inst, self.work[n])
        self.occupied[n] += 1

    def give_back(self, n: int, inst) -> None:
        self.work[n].release(inst)
        self.state.remove(inst, self.work[n])
        self.occupied[n] -= 1

    def place(self, block: list[int], insts, assignment: dict[int, int]) -> bool:
        """Take a solver's placement of a block if the shared rules accept every instance of it (a
        tolerance must never let a broken one through); otherwise take nothing and say so."""
        done = []
        for k in block:
            n = assignment[k]
            if not can_host(insts[k], self.work[n], self.state.blocked(insts[k])):
                for d in reversed(done):
                    self.give_back(assignment[d], insts[d])
                return False
            self.take(n, insts[k])
            done.append(k)
        return True


    def candidates(self, block: list[int], insts, pos: list[int], allowed: list[list[int]], k: int
                   ) -> dict[int, list[int]]:
        """Each instance's first-fit node, then nodes from its slot's window of servers in the pool.

        A slot is a (shard, replica) number; slots start evenly spread over the pool, and shard s of
        every DAG node of the component shares slot s's window, so communicating shards can meet.
        """
        pool = self._pool(block, pos)
        replicas = max(insts[i].replica for i in block) + 1
        slots = max(insts[i].shard for i in block) * replicas + replicas
        allowed_sets: dict[str, set[int]] = {}
        out = {}
        for i in block:
            inst = insts[i]
            ok = allowed_sets.setdefault(inst.platform, set(allowed[i]))
            chosen = [pos[i]]
            first = (inst.shard * replicas + inst.replica) * len(pool) // slots
            for step in range(len(pool)):
                if len(chosen) >= k:
                    break
                for n in self.server_nodes[pool[(first + step) % len(pool)]]:
                    if n in ok and n != pos[i] and len(chosen) < k:
                        chosen.append(n)
            out[i] = chosen
        return out

    def _pool(self, block: list[int], pos: list[int]) -> list[int]:
        """Servers for a component: its first-fit servers, then others ranked by how many of their
        nodes hold nothing yet (interference weighs most), then nearness (same rack, pod, elsewhere),
        then free cores; servers with less than half their cores free come last."""
        own = list(dict.fromkeys(self.server[pos[i]] for i in block))
        anchor = self.server_nodes[own[0]][0]
        want = POOL_FACTOR * len(block)
        have = sum(len(self.server_nodes[s]) for s in own)
        taken = set(own)

        def rank(s: int):
            members = self.server_nodes[s]
            n = members[0]
            near = 0 if self.rack[n] == self.rack[anchor] else (1 if self.pod[n] == self.pod[anchor] else 2)
            free = sum(self.work[m].free("cpu_cores") for m in members)
            roomy = free >= 0.5 * sum(self.work[m].cpu_cores for m in members)
            empty = sum(1 for m in members if not self.occupied[m])
            return not roomy, -empty, near, -free, s

        pool = own
        for s in sorted((s for s in self.server_nodes if s not in taken), key=rank):
            if have >= want:
                break
            pool.append(s)
            have += len(self.server_nodes[s])
        return pool


@dataclass
class _Result:
    status: highspy.HighsModelStatus
    assignment: dict[int, int] | None  # instance -> node, when HiGHS has a feasible solution
    gap: float  # HiGHS's relative MIP gap (inf without a bound)
    columns: int
    rows: int


class _Block:
    """One HiGHS model, built as plain lists: x, z and indicator columns and the rows over them.

    Every auxiliary column records how to compute it from x (`_derive`), so a placement (first-fit's)
    can be handed to HiGHS as a complete starting solution.
    """

    def __init__(self, cluster: _Cluster, insts, pos: list[int], cands: dict[int, list[int]], interference: float):
        self.c, self.insts, self.pos = cluster, insts, pos
        self.cost: list[float] = []
        self.upper: list[float] = []
        self.binary: list[int] = []
        self.rows_lo: list[float] = []
        self.rows_hi: list[float] = []
        self.rows: list[tuple[list[int], list[float]]] = []
        self._derive: list[tuple] = []  # (column, rule, operands), in creation order
        self.x: dict[int, dict[int, int]] = {}
        for i, nodes in cands.items():
            self.x[i] = {n: self._col(0.0, 1.0, binary=True) for n in nodes}
            self._row(1.0, 1.0, list(self.x[i].values()), [1.0] * len(nodes))
        on_node: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for i, cols in self.x.items():
            for n, col in cols.items():
                on_node[n].append((i, col))
        for n, members in on_node.items():
            cols = [col for _, col in members]
            for name in RESOURCES:
                demands = [insts[i].resource(name) for i, _ in members]
                room = cluster.work[n].free(name)
                if sum(demands) > room + EPSILON:
                    self._row(-math.inf, room + EPSILON, cols, demands)
            if interference:
                z = self._col(interference, math.inf, derive=("beyond_first", cols, cluster.occupied[n]))
                self._row(-math.inf, 1.0 - cluster.occupied[n], cols + [z], [1.0] * len(cols) + [-1.0])
        # Fault domains (and anti-affinity): at most one instance of a group per server. Servers that
        # instances outside the block already hold are closed to the group outright.
        state = cluster.state
        groups: dict[tuple, list[int]] = defaultdict(list)
        for i, cols in self.x.items():
            inst = insts[i]
            blocked = state.blocked(inst)
            key = inst.dag_node if state.anti_affinity else inst.shard_key
            for n, col in cols.items():
                if cluster.nodes[n].server in blocked:
                    self.upper[col] = 0.0
                groups[(key, cluster.server[n])].append(col)
        for cols in groups.values():
            if len(cols) > 1:
                self._row(-math.inf, 1.0, cols, [1.0] * len(cols))

    def _col(self, cost: float, upper: float, binary: bool = False, derive: tuple | None = None) -> int:
        col = len(self.cost)
        self.cost.append(cost)
        self.upper.append(upper)
        if binary:
            self.binary.append(col)
        if derive:
            self._derive.append((col, *derive))
        return col

    def _row(self, lo: float, hi: float, cols: list[int], vals: list[float]) -> None:
        self.rows_lo.append(lo)
        self.rows_hi.append(hi)
        self.rows.append((cols, vals))

    # --- communication ------------------------------------------------------
    def add_pairs(self, pairs: list[tuple[int, int, float]], scale: float) -> None:
        P = PRICES
        for i, j, w in pairs:
            w *= scale
            if not w:
                continue
            if i not in self.x and j not in self.x:
                continue  # both fixed: a constant
            if i not in self.x or j not in self.x:
                # One end is fixed: the price is linear in the other end's x.
                for n, col in self.x.get(i, {}).items():
                    self.cost[col] += w * P[self.c.level(n, self.pos[j])]
                for n, col in self.x.get(j, {}).items():
                    self.cost[col] += w * P[self.c.level(self.pos[i], n)]
                continue
            self._pair(i, j, w, P)

    def _pair(self, i: int, j: int, w: float, P: dict[int, float]) -> None:
        c = self.c
        xi, xj = self.x[i], self.x[j]
        # Per level: group -> columns of i / of j in that group.
        levels = {}
        for name, code in (("pod", c.pod), ("rack", c.rack), ("server", c.server)):
            gi, gj = defaultdict(list), defaultdict(list)
            for n, col in xi.items():
                gi[code[n]].append(col)
            for n, col in xj.items():
                gj[code[n]].append(col)
            levels[name] = (gi, gj)
        coef = {"pod": P[LEVEL_POD] - P[LEVEL_REMOTE], "rack": P[LEVEL_RACK_HOST] - P[LEVEL_POD],
                "server": P[LEVEL_SAME_SERVER] - P[LEVEL_RACK_HOST]}
        indicator = {}  # level -> 1.0 (always), 0.0 (never), or list of columns summing to it
        for name, (gi, gj) in levels.items():
            shared = [g for g in gi if g in gj]
            if not shared:
                indicator[name] = 0.0
            elif len(gi) == 1 and len(gj) == 1:
                indicator[name] = 1.0
            else:
                cols = []
                for g in shared:
                    s = self._col(w * coef[name], 1.0, derive=("both", gi[g], gj[g]))
                    self._row(-math.inf, 0.0, [s] + gi[g], [1.0] + [-1.0] * len(gi[g]))
                    self._row(-math.inf, 0.0, [s] + gj[g], [1.0] + [-1.0] * len(gj[g]))
                    if name == "server":
                        self._row(-1.0, math.inf, [s] + gi[g] + gj[g], [1.0] + [-1.0] * (len(gi[g]) + len(gj[g])))
                    cols.append(s)
                indicator[name] = cols
        # "Callee on a SmartNIC of another server of the rack" saves P3 - P2 over a host there.
        saving = P[LEVEL_RACK_HOST] - P[LEVEL_RACK_SMARTNIC]
        nic_cols = [col for n, col in xj.items() if c.is_nic[n]]
        rack, server = indicator["rack"], indicator["server"]
        if saving and nic_cols and rack != 0.0:
            if rack == 1.0 and server == 0.0:
                for col in nic_cols:
                    self.cost[col] -= w * saving
            else:
                rack_cols = [] if rack == 1.0 else rack
                server_cols = [] if server in (0.0, 1.0) else server
                hi = (1.0 if rack == 1.0 else 0.0) - (1.0 if server == 1.0 else 0.0)
                t = self._col(-w * saving, 1.0, derive=("rack_smartnic", nic_cols, rack_cols, server_cols, hi))
                self._row(-math.inf, 0.0, [t] + nic_cols, [1.0] + [-1.0] * len(nic_cols))
                self._row(-math.inf, hi, [t] + rack_cols + server_cols,
                          [1.0] + [-1.0] * len(rack_cols) + [1.0] * len(server_cols))

    # --- solving --------------------------------------------------------------
    def solution_for(self, pos: list[int]) -> np.ndarray:
        """Every column's value for the placement `pos` of the block's instances."""
        v = np.zeros(len(self.cost))
        for i, cols in self.x.items():
            v[cols[pos[i]]] = 1.0
        for col, rule, *ops in self._derive:
            if rule == "beyond_first":
                v[col] = max(0.0, v[ops[0]].sum() + ops[1] - 1.0)
            elif rule == "both":
                v[col] = min(v[ops[0]].sum(), v[ops[1]].sum())
            else:  # rack_smartnic: callee on a SmartNIC, same rack, other server
                nic, rack, server, hi = ops
                v[col] = max(0.0, min(v[nic].sum(), hi + v[rack].sum() - v[server].sum()))
        return v

    def run(self, time_limit: float, threads: int, start: list[int] | None) -> _Result:
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("time_limit", max(time_limit, 1e-3))
        h.setOptionValue("threads", threads)
        h.setOptionValue("random_seed", 0)
        ncol = len(self.cost)
        h.addCols(ncol, np.array(self.cost), np.zeros(ncol), np.array(self.upper), 0,
                  np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0))
        if self.binary:
            idx = np.array(self.binary, dtype=np.int32)
            h.changeColsIntegrality(len(idx), idx, np.full(len(idx), highspy.HighsVarType.kInteger, dtype=np.uint8))
        starts, index, value = [], [], []
        for cols, vals in self.rows:
            starts.append(len(index))
            index.extend(cols)
            value.extend(vals)
        h.addRows(len(self.rows), np.array(self.rows_lo), np.array(self.rows_hi), len(index),
                  np.array(starts, dtype=np.int32), np.array(index, dtype=np.int32), np.array(value))
        if start is not None:
            values = self.solution_for(start)
            h.setSolution(ncol, np.arange(ncol, dtype=np.int32), values)
        # HiGHS checks its time limit only between some phases; an interrupt callback holds the cap.
        deadline = time.perf_counter() + time_limit

        def stop(event) -> None:
            if time.perf_counter() > deadline:
                event.interrupt()

        h.cbMipInterrupt.subscribe(stop)
        h.run()
        status = h.getModelStatus()
        if status == _STATUS.kInterrupt:
            status = _STATUS.kTimeLimit
        info = h.getInfo()
        assignment = None
        if info.primal_solution_status == highspy.SolutionStatus.kSolutionStatusFeasible:
            values = h.getSolution().col_value
            assignment = {i: max(cols, key=lambda n: values[cols[n]]) for i, cols in self.x.items()}
        return _Result(status, assignment, info.mip_gap, ncol, len(self.rows))


def _components(problem: PlacementProblem, block: list[int]) -> list[list[int]]:
    """The instances grouped by connected component of the DAG, components in problem order."""
    parent: dict[str, str] = {}

    def find(a: str) -> str:
        while parent.setdefault(a, a) != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in problem.edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra
    groups: dict[str, list[int]] = {}
    for k in block:
        groups.setdefault(find(problem.instances[k].dag_node), []).append(k)
    return list(groups.values())


def _details(solves: list[_Result], complete: bool, kept: int, cluster: _Cluster, pos: list[int],
             pairs: list[tuple[int, int, float]], edges: int, w: dict[str, float]) -> dict:
    """HiGHS's verdicts, and the placement's cost evaluated whole (the solves each saw one block)."""
    names = {v: k.removeprefix("k") for k, v in _STATUS.__members__.items()}
    statuses = [names.get(r.status, str(r.status)) for r in solves]
    counts = [0] * len(cluster.nodes)
    for n in pos:
        counts[n] += 1
    interference = sum(max(0, c + pre - 1) for c, pre in zip(counts, cluster.preloaded, strict=True) if c)
    communication = (sum(wt * PRICES[cluster.level(pos[i], pos[j])] for i, j, wt in pairs) / edges
                     if edges else 0.0)
    gaps = [r.gap for r in solves if r.assignment is not None]
    return {
        "status": statuses[0] if len(set(statuses)) == 1 else "mixed",
        "statuses": {st: statuses.count(st) for st in dict.fromkeys(statuses)},
        # The largest relative gap of any block; None while some block has no bound yet.
        "mip_gap": max(gaps) if gaps and all(math.isfinite(g) for g in gaps) else (None if gaps else 0.0),
        "complete_model": complete,
        "blocks": len(solves),
        "blocks_kept_at_first_fit": kept,
        "columns": sum(r.columns for r in solves),
        "rows": sum(r.rows for r in solves),
        "cost": w["interference"] * interference + w["communication"] * communication,
        "shared_instances": interference,  # instances beyond the first on their node
        "communication": communication,  # mean over DAG edges of a request's price (PRICES)
    }
