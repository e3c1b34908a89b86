"""The cluster spec (apiVersion e3/v1, kind Cluster): racks of servers by type, or a generator.

Two spellings are accepted: the full document, whose spec lists racks or names a generator,
and a flat shorthand for the generator (`{"generator": "fattree", "servers": 1000, ...}`) that
CLI users and CI scripts type by hand. Both come out as the same ClusterSpec: racks holding
plain lists of server type names, cheap even at 100,000 servers.
"""

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, ValidationError

from e3 import catalog
from e3.core.errors import FieldError
from e3.schemas.dag import (API_VERSION, NAME_PATTERN, NODE_ID_PATTERN, StrictModel, pydantic_field_errors,
                            raise_validation, short_repr)

MAX_SERVERS = 100_000
MAX_SERVERS_PER_RACK = 1000
SHORTHAND_KEYS = ("generator", "servers", "server_type")

RackName = Annotated[str, StringConstraints(pattern=NODE_ID_PATTERN)]
Name = Annotated[str, StringConstraints(pattern=NAME_PATTERN)]


class ServerGroupModel(StrictModel):
    type: str  # checked against the catalogue afterwards, to list the valid names
    count: int = Field(1, ge=1, le=1000)


class RackModel(StrictModel):
    name: RackName | None = None
    pod: int = Field(0, ge=0, le=MAX_SERVERS)
    servers: list[ServerGroupModel] = Field(min_length=1, max_length=1000)


class RacksModel(StrictModel):
    racks: list[RackModel] = Field(min_length=1, max_length=MAX_SERVERS)


class GeneratorModel(StrictModel):
    generator: Literal["fattree"]
    servers: int = Field(ge=1, le=MAX_SERVERS)
    server_type: str
    servers_per_rack: int = Field(40, ge=1, le=MAX_SERVERS_PER_RACK)
    racks_per_pod: int = Field(8, ge=1, le=1000)


class GeneratorShorthand(GeneratorModel):
    """The flat form; `name` defaults to fattree-{servers}-{server_type}."""

    name: Name | None = None


class ClusterMetadataModel(StrictModel):
    name: Name
    description: str = Field("", max_length=1000)


class ClusterDocument(StrictModel):
    """The document as sent; `spec` holds either `racks` or the generator's fields."""

    api_version: Literal["e3/v1"] = Field(alias="apiVersion")
    kind: Literal["Cluster"]
    metadata: ClusterMetadataModel
    spec: RacksModel | GeneratorModel


class _Envelope(ClusterDocument):
    spec: dict  # validated on its own, once we know which form it takes


@dataclass(frozen=True)
class RackSpec:
    name: str
    pod: int
    server_types: list[str]  # one entry per server, e.g. ["type2-smartnic", "type2-smartnic", "beefy"]


@dataclass(frozen=True)
class ClusterSpec:
    name: str
    racks: list[RackSpec]


def _overrides(prefix: str) -> dict:
    """Clearer messages for the spots users trip on; `prefix` is "spec." or "" for the shorthand."""
    return {
        (f"{prefix}racks", "too_short"): "a cluster needs at least one rack",
        (f"{prefix}racks", "missing"): "give either racks or generator: fattree",
        (f"{prefix}racks", "unknown_field"): "racks and generator are alternatives; give one of them",
        (f"{prefix}racks[].servers", "too_short"): "a rack needs at least one server group",
        (f"{prefix}generator", "invalid_choice"): "must be 'fattree' (the only generator), got {got}",
        ("apiVersion", "invalid_choice"): f"must be '{API_VERSION}', got {{got}}",
        ("kind", "invalid_choice"): "must be 'Cluster' for a cluster spec, got {got}",
    }


def _unknown_server_type(path: str, name: str) -> FieldError:
    valid = sorted(catalog.server_types())
    return FieldError(path, f"unknown server type {short_repr(name)}; valid types: {', '.join(valid)}",
                      "unknown_server_type", {"valid": valid})


def _server_type_errors(spec: object, prefix: str, generated: bool) -> list[FieldError]:
    """Unknown server types, read from the raw spec so they are reported even beside other faults."""
    known = catalog.server_types()
    if not isinstance(spec, dict):
        return []
    if generated:
        name = spec.get("server_type")
        unknown = isinstance(name, str) and name not in known
        return [_unknown_server_type(f"{prefix}server_type", name)] if unknown else []
    out = []
    racks = spec.get("racks")
    for i, rack in enumerate(racks if isinstance(racks, list) else []):
        groups = rack.get("servers") if isinstance(rack, dict) else None
        for j, group in enumerate(groups if isinstance(groups, list) else []):
            name = group.get("type") if isinstance(group, dict) else None
            if isinstance(name, str) and name not in known:
                out.append(_unknown_server_type(f"{prefix}racks[{i}].servers[{j}].type", name))
    return out


def _generate(g: GeneratorModel) -> list[RackSpec]:
    racks, left = [], g.servers
    while left > 0:
        n = min(g.servers_per_rack, left)
        k = len(racks)
        racks.append(RackSpec(f"r{k:04d}", k // g.racks_per_pod, [g.server_type] * n))
        left -= n
    return racks


def _explicit(model: RacksModel, prefix: str, errors: list[FieldError]) -> list[RackSpec]:
    first_at: dict[str, int] = {}
    for i, rack in enumerate(model.racks):
        name = rack.name or f"r{i:04d}"
        if name in first_at:
            where = f"{prefix}racks[{i}].name" if rack.name else f"{prefix}racks[{i}]"
            errors.append(FieldError(where, f"duplicate rack name {name!r} (first used by {prefix}racks["
                                     f"{first_at[name]}]; unnamed racks are called r<index>, e.g. r0003)",
                                     "duplicate"))
        first_at.setdefault(name, i)
        in_rack = sum(g.count for g in rack.servers)
        if in_rack > MAX_SERVERS_PER_RACK:
            errors.append(FieldError(f"{prefix}racks[{i}].servers", f"the rack holds {in_rack} servers; the limit "
                                     f"is {MAX_SERVERS_PER_RACK}", "too_many_servers", {"max": MAX_SERVERS_PER_RACK}))
    # Counted before any list is built, so a document cannot make us allocate millions of entries.
    total = sum(g.count for rack in model.racks for g in rack.servers)
    if total > MAX_SERVERS:
        errors.append(FieldError(f"{prefix}racks", f"the cluster has {total} servers; the limit is {MAX_SERVERS}",
                                 "too_many_servers", {"max": MAX_SERVERS}))
    if errors:
        return []
    return [RackSpec(rack.name or f"r{i:04d}", rack.pod, [t for g in rack.servers for t in [g.type] * g.count])
            for i, rack in enumerate(model.racks)]


def _is_shorthand(doc: object) -> bool:
    return (isinstance(doc, dict) and "apiVersion" not in doc and "kind" not in doc
            and any(k in doc for k in SHORTHAND_KEYS))


def _validate(model: type[StrictModel], data: object, prefix: tuple, errors: list[FieldError]):
    """`model` validated from `data`, or None with its faults added to `errors`."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        errors += pydantic_field_errors(e, prefix=prefix, overrides=_overrides("spec." if prefix else ""))
        return None


def validate_cluster(doc: object) -> ClusterSpec:
    """The cluster in `doc` (full document or generator shorthand), or ValidationFailed listing every problem."""
    errors: list[FieldError] = []
    if _is_shorthand(doc):
        prefix, spec, generated = "", doc, True
        model = _validate(GeneratorShorthand, doc, (), errors)
        name = model and (model.name or f"fattree-{model.servers}-{model.server_type}")
    else:
        prefix = "spec."
        envelope = _validate(_Envelope, doc, (), errors)
        name = envelope and envelope.metadata.name
        spec = doc.get("spec") if isinstance(doc, dict) else None
        generated = isinstance(spec, dict) and "generator" in spec
        form = GeneratorModel if generated else RacksModel
        model = _validate(form, spec, ("spec",), errors) if isinstance(spec, dict) else None
    errors += _server_type_errors(spec, prefix, generated)
    racks = []
    if isinstance(model, RacksModel):
        racks = _explicit(model, prefix, errors)
    elif model is not None and not errors:
        racks = _generate(model)
    raise_validation(errors)
    return ClusterSpec(name, racks)
