"""The DAG spec (apiVersion e3/v1, kind Application): wire models, validation, canonical form, and the
typed view every module reads a stored document through (`ApplicationSpec.from_document`).

`validate_application` reports every problem it can find in one go, each located by a dotted
path (`spec.nodes[2].service`), so a user fixes a document in one round trip rather than ten.
Field-level checks are pydantic's; graph-level checks (ids, edges, cycles, catalogue
constraints) run afterwards on whatever parts of the document were well-formed.
"""

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from e3 import catalog
from e3.core.errors import FieldError, ValidationFailed
from e3.schemas.service_config import config_errors

API_VERSION = "e3/v1"
NAME_PATTERN = r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"
NODE_ID_PATTERN = r"^[a-z][a-z0-9_-]{0,62}$"
LABEL_KEY_PATTERN = r"^[A-Za-z0-9]([A-Za-z0-9._/-]{0,61}[A-Za-z0-9])?$"
# Service configuration handed to the agent (libe3svc "k1=v1;k2=v2"): keys the service defines;
# the agent's own keys ("e3.downstream") have a '.', which service keys cannot; values cannot hold
# the separators. Each service's keys, types and ranges: its catalogue schema (service_config.py).
CONFIG_KEY_PATTERN = r"^[a-z][a-z0-9_]{0,31}$"
CONFIG_VALUE_PATTERN = r"^[^;=\n]{0,1024}$"
MAX_CONFIG_KEYS = 32
MAX_NODES = 1000
MAX_EDGES = 10_000
MAX_INSTANCES = 100_000
MAX_LABELS = 64
MAX_ERRORS = 200  # listed per response; a 1 MiB document could otherwise yield a 10 MB answer
# What a node that leaves a field out gets, in validation and in a stored document's view alike.
DEFAULT_SHARDS = 1
DEFAULT_REPLICAS = 1
DEFAULT_PLATFORM = "any"
DEFAULT_REQUEST_BYTES = 512

PATTERN_HELP = {
    NAME_PATTERN: "1-63 lowercase letters, digits or '-', starting and ending with a letter or digit",
    NODE_ID_PATTERN: "1-63 characters: a lowercase letter, then lowercase letters, digits, '_' or '-'",
    LABEL_KEY_PATTERN: "1-63 letters, digits, '.', '_', '/' or '-', starting and ending with a letter or digit",
    CONFIG_KEY_PATTERN: "1-32 lowercase letters, digits or '_', starting with a letter",
    CONFIG_VALUE_PATTERN: "at most 1024 characters, none of them ';', '=' or a newline",
}

# Why a service is pinned, for error messages; the catalogue itself only says where it may run.
PINNING_REASONS = {
    "sql": "sql is host-only in the paper: its state cannot migrate to the SmartNIC (E3's reliable "
           "collections hold only hashtables and arrays), so SQL instances are pinned to host processors",
}

Name = Annotated[str, StringConstraints(pattern=NAME_PATTERN)]
NodeId = Annotated[str, StringConstraints(pattern=NODE_ID_PATTERN)]


class StrictModel(BaseModel):
    """Base of every spec model."""

    # strict: 1.5, "3" and true are not integers; extra="forbid": a typo is an error, not a no-op
    model_config = ConfigDict(extra="forbid", strict=True)


class MetadataModel(StrictModel):
    name: Name
    description: str = Field("", max_length=1000)
    labels: dict[
        Annotated[str, StringConstraints(pattern=LABEL_KEY_PATTERN)],
        Annotated[str, StringConstraints(max_length=255)],
    ] = Field(default_factory=dict, max_length=MAX_LABELS)


class ConstraintsModel(StrictModel):
    platform: Literal["host", "smartnic", "any"] = DEFAULT_PLATFORM


class NodeModel(StrictModel):
    id: NodeId
    service: str  # checked against the catalogue afterwards, to list the valid names
    shards: int = Field(DEFAULT_SHARDS, ge=1, le=1000)
    replicas: int = Field(DEFAULT_REPLICAS, ge=0, le=1000)  # backups per shard
    constraints: ConstraintsModel = Field(default_factory=ConstraintsModel)
    request_bytes: int = Field(DEFAULT_REQUEST_BYTES, ge=1, le=65535)
    config: dict[
        Annotated[str, StringConstraints(pattern=CONFIG_KEY_PATTERN)],
        Annotated[str, StringConstraints(pattern=CONFIG_VALUE_PATTERN)],
    ] = Field(default_factory=dict, max_length=MAX_CONFIG_KEYS)


class EdgeModel(StrictModel):
    from_: str = Field(alias="from")
    to: str


class ApplicationSpecModel(StrictModel):
    nodes: list[NodeModel] = Field(min_length=1, max_length=MAX_NODES)
    edges: list[EdgeModel] = Field(default_factory=list, max_length=MAX_EDGES)


class ApplicationDocument(StrictModel):
    """The document as sent (YAML or JSON); also what the OpenAPI schema shows."""

    api_version: Literal["e3/v1"] = Field(alias="apiVersion")
    kind: Literal["Application"]
    metadata: MetadataModel
    spec: ApplicationSpecModel


# --- pydantic errors as FieldErrors ------------------------------------------------------------

def _path(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part != "[key]":  # pydantic's marker for "the key, not the value, of this dict entry"
            out += f".{part}" if out else str(part)
    return out or "body"


def short_repr(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, (int, float)):
        return f"{value} (a number)" if isinstance(value, int) else f"{value} (not a whole number)"
    if isinstance(value, str):
        return f"{short_repr(value)} (a string)"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__


_TYPE_NAMES = {"int_type": "an integer", "string_type": "a string", "bool_type": "a boolean",
               "list_type": "a list", "dict_type": "an object (mapping)", "model_type": "an object (mapping)",
               "model_attributes_type": "an object (mapping)"}


def _message(err: dict) -> tuple[str, str, dict]:
    """(message, code, extra) for one pydantic error, in our words."""
    kind, ctx, value = err["type"], err.get("ctx", {}), err.get("input")
    if kind == "missing":
        return "is required", "missing", {}
    if kind == "extra_forbidden":
        return f"unknown field {short_repr(err['loc'][-1])}", "unknown_field", {}
    if kind in _TYPE_NAMES:
        return f"must be {_TYPE_NAMES[kind]}, got {_describe(value)}", "wrong_type", {}
    if kind == "greater_than_equal":
        return f"must be at least {ctx['ge']}, got {value}", "out_of_range", {"min": ctx["ge"]}
    if kind == "less_than_equal":
        return f"must be at most {ctx['le']}, got {value}", "out_of_range", {"max": ctx["le"]}
    if kind == "too_short":
        return f"must have at least {ctx['min_length']} item(s)", "too_short", {"min": ctx["min_length"]}
    if kind == "too_long":
        n = ctx["max_length"]
        return f"must have at most {n} items, got {ctx.get('actual_length')}", "too_long", {"max": n}
    if kind == "string_too_long":
        return f"must be at most {ctx['max_length']} characters", "too_long", {"max": ctx["max_length"]}
    if kind == "string_pattern_mismatch":
        pattern = ctx["pattern"]
        help_ = PATTERN_HELP.get(pattern, "")
        return (f"{short_repr(value)} is not valid: {help_} (pattern {pattern})" if help_
                else f"must match {pattern}"), "pattern_mismatch", {"pattern": pattern}
    if kind == "literal_error":
        valid = re.findall(r"'((?:[^'\\]|\\.)*)'", ctx.get("expected", ""))
        return f"must be {ctx.get('expected')}, got {_describe(value)}", "invalid_choice", {"valid": sorted(valid)}
    return err["msg"], kind, {}


def pydantic_field_errors(exc: ValidationError, prefix: tuple = (), overrides: dict | None = None) -> list[FieldError]:
    """pydantic's errors as FieldErrors with dotted paths; never its raw format.

    `overrides` maps (path with indices as "[]", error code) to a clearer message for that spot,
    e.g. ("spec.nodes", "too_short") -> "an application needs at least one node"; "{got}" in it
    becomes a description of the offending value.
    """
    out = []
    for err in exc.errors(include_url=False):
        path = _path(prefix + tuple(err["loc"]))
        message, code, extra = _message(err)
        generic = re.sub(r"\[\d+\]", "[]", path)
        if (generic, code) in (overrides or {}):
            message = overrides[generic, code].format(got=_describe(err.get("input")))
        out.append(FieldError(path, message, code, extra))
    return out


def raise_validation(errors: list[FieldError]) -> None:
    """Raise ValidationFailed for `errors` (if any), listing at most MAX_ERRORS of them."""
    if not errors:
        return
    if len(errors) <= MAX_ERRORS:
        raise ValidationFailed(errors)
    first = errors[0]
    raise ValidationFailed(errors[:MAX_ERRORS], f"{first.field}: {first.message} (and {len(errors) - 1} more; "
                                                f"the first {MAX_ERRORS} are listed)")


# --- the validated application -----------------------------------------------------------------

@dataclass(frozen=True)
class DagNode:
    id: str
    service: str
    shards: int = DEFAULT_SHARDS
    replicas: int = DEFAULT_REPLICAS  # backups per shard, never on the primary's server
    platform: str = DEFAULT_PLATFORM  # effective: "any" narrowed to the catalogue's only platform (sql -> "host")
    request_bytes: int = DEFAULT_REQUEST_BYTES
    config: dict[str, str] = field(default_factory=dict)  # for the service, e.g. api_gateway's keys

    @property
    def instances(self) -> int:
        return self.shards * (1 + self.replicas)


@dataclass(frozen=True)
class DagEdge:
    from_: str
    to: str


@dataclass(frozen=True)
class ApplicationSpec:
    """A DAG spec, typed: what `validate_application` returns, and the view of a stored document.

    Every module reads a document's nodes and edges through this class (`from_document`), and builds a
    changed document through it (`replace_node`, `with_node`, then `to_document`), so the defaults
    and the effective platform have one definition.
    """

    name: str
    description: str
    labels: dict[str, str]
    nodes: list[DagNode]
    edges: list[DagEdge] = field(default_factory=list)

    @classmethod
    def from_document(cls, document: dict) -> "ApplicationSpec":
        """The spec of a document that was validated before (a stored version, a catalogue template).

        No re-validation: a 1,000-node document reads in a few milliseconds this way, against 20-30 ms
        through `validate_application`, and placement, the live view and command wiring read stored
        documents often. Equal to `validate_application(document)` for every valid document; fields
        left out take the spec's defaults, and a document that is only its `spec` (as placement's
        tests write it) reads with an empty name.
        """
        metadata, spec = document.get("metadata", {}), document["spec"]
        return cls(
            name=metadata.get("name", ""),
            description=metadata.get("description", ""),
            labels=dict(metadata.get("labels", {})),
            nodes=[_stored_node(n) for n in spec["nodes"]],
            edges=[DagEdge(e["from"], e["to"]) for e in spec.get("edges", [])],
        )

    def instance_count(self) -> int:
        """Instances the application deploys: shards x (1 + replicas), summed (paper Table 3's N)."""
        return sum(n.instances for n in self.nodes)

    def node(self, node_id: str) -> DagNode:
        return self.nodes[self.node_index(node_id)]

    def node_index(self, node_id: str) -> int:
        """Where the node is in spec.nodes, for an error's field (`spec.nodes[2]`)."""
        return next(i for i, n in enumerate(self.nodes) if n.id == node_id)

    def replace_node(self, node_id: str, **changes) -> "ApplicationSpec":
        """This spec with node `node_id`'s fields changed (e.g. `shards=1`), the others as they are."""
        return dataclasses.replace(self, nodes=[dataclasses.replace(n, **changes) if n.id == node_id else n
                                                for n in self.nodes])

    def with_node(self, node: DagNode) -> "ApplicationSpec":
        """This spec with `node` added after its other nodes."""
        return dataclasses.replace(self, nodes=[*self.nodes, node])

    def children(self, node_id: str) -> list[str]:
        """Ids this node sends to, in edge order."""
        return [e.to for e in self.edges if e.from_ == node_id]

    def sources(self) -> list[DagNode]:
        """Nodes with no incoming edge, in spec order: where placement's BFS starts."""
        targets = {e.to for e in self.edges}
        return [n for n in self.nodes if n.id not in targets]

    def to_document(self) -> dict:
        """The canonical document: every default written out, keys in spec order."""
        return {
            "apiVersion": API_VERSION,
            "kind": "Application",
            "metadata": {"name": self.name, "description": self.description, "labels": dict(self.labels)},
            "spec": {
                "nodes": [
                    {"id": n.id, "service": n.service, "shards": n.shards, "replicas": n.replicas,
                     "constraints": {"platform": n.platform}, "request_bytes": n.request_bytes,
                     **({"config": dict(n.config)} if n.config else {})}
                    for n in self.nodes
                ],
                "edges": [{"from": e.from_, "to": e.to} for e in self.edges],
            },
        }


def _stored_node(raw: dict) -> DagNode:
    platform = (raw.get("constraints") or {}).get("platform", DEFAULT_PLATFORM)
    return DagNode(raw["id"], raw["service"], raw.get("shards", DEFAULT_SHARDS), raw.get("replicas", DEFAULT_REPLICAS),
                   effective_platform(raw["service"], platform), raw.get("request_bytes", DEFAULT_REQUEST_BYTES),
                   dict(raw.get("config", {})))


# --- graph-level checks ------------------------------------------------------------------------

_OVERRIDES = {
    ("spec.nodes", "too_short"): "an application needs at least one node",
    ("apiVersion", "invalid_choice"): f"must be '{API_VERSION}', got {{got}}",
    ("kind", "invalid_choice"): "must be 'Application' for a DAG spec, got {got}",
}


def _salvage(doc: object) -> tuple[list, list, list, list]:
    """The parts that can still be cross-checked when the whole document is not valid.

    Returns the nodes and edges that are valid on their own, plus the ids and service names of
    every node that has them: an edge to a node whose only fault is its shard count should not
    also be reported as an edge to an unknown node.
    """
    spec = doc.get("spec") if isinstance(doc, dict) else None
    raw_nodes = spec.get("nodes") if isinstance(spec, dict) else None
    raw_edges = spec.get("edges") if isinstance(spec, dict) else None
    nodes, edges, ids, services = [], [], [], []
    # Past the limits the list itself is the error; checking thousands more items only costs time.
    for i, raw in enumerate(raw_nodes[:MAX_NODES] if isinstance(raw_nodes, list) else []):
        raw = raw if isinstance(raw, dict) else {}
        if isinstance(raw.get("id"), str) and re.fullmatch(NODE_ID_PATTERN, raw["id"]):
            ids.append((i, raw["id"]))  # known to edges even if the rest of the node is wrong
        if isinstance(raw.get("service"), str):
            services.append((i, raw["service"]))
        try:
            nodes.append((i, NodeModel.model_validate(raw)))
        except ValidationError:
            pass
    for i, raw in enumerate(raw_edges[:MAX_EDGES] if isinstance(raw_edges, list) else []):
        try:
            edges.append((i, EdgeModel.model_validate(raw)))
        except ValidationError:
            pass
    return nodes, edges, ids, services


def effective_platform(service: str, platform: str) -> str:
    """`platform` as placement honours it: "any" narrowed to the catalogue's only platform (sql -> "host")."""
    allowed = catalog.service_types()[service].platforms
    return allowed[0] if platform == "any" and len(allowed) == 1 else platform


def _check_nodes(nodes: list, ids: list, service_names: list, errors: list) -> None:
    services = catalog.service_types()
    valid = sorted(services)
    for i, name in service_names:
        if name not in services:
            errors.append(FieldError(f"spec.nodes[{i}].service", f"unknown service {short_repr(name)}; "
                                     f"valid services: {', '.join(valid)}", "unknown_service", {"valid": valid}))
    first_at: dict[str, int] = {}
    for i, node_id in ids:
        if node_id in first_at:
            errors.append(FieldError(f"spec.nodes[{i}].id", f"duplicate node id {node_id!r} (first used by "
                                     f"spec.nodes[{first_at[node_id]}])", "duplicate"))
        else:
            first_at[node_id] = i
    for i, node in nodes:
        if node.service not in services:
            continue
        platform, allowed = node.constraints.platform, services[node.service].platforms
        if platform != "any" and platform not in allowed:
            choices = sorted(("any", *allowed))
            reason = PINNING_REASONS.get(node.service, f"{node.service} runs only on: {', '.join(allowed)}")
            errors.append(FieldError(f"spec.nodes[{i}].constraints.platform",
                                     f"{reason}; platform {platform!r} is not possible, use {' or '.join(choices)}",
                                     "platform_not_supported", {"valid": choices}))
        errors.extend(config_errors(node.service, node.config, f"spec.nodes[{i}].config"))
    total = sum(n.shards * (1 + n.replicas) for _, n in nodes)
    if total > MAX_INSTANCES:
        errors.append(FieldError("spec.nodes", f"the application has {total} instances (shards x (1 + replicas), "
                                 f"summed); the limit is {MAX_INSTANCES}", "too_many_instances",
                                 {"max": MAX_INSTANCES}))


def _check_edges(edges: list, ids: list, errors: list) -> list[tuple[str, str]]:
    """Report bad edges; return the good ones, for the cycle check."""
    known = {node_id for _, node_id in ids}
    seen: dict[tuple[str, str], int] = {}
    good = []
    for i, edge in edges:
        ends_ok = True
        for end, node_id in (("from", edge.from_), ("to", edge.to)):
            if node_id not in known:
                errors.append(FieldError(f"spec.edges[{i}].{end}", f"unknown node {short_repr(node_id)}: no node "
                                         "in spec.nodes has this id", "unknown_node"))
                ends_ok = False
        if not ends_ok:
            continue
        key = (edge.from_, edge.to)
        if edge.from_ == edge.to:
            errors.append(FieldError(f"spec.edges[{i}]", f"self-loop: {edge.from_} -> {edge.to}; a node cannot "
                                     "send to itself in a DAG", "self_loop"))
        elif key in seen:
            errors.append(FieldError(f"spec.edges[{i}]", f"duplicate edge {edge.from_} -> {edge.to} (same as "
                                     f"spec.edges[{seen[key]}])", "duplicate"))
        else:
            seen[key] = i
            good.append(key)
    return good


def find_cycle(order: list[str], edges: list[tuple[str, str]]) -> list[str] | None:
    """One cycle as [a, b, c] (meaning a -> b -> c -> a), or None; deterministic for given orders.

    Iterative depth-first search from each node in `order`, following edges in their order.
    """
    adjacency: dict[str, list[str]] = {}
    for a, b in edges:
        adjacency.setdefault(a, []).append(b)
    state: dict[str, int] = {}  # 1: on the current path, 2: fully explored
    for root in order:
        if root in state:
            continue
        path, pending = [root], [iter(adjacency.get(root, ()))]
        state[root] = 1
        while pending:
            nxt = next(pending[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                pending.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                pending.append(iter(adjacency.get(nxt, ())))
    return None


def validate_application(doc: object) -> ApplicationSpec:
    """The DAG spec in `doc` (parsed YAML/JSON), or ValidationFailed listing every problem found."""
    errors: list[FieldError] = []
    try:
        parsed = ApplicationDocument.model_validate(doc)
    except ValidationError as e:
        errors.extend(pydantic_field_errors(e, overrides=_OVERRIDES))
        parsed = None
    if parsed is not None:
        nodes = list(enumerate(parsed.spec.nodes))
        edges = list(enumerate(parsed.spec.edges))
        ids = [(i, n.id) for i, n in nodes]
        services = [(i, n.service) for i, n in nodes]
    else:
        nodes, edges, ids, services = _salvage(doc)
    _check_nodes(nodes, ids, services, errors)
    good_edges = _check_edges(edges, ids, errors)
    cycle = find_cycle([node_id for _, node_id in ids], good_edges)
    if cycle:
        shown = cycle if len(cycle) <= 12 else [*cycle[:10], f"... ({len(cycle)} nodes)"]
        errors.append(FieldError("spec.edges", f"cycle: {' -> '.join(shown + cycle[:1])}; an application must "
                                 "be acyclic", "cycle", {"cycle": cycle}))
    raise_validation(errors)
    return ApplicationSpec(
        name=parsed.metadata.name,
        description=parsed.metadata.description,
        labels=dict(parsed.metadata.labels),
        nodes=[DagNode(n.id, n.service, n.shards, n.replicas, effective_platform(n.service, n.constraints.platform),
                       n.request_bytes, dict(n.config))
               for n in parsed.spec.nodes],
        edges=[DagEdge(e.from_, e.to) for e in parsed.spec.edges],
    )
