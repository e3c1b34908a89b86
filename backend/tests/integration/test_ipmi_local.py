"""IPMI end to end: a local cluster (real agents, controller, API, Postgres, Redis) whose first server has an
emulated BMC speaking real IPMI over LAN (e3.emulation.bmc_sim). Its host node's watts, in the stored
telemetry and the live channel, are the BMC's reading split to the node (`ipmi-split`); when the BMC falls
silent or refuses the credentials, the node goes back to its agent's own figure within the reading's
validity, an event says why, and no heartbeat after that shows the old reading."""

from datetime import datetime, timedelta, timezone

import pytest
from emulated_bmc import private_file, start_bmc, stop_bmc
from helpers import wait_until

from e3.controller.power_readings import REFRESH_S, VALID_S

BMC_WATTS = 287  # a beefy server has no SmartNIC: its host node gets the whole reading


@pytest.fixture
def bmc(tmp_path):
    proc, bmc = start_bmc(tmp_path, BMC_WATTS)
    yield dict(bmc, client_creds=private_file(tmp_path / "e3-side.cred", "admin\nsecret\n"))
    stop_bmc(proc)


def _since(seconds_ago=3.0) -> str:
    return (datetime.now(timezone.utc) - timedelta(seconds=seconds_ago)).isoformat()


def _latest(client, node_id):
    """The node's latest heartbeat, from its controller's raw tail."""
    page = client.get(f"/api/v1/nodes/{node_id}/telemetry", params={"since": _since(), "limit": 5000}).json()
    assert page["tail_status"] in ("ok", "none"), page["tail_error"]
    return page["tail"][-1] if page["tail"] else None


def _live(client, node_id):
    snap = client.get("/api/v1/clusters/duo/live/snapshot").json()
    return next(n for n in snap["nodes"] if n["id"] == str(node_id))["power"]


def _power_events(client):
    return [e for e in client.get("/api/v1/events", params={"cluster": "duo", "limit": 1000}).json()["items"]
            if e["kind"].startswith("power.")]


def _measured(client, node_id):
    point = _latest(client, node_id)
    return point if point and point["power"]["source"] == "ipmi-split" else None


def _fallen_back(client, node_id):
    point = _latest(client, node_id)
    return point if point and point["power"]["source"] != "ipmi-split" else None


def _stored_after(client, node_id, instant: datetime):
    """The node's stored steps from `instant` on, once a second of them is stored."""
    def second_of_them():
        items = client.get(f"/api/v1/nodes/{node_id}/telemetry",
                           params={"since": instant.isoformat(), "limit": 5000}).json()["items"]
        return items if items and datetime.fromisoformat(items[-1]["ts"]) > instant + timedelta(seconds=1) else None
    return wait_until(second_of_them, timeout=15, what="heartbeats stored after the reading's validity")


def test_the_host_node_draws_from_its_bmc_and_falls_back_to_its_agent_when_the_bmc_fails(
        client, e3, worker, controller, local_cluster, bmc):
    nodes = client.get("/api/v1/clusters/duo/nodes").json()["items"]
    metered, other = nodes[0], nodes[1]
    before = _latest(client, metered["id"])
    assert before["power"]["source"] in ("rapl", "model")  # the agent's own figure
    r = client.put("/api/v1/clusters/duo/power", json={
        "precedence": ["ipmi", "rapl", "model"],
        "bmcs": {metered["server"]: {"address": "127.0.0.1", "port": bmc["port"],
                                     "credentials_file": str(bmc["client_creds"])}}})
    assert r.status_code == 200, r.text

    point = wait_until(lambda: _measured(client, metered["id"]), timeout=REFRESH_S + 10, what="the BMC's reading")
    assert point["power"] == {"watts": BMC_WATTS, "source": "ipmi-split"}
    assert wait_until(lambda: _live(client, metered["id"])["source"] == "ipmi-split" and _live(client, metered["id"]),
                      what="the live channel's figure") == {"watts": BMC_WATTS, "source": "ipmi-split"}
    assert _latest(client, other["id"])["power"]["source"] in ("rapl", "model")  # no BMC: its agent's figure
    changed = wait_until(lambda: [e for e in _power_events(client) if e["data"]["to"] == "ipmi-split"],
                         what="the event of IPMI taking over")
    assert changed[0]["kind"] == "power.source_changed" and changed[0]["subject"] == f"server/{metered['server']}"

    # the BMC falls silent: the agent's figure is back within the reading's validity, never the old reading
    bmc["watts"].write_text("silent")
    silent_at = datetime.now(timezone.utc)
    back = wait_until(lambda: _fallen_back(client, metered["id"]), timeout=VALID_S + 10, what="the agent's figure")
    assert back["power"]["source"] in ("rapl", "model")
    assert wait_until(lambda: _live(client, metered["id"])["source"] != "ipmi-split", what="the live channel")
    late = _stored_after(client, metered["id"], silent_at + timedelta(seconds=VALID_S + 0.5))
    assert all(p["power"]["source"] != "ipmi-split" for p in late)
    silenced = wait_until(lambda: [e for e in _power_events(client) if e["data"]["from"] == "ipmi-split"],
                          what="the event of the fallback")
    assert silenced[0]["kind"] == "power.source_changed" and "no answer" in silenced[0]["data"]["reason"]
    assert silenced[0]["data"]["to"] == "agent" and silenced[0]["data"]["nodes"] == [metered["id"]]

    # it answers again, then E3's credentials file stops matching: refused, and the agent's figure again
    bmc["watts"].write_text("300")
    wait_until(lambda: (p := _measured(client, metered["id"])) and p["power"]["watts"] == 300, timeout=REFRESH_S + 10,
               what="the BMC's reading again")
    private_file(bmc["client_creds"], "admin\nnot-the-password\n")
    refused_at = datetime.now(timezone.utc)
    wait_until(lambda: _fallen_back(client, metered["id"]), timeout=VALID_S + 10, what="the fallback")
    late = _stored_after(client, metered["id"], refused_at + timedelta(seconds=VALID_S + 0.5))
    assert all(p["power"]["source"] != "ipmi-split" for p in late)
    refusal = wait_until(lambda: [e for e in _power_events(client)
                                  if e["data"]["from"] == "ipmi-split" and "credentials" in e["data"]["reason"]],
                         what="the event of the refusal")
    assert "refused the credentials" in refusal[0]["data"]["reason"]
