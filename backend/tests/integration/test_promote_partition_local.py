"""Never two primaries after failover (issue 19; docs/agents.md "Never two primaries"): a kvs with two backups on
three local agents (`e3 cluster up --mode local`; real controller, API, worker, Postgres, Redis). The primary's
agent is cut off from the controller (partition.py: its controller connection carries nothing; its data path is
untouched, it keeps running and serving), so the controller marks its node down and fails over: the first backup is
promoted (PromoteInstance) under the old primary's id. The old primary, alive behind the partition, then takes
writes sent straight to its port: within a bounded time it refuses them (stale_epoch), because the promoted copy and
the other backup refuse its updates. Exactly one copy accepts writes; every write the promoted primary acknowledged
reads back; the writes the old primary acknowledged in the window are counted and printed (they are lost: the
promise is that it stops within a tick of its first refused update, not that none is lost)."""

import time

import pytest
from helpers import wait_until
from local_trio import APP, KEY, Writer, ask
from partition import ControllerProxy

from e3.dataplane import udp

TWO_BACKUPS = {**APP, "metadata": {"name": "kv-two-backups"},
               "spec": {**APP["spec"], "nodes": [APP["spec"]["nodes"][0], {**APP["spec"]["nodes"][1], "replicas": 2}]}}
FENCED_WITHIN_S = 5.0  # from the promotion seen in the API to the old primary's first stale_epoch refusal


@pytest.fixture
def trio_app() -> dict:
    return TWO_BACKUPS


@pytest.fixture
def proxies():
    made: list[ControllerProxy] = []
    yield made
    for proxy in made:
        proxy.close()


@pytest.fixture
def controller_route(proxies):
    def through_proxy(address: str) -> str:
        proxies.append(ControllerProxy(address))
        return proxies[-1].address

    return through_proxy


def _placement(client, deployment_id: str) -> dict:
    """The gateway as "gw" and the kvs copies by replica number, as the API says."""
    items = client.get(f"/api/v1/deployments/{deployment_id}/placement").json()["items"]
    return {("gw" if i["dag_node"] == "gw" else i["replica"]): i for i in items}


def _put(where: dict, key: str, value: int) -> tuple[bool, str]:
    try:
        return ask(where, f"PUT {key} {value}", timeout_s=0.5)
    except udp.RequestFailed as exc:
        return False, str(exc)


def _gateway_off(client, deployment_id: str, placed: dict) -> dict:
    """The gateway, moved off the kvs primary's node first (the partition there is not the gateway's)."""
    gw = placed["gw"]
    if gw["node"] != placed[0]["node"]:
        return gw
    r = client.post(f"/api/v1/instances/{gw['id']}/migrations", json={"target_node": placed[2]["node"]})
    assert r.status_code == 202, r.json()
    return wait_until(lambda: (g := _placement(client, deployment_id)["gw"])["node"] == placed[2]["node"]
                      and g["state"] == "running" and g, timeout=30, what="the gateway moved away")


def _readable_through(gw: dict, i: int) -> bool:
    try:
        return ask(gw, f"{KEY} client-2\nGET k{i}") == (True, f"ALLOW\nVALUE v{i}")
    except udp.RequestFailed:
        return False


def test_issue19_a_primary_cut_off_from_the_controller_is_fenced_once_its_backup_is_promoted(client, trio, proxies):
    deployment_id = trio["deployment_id"]
    placed = _placement(client, deployment_id)
    old, first, second = placed[0], placed[1], placed[2]
    gw = _gateway_off(client, deployment_id, placed)
    writer = Writer(gw)
    writer.start()
    wait_until(lambda: len(writer.acked) >= 30, timeout=10, what="writes acknowledged before the partition")

    victim = next(a for a in trio["agents"] if a["node"] == old["node"])
    before_cut = writer.acked[-1]
    cut = time.monotonic()
    proxies[0].cut(victim["pid"])
    promoted = wait_until(lambda: (p := _placement(client, deployment_id)[0])["id"] == first["id"] and p,
                          timeout=30, what="the first backup promoted")
    promoted_s = time.monotonic() - cut
    assert (promoted["node"], promoted["port"]) == (first["node"], first["port"])

    # the old primary, alive behind the partition, takes writes sent straight to it until it refuses one
    seen, window_acked, refusal = time.monotonic(), [], None
    while refusal is None and time.monotonic() - seen < FENCED_WITHIN_S + 5:
        ok, body = _put(old, f"stale{len(window_acked)}", len(window_acked))
        if ok:
            window_acked.append(len(window_acked))
        elif "stale_epoch" in body:
            refusal = body
        time.sleep(0.005)
    fenced_s = time.monotonic() - seen
    fenced_mark = writer.acked[-1]
    assert refusal is not None, f"the old primary still accepts writes {fenced_s:.1f} s after the promotion"
    assert fenced_s < FENCED_WITHIN_S

    # exactly one copy accepts writes: the promoted one; the old one refuses every write from now on
    direct = [_put(promoted, f"direct{j}", j) for j in range(50)]
    assert direct == [(True, "OK")] * 50
    assert [_put(old, f"late{j}", j)[0] for j in range(20)] == [False] * 20
    wait_until(lambda: len(writer.acked) and writer.acked[-1] > fenced_mark + 20, timeout=30,
               what="writes acknowledged through the gateway after the old primary was fenced")
    writer.stop.set()
    writer.join()

    # every write the promoted primary acknowledged reads back; the second backup follows it
    assert [ask(promoted, f"GET direct{j}") for j in range(50)] == [(True, f"VALUE {j}") for j in range(50)]
    wait_until(lambda: ask(second, "GET direct49") == (True, "VALUE 49"), timeout=5,
               what="the second backup following the promoted primary")
    after_fence = [i for i in writer.acked if i > fenced_mark]
    assert [i for i in after_fence if not _readable_through(gw, i)] == []
    before = [i for i in writer.acked if i <= before_cut]
    assert [i for i in before if not _readable_through(gw, i)] == []
    in_between = [i for i in writer.acked if before_cut < i <= fenced_mark]
    lost_through_gateway = [i for i in in_between if not _readable_through(gw, i)]
    lost_direct = [j for j in window_acked if ask(promoted, f"GET stale{j}") != (True, f"VALUE {j}")]
    print(f"cut off -> promoted (API): {promoted_s:.2f} s; promoted -> old primary refuses (stale_epoch): "
          f"{fenced_s:.3f} s; writes sent straight to the old primary and acknowledged meanwhile: {len(window_acked)} "
          f"({len(lost_direct)} lost); gateway writes acknowledged between the cut and the fence: {len(in_between)} "
          f"({len(lost_through_gateway)} lost); {len(after_fence)} acknowledged after it, none lost")
    assert ask(old, f"GET k{before_cut}")[0] is False  # it answers nothing now, not even reads
