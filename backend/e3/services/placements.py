"""Placement previews: run algorithms on a cluster's current state as a dry run, predict, compare."""

from collections import Counter
from dataclasses import replace

from sqlalchemy.orm import Session

from e3.core.errors import FieldError, ValidationFailed
from e3.placement import ALGORITHMS, OBJECTIVES, algorithm_options, optimality, problem_from_document, run
from e3.placement.cost_model import compare, predict
from e3.placement.model import NodeCapacity, Placement, PlacementError, PlacementProblem, copy_nodes
from e3.schemas.dag import validate_application
from e3.schemas.placement import PlacementPreviewRequest
from e3.services import applications
from e3.services.capacities import cluster_capacities
from e3.services.clusters import get_cluster
from e3.services.deployments import placement_error_body


def check_algorithms(names: list[str], field: str) -> None:
    unknown = [(i, n) for i, n in enumerate(names) if n not in ALGORITHMS]
    if unknown:
        raise ValidationFailed([FieldError(f"{field}[{i}]", f"unknown algorithm '{n}'; valid: {', '.join(ALGORITHMS)}",
                                           "unknown_algorithm", {"valid": list(ALGORITHMS)}) for i, n in unknown])


def placement_summary(problem: PlacementProblem, nodes: list[NodeCapacity], placement: Placement) -> dict:
    by_id = {n.id: n for n in nodes}
    kinds = Counter(by_id[node_id].kind for node_id in placement.assignments.values())
    servers = {by_id[node_id].server for node_id in placement.assignments.values()}
    return {"instances_on_host": kinds.get("host", 0), "instances_on_smartnic": kinds.get("smartnic", 0),
            "servers_used": len(servers)}


def _document(session: Session, req: PlacementPreviewRequest) -> dict:
    if (req.application is None) == (req.spec is None):
        raise ValidationFailed([FieldError("application", "give either `application` or `spec`", "one_of")])
    if req.spec is not None:
        try:
            return validate_application(req.spec).to_document()
        except ValidationFailed as exc:  # locate the faults inside this request's `spec` field
            raise ValidationFailed([replace(e, field=f"spec.{e.field}") for e in exc.errors]) from exc
    app = applications.get_application(session, req.application)
    return applications.get_version(session, app, req.version).spec


def preview(session: Session, req: PlacementPreviewRequest) -> dict:
    """Each requested algorithm on copies of the cluster's current state; nothing is stored."""
    check_algorithms(req.algorithms, "algorithms")
    document = _document(session, req)
    cluster = get_cluster(session, req.cluster)
    base_nodes = cluster_capacities(session, cluster.id)
    problem = problem_from_document(document, anti_affinity=req.anti_affinity)
    # Everything is read: end the transaction, as the algorithms may run for minutes (the ILP alone up to its cap)
    # and Postgres ends a transaction left idle that long (E3_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS).
    session.commit()
    results, predictions = [], {}
    for name in dict.fromkeys(req.algorithms):
        nodes = copy_nodes(base_nodes)
        options = algorithm_options(name, seed=req.seed, ilp_time_limit_s=req.ilp_time_limit_s)
        try:
            placement = run(name, problem, nodes, **options)
        except PlacementError as exc:
            results.append(dict(algorithm=name, placed=False, objective=OBJECTIVES[name],
                                error=placement_error_body(document, exc)))
            continue
        prediction = predict(problem, nodes, placement, offered_rps=req.offered_rps)
        predictions[name] = prediction
        by_id = {n.id: n for n in nodes}
        results.append(dict(
            algorithm=name, placed=True, runtime_ms=round(placement.runtime_ms, 3), optimal=placement.optimal,
            objective=OBJECTIVES[name], optimality=optimality(placement.optimal),
            prediction=prediction.as_dict(), summary=placement_summary(problem, nodes, placement),
            details=placement.details,
            assignments=[dict(dag_node=k[0], shard=k[1], replica=k[2], node=by_id[v].name)
                         for k, v in placement.assignments.items()] if req.include_assignments else None))
    comparison = compare(predictions)
    return dict(application=document["metadata"]["name"], cluster=cluster.name, instances=len(problem.instances),
                baseline=comparison["baseline"] or req.algorithms[0], results=results, comparison=comparison)
