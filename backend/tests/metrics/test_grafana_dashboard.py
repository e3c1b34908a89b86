"""deploy/grafana/e3-energy.json: valid JSON, every query valid PromQL (promtool, from Debian's prometheus), and
every metric it reads one that /metrics exports (the API's families as served, the controller's as rendered)."""

import json
import re
import shutil
import subprocess
import uuid

import pytest
import yaml
from helpers import REPO_ROOT

from e3.energy.ledger import EnergyLedger
from e3.metrics.ledger_exposition import LedgerExposition, LedgerSnapshot

DASHBOARD = REPO_ROOT / "deploy" / "grafana" / "e3-energy.json"
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")
# Grafana's own variables, as Grafana substitutes them before Prometheus sees a query
GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$__range": "1h", "$cluster": ".*", "$application": ".*"}


def _queries(dashboard: dict) -> list[str]:
    queries = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    queries += [v["query"]["query"] for v in dashboard["templating"]["list"] if v["type"] == "query"]
    return queries


def _exported(client) -> set[str]:
    """Sample names /metrics can carry: each family's TYPE line, a histogram's series included."""
    ledger = EnergyLedger()
    node, instance = str(uuid.uuid4()), str(uuid.uuid4())
    for t in (100.0, 100.5):
        ledger.account(node, "c", "host", "n").add(t, 50.0, "model", 0.5, [(instance, 3, 0.5)])
    ledger.close(float("inf"), idle_watts=lambda n: 10.0, reserved_cores=lambda i: 1.0)
    ledger.instances[instance].labels = ("d", "a", "g")
    text = client.get("/metrics").text + LedgerExposition().render(LedgerSnapshot.of(ledger), {"c": "lab"})
    names = set()
    for name, kind in re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M):
        names.update([name + s for s in HISTOGRAM_SUFFIXES] if kind == "histogram" else [name])
    return names


def test_the_dashboard_is_grafana_json_with_the_three_views():
    dashboard = json.loads(DASHBOARD.read_text())
    titles = {p["title"] for p in dashboard["panels"]}
    assert {"Power per application", "Joules per request, per application", "Node power by source"} <= titles
    assert len({p["id"] for p in dashboard["panels"]}) == len(dashboard["panels"])


def test_every_metric_the_dashboard_reads_is_exported(client):
    exported = _exported(client)
    used = {m for q in _queries(json.loads(DASHBOARD.read_text())) for m in re.findall(r"\be3_[a-z_]+\b", q)}
    assert used, "no e3_ metric found in the dashboard's queries"
    assert used <= exported, f"the dashboard reads metrics /metrics does not export: {sorted(used - exported)}"


def test_every_query_is_valid_promql(tmp_path):
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.fail("promtool is missing: install Debian's prometheus (scripts/install-system-deps test)")
    rules = []
    for i, query in enumerate(_queries(json.loads(DASHBOARD.read_text()))):
        for variable, value in GRAFANA_VARIABLES.items():
            query = query.replace(variable, value)
        if query.startswith("label_values("):  # Grafana's, not PromQL: its metric selector is
            query = query[len("label_values("):].rsplit(",", 1)[0]
        rules.append({"record": f"e3:dashboard_query_{i}", "expr": query})
    path = tmp_path / "rules.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    checked = subprocess.run([promtool, "check", "rules", str(path)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
