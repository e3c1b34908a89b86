"""A cluster's power sources (PUT /api/v1/clusters/{name}/power): their precedence and where each server's
BMC is (docs/energy.md "IPMI DCMI").

    {"precedence": ["ipmi", "rapl", "model"],
     "bmcs": {"r0000-s00": {"address": "10.0.0.17", "port": 623,
                            "credentials_file": "/etc/e3/bmc/r0000-s00.cred", "interface": "lanplus"}}}

The agents choose between RAPL and the model themselves (RAPL where the host has it). What the cluster
chooses is where IPMI stands: first (its split reading wins while fresh; the controller polls the BMCs) or
absent (no polling). The credentials never travel here: only the path of a file on the controller's host.
"""

import ipaddress
import re
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, field_validator

from e3.energy.ipmi import INTERFACES
from e3.schemas.dag import StrictModel

SOURCES = ("ipmi", "rapl", "model")
DEFAULT_PRECEDENCE = ("rapl", "model")
_HOSTNAME = re.compile(r"^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}"
                       r"[A-Za-z0-9])?)*$")


class BmcModel(StrictModel):
    """Where one server's BMC is and how E3 reaches it."""

    interface: Literal[INTERFACES] = Field("lanplus", description="lanplus: IPMI 2.0 RMCP+ over the network "
                                           "(out-of-band); open: /dev/ipmi0 of the controller's own host (in-band)")
    address: str | None = Field(None, description="the BMC's IP address or host name (lanplus)")
    port: int = Field(623, ge=1, le=65535, description="the BMC's UDP port (lanplus)")
    credentials_file: Annotated[str, StringConstraints(max_length=4096)] | None = Field(
        None, description="absolute path, on the controller's host, of a file (mode 600) holding the BMC user "
                          "on its first line and the password on its second (lanplus)")

    @field_validator("address")
    @classmethod
    def _address(cls, value: str | None) -> str | None:
        if value is None:
            return value
        try:
            return str(ipaddress.ip_address(value))
        except ValueError:
            if _HOSTNAME.match(value):
                return value
        raise ValueError(f"not an IP address or a host name: {value[:80]!r}")

    @field_validator("credentials_file")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith("/"):
            raise ValueError("must be an absolute path (the controller reads it, from its own working directory)")
        return value


class PowerConfig(StrictModel):
    precedence: list[Literal[SOURCES]] = Field(list(DEFAULT_PRECEDENCE), min_length=1, max_length=3,
                                               description="power sources, best first: ipmi first or not at all")
    bmcs: dict[Annotated[str, StringConstraints(max_length=63)], BmcModel] = Field(
        default_factory=dict, max_length=100_000, description="each server's BMC, by server name")

    @field_validator("precedence")
    @classmethod
    def _order(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("names a source twice")
        if "model" not in value:
            raise ValueError("must end with model, the source every node has")
        if "ipmi" in value and value[0] != "ipmi":
            raise ValueError("ipmi comes first or not at all (the agents choose between rapl and model "
                             "themselves)")
        return value


class PowerConfigPublic(PowerConfig):
    polled: bool = Field(description="the controller polls the BMCs (ipmi in the precedence)")
