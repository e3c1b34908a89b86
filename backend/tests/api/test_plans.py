"""The capacity planner served (issue 20, item 5): POST /api/v1/plans ranks candidate clusters by predicted
cost efficiency; bad input is a 422 naming the field (a real API in process, a real Postgres)."""

import pytest

from e3 import catalog

NFV_FIN = catalog.template("nfv-fin")


def _plan(client, **body):
    return client.post("/api/v1/plans", json={"applications": [{"spec": NFV_FIN}], "load_rps": 1e6, **body})


def test_a_plan_ranks_feasible_candidates_by_requests_per_dollar_with_their_placement(client):
    got = _plan(client, server_types=["wimpy", "type2-smartnic"], years=3)
    assert got.status_code == 200, got.text
    answer = got.json()
    assert answer["source"] == "model" and answer["years"] == [1, 2, 3]
    assert answer["price_per_kwh"] == 0.0733 and answer["price_source"] == "paper"
    assert answer["load_rps"] == 1e6 and answer["applications"] == [{"name": "nfv-fin", "load_rps": 1e6}]
    assert any("switches" in a for a in answer["assumptions"]) and any("0.0733" in a for a in answer["assumptions"])
    plans = answer["plans"]
    assert [p["rank"] for p in plans] == list(range(1, len(plans) + 1))
    feasible = [p for p in plans if p["feasible"]]
    assert feasible and plans[:len(feasible)] == feasible  # the infeasible come last
    last_year = [p["cost_efficiency"][-1]["requests_per_dollar"] for p in feasible]
    assert last_year == sorted(last_year, reverse=True)
    best = feasible[0]
    assert set(best["servers"]) <= {"wimpy", "type2-smartnic"} and len(best["cost_efficiency"]) == 3
    assert best["predicted"]["throughput_rps"] == pytest.approx(1e6) and best["predicted"]["p99_latency_ms"] > 0
    assert best["power_watts"] > 0 and best["reason"] is None
    placed = {(n["application"], n["dag_node"]): sum(i["count"] for i in n["instances"]) for n in best["placement"]}
    assert placed == {("nfv-fin", "flow"): 24, ("nfv-fin", "ipsec"): 24, ("nfv-fin", "nids"): 24}
    one = [p for p in plans if p["servers"] in ({"wimpy": 1}, {"type2-smartnic": 1})]
    assert all(not p["feasible"] and "placement fails" in p["reason"] for p in one)
    assert answer["evaluated"] >= len(plans)


def test_a_stored_application_and_a_custom_server_type(client):
    doc = {**NFV_FIN, "metadata": {"name": "planned-fin"}}
    assert client.post("/api/v1/applications", json=doc).status_code in (200, 201)
    custom = {"name": "cheap-wimpy", "cost_usd": 1000, "idle_watts": 40, "peak_watts": 50, "host_cores": 32,
              "host_core_class": "wimpy", "host_memory_gb": 2}
    got = client.post("/api/v1/plans", json={"applications": [{"name": "planned-fin"}], "load_rps": 1e6,
                                             "server_types": ["wimpy"], "custom_server_types": [custom],
                                             "price_per_kwh": 0.2})
    assert got.status_code == 200, got.text
    answer = got.json()
    assert answer["price_source"] == "request" and answer["applications"][0]["name"] == "planned-fin"
    best = answer["plans"][0]
    # the same shape as a wimpy server, for less money and power: it must win
    assert best["servers"] == {"cheap-wimpy": 4} and best["capex_usd"] == 4000 and best["feasible"]
    assert best["power_watts"] == pytest.approx(4 * 50)  # cnMIPS hosts with instances draw peak


@pytest.mark.parametrize("change, field", [
    ({"load_rps": 0}, "load_rps"), ({"load_rps": -1}, "load_rps"), ({"years": 0}, "years"),
    ({"years": 51}, "years"), ({"price_per_kwh": 0}, "price_per_kwh"), ({"max_servers": 17}, "max_servers"),
    ({"max_servers": 0}, "max_servers"),
    ({"server_types": ["huge"]}, "server_types[0]"), ({"applications": []}, "applications"),
    ({"applications": [{"name": "nowhere"}]}, "applications[0].name"),
    ({"applications": [{}]}, "applications[0].name"),
    ({"applications": [{"spec": {**NFV_FIN, "spec": {"nodes": [{"id": "a", "service": "nope"}]}}}]},
     "applications[0].spec.spec.nodes[0].service"),
    ({"applications": [{"spec": NFV_FIN}, {"spec": NFV_FIN}]}, "applications[1]"),
    ({"applications": [{"spec": NFV_FIN}, {"spec": {**NFV_FIN, "metadata": {"name": "big"},
                  "spec": {"nodes": [{"id": "x", "service": "kvs", "shards": 500, "replicas": 1}]}}}]},
     "applications"),
    ({"applications": [{"spec": NFV_FIN, "load_rps": 2e6}, {"spec": {**NFV_FIN, "metadata": {"name": "b"}}}]},
     "load_rps"),
    ({"custom_server_types": [{"name": "x", "cost_usd": 1, "idle_watts": 100, "peak_watts": 50, "host_cores": 4}]},
     "custom_server_types[0].peak_watts"),
    ({"custom_server_types": [{"name": "beefy", "cost_usd": 1, "idle_watts": 1, "peak_watts": 5, "host_cores": 4}]},
     "custom_server_types[0].name"),
    ({"custom_server_types": [{"name": "x", "cost_usd": 0, "idle_watts": 1, "peak_watts": 5, "host_cores": 4}]},
     "custom_server_types[0].cost_usd"),
])
def test_bad_input_is_a_422_naming_the_field(client, change, field):
    got = client.post("/api/v1/plans", json={"applications": [{"spec": NFV_FIN}], "load_rps": 1e6, **change})
    assert got.status_code == 422, got.text
    body = got.json()
    assert field in [e["field"] for e in body["errors"]], body
    assert body["message"]


def test_a_plan_needs_a_token_and_a_read_scope_is_enough(anon_client, make_token, client):
    body = {"applications": [{"spec": NFV_FIN}], "load_rps": 1e6, "server_types": ["wimpy"]}
    assert anon_client.post("/api/v1/plans", json=body).status_code == 401
    read = {"Authorization": f"Bearer {make_token('read')}"}
    assert anon_client.post("/api/v1/plans", json=body, headers=read).status_code == 200
    assert client.get("/api/v1/applications").json()["total"] == 0  # computes only: nothing is stored
