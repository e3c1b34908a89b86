"""GET/PUT /api/v1/orchestrator: the mode in force, set at run time (admin scope), followed by the controller's
orchestrator from Redis."""

import asyncio

import pytest
import redis
import redis.asyncio as aioredis
from sqlalchemy import select

from e3.core.db import session_scope
from e3.models import Event
from e3.controller.orchestrator import DataplaneOrchestrator
from e3.services.orchestrator_mode import MODE_KEY


@pytest.fixture(autouse=True)
def no_mode_set(backing_services):
    client = redis.Redis.from_url(backing_services["redis_url"])
    client.delete(MODE_KEY)
    yield
    client.delete(MODE_KEY)


def test_the_mode_is_the_default_until_set_and_setting_it_is_an_event(client):
    assert client.get("/api/v1/orchestrator").json() == {"mode": "migrate", "source": "default"}
    r = client.put("/api/v1/orchestrator", json={"mode": "observe"})
    assert r.status_code == 200 and r.json() == {"mode": "observe", "source": "set"}
    assert client.get("/api/v1/orchestrator").json() == {"mode": "observe", "source": "set"}
    with session_scope() as session:
        (event,) = session.scalars(select(Event).where(Event.kind == "orchestrator.mode")).all()
        assert event.data == {"mode": "observe", "set_by": "admin"}


def test_bad_mode_and_tokens_without_admin_scope_are_refused(client, make_token):
    r = client.put("/api/v1/orchestrator", json={"mode": "sometimes"})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "mode"
    viewer = make_token("read", name="viewer")
    r = client.put("/api/v1/orchestrator", json={"mode": "off"}, headers={"Authorization": f"Bearer {viewer}"})
    assert r.status_code == 403
    deployer = make_token("deploy", name="pipeline")  # a CI pipeline deploys; it does not switch migrations off
    r = client.put("/api/v1/orchestrator", json={"mode": "off"}, headers={"Authorization": f"Bearer {deployer}"})
    assert r.status_code == 403 and "admin" in r.json()["message"]
    assert client.get("/api/v1/orchestrator", headers={"Authorization": f"Bearer {viewer}"}).json()["mode"] == "migrate"


def test_the_controllers_orchestrator_follows_the_mode_set(client, backing_services):
    async def run():
        redis_client = aioredis.Redis.from_url(backing_services["redis_url"])
        orch = DataplaneOrchestrator("migrate")
        orch.detector.cool_down("nic", 1000.0)  # as after a decision observed
        follower = asyncio.create_task(orch.follow_mode(redis_client))
        seen = []
        for mode in ("off", "observe"):
            await asyncio.to_thread(client.put, "/api/v1/orchestrator", json={"mode": mode})
            for _ in range(300):
                if orch.mode == mode:
                    break
                await asyncio.sleep(0.01)
            seen.append(orch.mode)
        await redis_client.delete(MODE_KEY)  # unset: back to its own default
        for _ in range(300):
            if orch.mode == "migrate":
                break
            await asyncio.sleep(0.01)
        seen.append(orch.mode)
        seen.append(len(orch.detector))  # back to migrate: what was latched while observing is forgotten
        follower.cancel()
        await redis_client.aclose()
        return seen

    assert asyncio.run(run()) == ["off", "observe", "migrate", 0]
