"""A deployment's status from its placement and its instances' ACKs/NACKs: never "running" while an agent
refused an instance, or while nothing executes it."""

from e3.services.deployment_status import Refusal, deployment_status

BAD_KEYS = Refusal("bad_config", "engine: api_gateway: config needs keys=<k1,k2,...>", 3)
BAD_SQL = Refusal("bad_config", "engine: sql: config needs columns=", 1)


def test_placing_and_a_refused_placement():
    assert deployment_status("pending", None, {}).status == "placing"
    assert deployment_status("placing", None, {}).status == "placing"
    failed = deployment_status("failed", {"code": "insufficient_capacity", "message": "no room for sql"}, {})
    assert (failed.status, failed.reason) == ("failed", "no room for sql")


def test_some_instances_refused_is_degraded_and_names_the_commonest_reason():
    status = deployment_status("placed", None, {"running": 14, "failed": 4}, [BAD_KEYS, BAD_SQL])
    assert status.status == "degraded"
    assert status.reason == ("4 of 18 instances refused by their agents: bad_config: engine: api_gateway: "
                             "config needs keys=<k1,k2,...> (and 1 other reason)")


def test_every_instance_refused_is_failed():
    status = deployment_status("placed", None, {"failed": 3}, [BAD_KEYS])
    assert status.status == "failed" and status.reason.startswith("3 of 3 instances refused")


def test_a_refusal_outweighs_instances_still_deploying():
    assert deployment_status("placed", None, {"deploying": 5, "failed": 1}, [BAD_SQL]).status == "degraded"


def test_deploying_until_every_agent_acked_then_running():
    deploying = deployment_status("placed", None, {"running": 3, "deploying": 2})
    assert (deploying.status, deploying.reason) == ("deploying", "3 of 5 instances running, 2 being deployed")
    assert deployment_status("placed", None, {"running": 5}) == deployment_status("placed", None, {"running": 5})
    assert deployment_status("placed", None, {"running": 5}).status == "running"


def test_placed_where_no_agent_runs_is_not_running():
    nothing = deployment_status("placed", None, {"placed": 108})
    assert nothing.status == "placed" and "nothing executes it" in nothing.reason
    part = deployment_status("placed", None, {"placed": 2, "running": 6})
    assert (part.status, part.reason) == ("degraded", "2 of 8 instances are on nodes no agent runs")


def test_a_backup_being_seeded_after_a_failover_is_degraded():
    status = deployment_status("placed", None, {"running": 5, "seeding": 1})
    assert (status.status, status.reason) == ("degraded", "1 backup is being seeded after a failover")
