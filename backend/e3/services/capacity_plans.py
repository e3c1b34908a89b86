"""The capacity planner served (docs/energy.md, "Capacity planner"): the request's applications read (stored
ones from the database, inline ones validated), its server types resolved, loads split, and the pure planner
(e3.energy.capacity_plan) run; its answer laid out for the API. Nothing is stored."""

from dataclasses import replace

from sqlalchemy.orm import Session

from e3 import catalog
from e3.core.errors import FieldError, NotFound, ValidationFailed
from e3.energy.capacity_plan import (MAX_INSTANCES, CapacityPlan, Candidate, PlanApplication, custom_server_type,
                                     plan_capacity)
from e3.energy.cost import PAPER_USD_PER_KWH
from e3.schemas.capacity_plan import PlanCreate
from e3.schemas.dag import ApplicationSpec, validate_application
from e3.services import applications as stored


def _documents(session: Session, request: PlanCreate) -> tuple[list[tuple[str, dict]], list[FieldError]]:
    """(name, DAG spec document) per application, and what is wrong with the references."""
    out, errors = [], []
    for i, ref in enumerate(request.applications):
        where = f"applications[{i}]"
        if (ref.name is None) == (ref.spec is None):
            errors.append(FieldError(f"{where}.name", "give either `name` (a stored application) or `spec`",
                                     "one_of"))
            continue
        if ref.spec is not None:
            try:
                spec = validate_application(ref.spec)
            except ValidationFailed as exc:  # locate the faults inside this application's `spec`
                errors.extend(replace(e, field=f"{where}.spec.{e.field}") for e in exc.errors)
                continue
            out.append((spec.name, spec.to_document()))
            continue
        try:
            app = stored.get_application(session, ref.name)
        except NotFound:
            errors.append(FieldError(f"{where}.name", f"application '{ref.name}' not found", "not_found"))
            continue
        out.append((app.name, stored.get_version(session, app).spec))
    instances = sum(ApplicationSpec.from_document(document).instance_count() for _, document in out)
    if instances > MAX_INSTANCES:
        errors.append(FieldError("applications", f"the applications have {instances} instances together; a plan "
                                                 f"places at most {MAX_INSTANCES}", "too_large"))
    seen: dict[str, int] = {}
    for i, (name, _) in enumerate(out):
        if name in seen:
            errors.append(FieldError(f"applications[{i}]", f"application '{name}' is listed twice", "duplicate"))
        seen.setdefault(name, i)
    return out, errors


def _loads(request: PlanCreate) -> tuple[list[float], list[FieldError]]:
    """Each application's load: its own, or an even share of what the others leave of the total."""
    given = sum(ref.load_rps for ref in request.applications if ref.load_rps is not None)
    unset = sum(ref.load_rps is None for ref in request.applications)
    if unset and given >= request.load_rps:
        return [], [FieldError("load_rps", f"the applications' own loads ({given:g} req/s) leave nothing of the "
                                           f"total {request.load_rps:g} req/s for those without one", "too_small")]
    share = (request.load_rps - given) / unset if unset else 0.0
    return [share if ref.load_rps is None else ref.load_rps for ref in request.applications], []


def _server_types(request: PlanCreate) -> tuple[list[catalog.ServerType], list[FieldError]]:
    known = catalog.server_types()
    errors = [FieldError(f"server_types[{i}]", f"unknown server type '{name}'; valid types: {', '.join(known)}",
                         "unknown_server_type")
              for i, name in enumerate(request.server_types or []) if name not in known]
    chosen = [known[name] for name in dict.fromkeys(request.server_types or known) if name in known]
    names = set(known)
    for i, t in enumerate(request.custom_server_types):
        where = f"custom_server_types[{i}]"
        if t.name in names:
            errors.append(FieldError(f"{where}.name", f"'{t.name}' is already a server type's name", "duplicate"))
        elif t.peak_watts < t.idle_watts:
            errors.append(FieldError(f"{where}.peak_watts", f"peak_watts ({t.peak_watts:g} W) is below idle_watts "
                                                            f"({t.idle_watts:g} W)", "below_idle"))
        else:
            chosen.append(custom_server_type(**t.model_dump()))
        names.add(t.name)
    return chosen, errors


def create_plan(session: Session, request: PlanCreate) -> dict:
    """Rank candidate clusters for the request (ValidationFailed naming each faulty field)."""
    documents, errors = _documents(session, request)
    loads, load_errors = _loads(request)
    types, type_errors = _server_types(request)
    errors += load_errors + type_errors
    if errors:
        raise ValidationFailed(errors)
    price, price_source = ((PAPER_USD_PER_KWH, "paper") if request.price_per_kwh is None
                           else (request.price_per_kwh, "request"))
    apps = [PlanApplication(name, document, load) for (name, document), load in zip(documents, loads)]
    plan = plan_capacity(apps, types, years=request.years, usd_per_kwh=price, price_source=price_source,
                         max_servers=request.max_servers, max_p99_latency_ms=request.max_p99_latency_ms)
    return plan_public(plan, apps, price_source)


def plan_public(plan: CapacityPlan, apps: list[PlanApplication], price_source: str) -> dict:
    return dict(source="model", assumptions=plan.assumptions, load_rps=plan.load_rps,
                applications=[dict(name=a.name, load_rps=a.load_rps) for a in apps],
                years=list(range(1, plan.years + 1)), price_per_kwh=plan.usd_per_kwh, price_source=price_source,
                plans=[_candidate(i, c) for i, c in enumerate(plan.candidates, 1)], evaluated=plan.evaluated)


def _candidate(rank: int, c: Candidate) -> dict:
    return dict(
        rank=rank, servers={c.server_type: c.count}, feasible=c.feasible, reason=c.reason, capex_usd=c.capex_usd,
        power_watts=c.power_watts, utilisation=c.utilisation,
        cost_efficiency=[dict(years=p.years, requests_per_dollar=p.requests_per_usd, total_cost_usd=p.total_usd,
                              energy_usd=p.energy_usd) for p in c.points],
        predicted=dict(throughput_rps=c.throughput_rps, capacity_rps=c.capacity_rps,
                       avg_latency_ms=c.avg_latency_ms, p99_latency_ms=c.p99_latency_ms,
                       joules_per_request=c.joules_per_request, bottleneck=c.bottleneck),
        placement=[dict(application=p.application, dag_node=p.dag_node, service=p.service,
                        instances=[dict(server_type=t, node_kind=k, count=n) for (t, k), n in p.instances.items()])
                   for p in c.placement])
