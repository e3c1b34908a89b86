"""`e3 up`'s demo: the paper's IOT-TS application placed by HCM on the cluster `e3 up` started, under
steady load from e3-loadgen, so that `e3 get nodes` and the UI show live heartbeats, queue depths and
joules per request.

The catalogue's IOT-TS template gets the configuration its services need (an API key for the
gateway, the thermostat table's columns). Two open-loop load generators run, each for LOAD_ROUND_S at
a time (restarted by `e3 up`, so their exact latency records stay small):
- thermostat readings through the DAG's entry: `<key> <client>` to an api_gateway primary, whose
  ALLOW forwards `SELECT ...` to a sql shard (paper Figure 1's first two stages);
- EMA updates straight to an ema primary (on a SmartNIC when HCM put it there), so NIC queues move.
"""

import dataclasses
import subprocess
from dataclasses import dataclass
from pathlib import Path

from e3 import catalog
from e3.client.api import Api, ClientError
from e3.core.processes import die_with_parent
from e3.client.deployments import place, wait_running
from e3.emulation.binaries import loadgen_binary
from e3.schemas.dag import ApplicationSpec

APPLICATION = "iot-ts-demo"  # the catalogue's iot-ts, configured and scaled for the demo
API_KEY = "e3-demo"
LOAD_ROUND_S = 600
RUNNING_TIMEOUT_S = 90.0


@dataclass(frozen=True)
class Load:
    """One steady load: its target instance and request."""

    name: str
    dag_node: str
    payload: str


LOADS = [Load("readings", "api", f"{API_KEY} thermostat-1\\nSELECT WHERE id = 1"),
         Load("ema", "ema", "UPDATE thermostat-1 21.5")]


# Shards per DAG node: fewer than the paper's (a demo on one machine), and so that a sql instance's
# downstream set (every ema, spike and recommend shard) stays within an agent's 16.
DEMO_SHARDS = {"api": 3, "sql": 6, "ema": 4, "spike": 4, "recommend": 4}


def demo_application() -> dict:
    """IOT-TS from the catalogue, with its services' configuration and the demo's shard counts."""
    spec = dataclasses.replace(ApplicationSpec.from_document(catalog.template("iot-ts")), name=APPLICATION)
    for node_id, shards in DEMO_SHARDS.items():
        spec = spec.replace_node(node_id, shards=shards)
    spec = spec.replace_node("api", config={"keys": API_KEY, "rate": "1000000", "burst": "100000"})
    return spec.replace_node("sql", config={"columns": "id:int,temp:real"}).to_document()


def _deployment(api: Api, cluster: str) -> str:
    """The demo's deployment on `cluster`: the one an earlier `e3 up` made (its instances come back as
    the agents re-register), else a new one placed by HCM (the application created unless it exists).
    An earlier demo deployment that failed is deleted first."""
    for deployment in api.all_pages("/api/v1/deployments"):
        if deployment["application"] != APPLICATION or deployment["cluster"] != cluster:
            continue
        if deployment["state"] == "placed" and not deployment["instance_states"].get("failed"):
            return deployment["id"]
        api.request("DELETE", f"/api/v1/deployments/{deployment['id']}")
    if not api.exists(f"/api/v1/applications/{APPLICATION}"):
        api.post("/api/v1/applications", json=demo_application())
    return place(api, APPLICATION, cluster)


def deploy(api: Api, cluster: str) -> list[dict]:
    """IOT-TS on `cluster` (see _deployment), once every instance runs; returns the placement's instances."""
    return wait_running(api, _deployment(api, cluster), RUNNING_TIMEOUT_S)


def load_argv(load: Load, instances: list[dict], rate: float) -> list[str]:
    """e3-loadgen's command line for one steady load, aimed at the first primary of its DAG node."""
    target = next(i for i in instances if i["dag_node"] == load.dag_node and i["role"] == "primary")
    if not target["address"] or not target["port"]:  # an instance no agent has deployed has nowhere to send to
        raise ClientError(f"the {load.dag_node} primary ({target['id']}) is {target['state']} with no address "
                          f"and port yet; no load sent")
    return [str(loadgen_binary()), "--target", f"{target['address']}:{target['port']}", "--mode", "open",
            "--rate", f"{rate:g}", "--duration", str(LOAD_ROUND_S), "--warmup", "0", "--payload", load.payload]


def start_load(argv: list[str], log: Path) -> subprocess.Popen:
    """Start one round of a load generator (it dies with `e3 up`)."""
    with log.open("ab") as out:
        return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, preexec_fn=die_with_parent)
