"""Catalogue family: microservice types, server types, paper application templates."""

from typing import Any

from pydantic import BaseModel, Field


class ServiceTypePublic(BaseModel):
    name: str
    description: str
    stateful: bool
    platforms: list[str]
    suits_smartnic: bool = Field(description="Requests per joule higher on the SmartNIC than on the host (Table 1)")
    smartnic_speedup: float = Field(description="SmartNIC / host-DPDK requests per joule, paper Table 1")
    memory_mb: int
    cpu_cores: float
    bandwidth_mbps: int
    calibration: dict[str, dict[str, float]]
    config_schema: dict[str, Any] = Field(description=(
        "JSON Schema of a node's `config` for this service: its keys, their types, defaults, ranges and "
        "formats. Values are written as strings in the spec (the agent hands the service text); `integer` "
        "and `number` say how the string must read. A required key left out is filled in at save, from "
        "`default` or generated (`x-e3-generate`), and shown in the stored spec"))


class ServerTypePublic(BaseModel):
    name: str
    cost_usd: int
    host_cores: int
    host_core_class: str
    host_memory_gb: int
    smartnics: int
    smartnic_cores: int
    smartnic_memory_gb: int
    bandwidth_gbps: int
    idle_watts: int
    peak_watts: int
    hw: str


class TemplatePublic(BaseModel):
    name: str
    description: str
    instances: int
    services: list[str]


class TemplatesPublic(BaseModel):
    items: list[TemplatePublic]
    total: int


class TemplateInstantiate(BaseModel):
    name: str | None = Field(None, description="Application name; the template's name when omitted")
