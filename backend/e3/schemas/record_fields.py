"""Pydantic fields for the heartbeat record's fields (e3.heartbeat_record), as the public APIs show them.

Each helper returns {public name: (type, FieldInfo)} for `pydantic.create_model`. Nested fields (a dotted
public name, e.g. power.watts) are left out: the model declares their group (Power, LivePower) itself.
"""

from collections.abc import Sequence

from pydantic import Field

from e3.heartbeat_record import RecordField


def telemetry_fields(fields: Sequence[RecordField]) -> dict:
    """The REST telemetry API's (schemas.cluster): every field; a field records may lack has its default."""
    return {f.public: (f.kind.type, Field(... if f.always_present else f.kind.missing, description=f.api_description))
            for f in fields if not f.nested}


def live_node_fields(fields: Sequence[RecordField]) -> dict:
    """The live channel's node view (schemas.live): the node fields it shows, null before the node's first
    heartbeat (when those not `live_always_sent` are left out)."""
    return {f.public: (f.kind.type | None, Field(... if f.live_always_sent else None, description=f.live_description))
            for f in fields if f.live and not f.nested}


def live_instance_fields(fields: Sequence[RecordField]) -> dict:
    """The live channel's figures of an instance (schemas.live): the instance fields it shows."""
    return {f.public: (f.kind.type, Field(... if f.always_present else f.kind.missing, description=f.live_description))
            for f in fields if f.live and not f.nested}
