"""Client commands over the REST API: clusters, applications, deployments, jobs, tokens."""

from pathlib import Path

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from e3.client import deployments
from e3.client.api import Api, ClientError
from e3.cli.output import Output, console, emit

OutputOpt = typer.Option(Output.table, "--output", help="table for people, json for scripts")
KINDS = {
    "clusters": ("/api/v1/clusters", ["name", "racks", "servers", "nodes", "server_types", "deployments"]),
    "applications": ("/api/v1/applications", ["name", "latest_version", "instances", "description"]),
    "deployments": ("/api/v1/deployments", ["id", "application", "version", "cluster", "algorithm", "status",
                                            "instances", "status_reason"]),
    "jobs": ("/api/v1/jobs", ["id", "kind", "state", "progress", "message"]),
    "migrations": ("/api/v1/migrations", ["id", "instance_id", "source_node", "target_node", "reason", "state", "step",
                                          "created_at"]),
}
NODE_COLUMNS = ["name", "kind", "state", "address", "instances", "requests_last_min", "cpu_util", "power_watts",
                "power_source"]
YAML_TYPES = {".yaml": "application/yaml", ".yml": "application/yaml", ".json": "application/json"}


def _node_row(node: dict) -> dict:
    """A node for the table: its telemetry summary flattened (power always with its source)."""
    t = node.get("telemetry") or {}
    power = t.get("power") or {}
    return dict(node, requests_last_min=t.get("requests"), cpu_util=t.get("cpu_util"), power_watts=power.get("watts"),
                power_source=power.get("source"))


def _read_document(path: Path) -> tuple[bytes, str]:
    if not path.is_file():
        raise ClientError(f"{path}: no such file")
    content_type = YAML_TYPES.get(path.suffix.lower())
    if content_type is None:
        raise ClientError(f"{path}: expected a .yaml, .yml or .json file")
    return path.read_bytes(), content_type


def wait_for_job(api: Api, job_id: str, show_progress: bool) -> dict:
    """Follow a job until it ends, drawing a progress bar when asked."""
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                  TimeElapsedColumn(), console=console, disable=not show_progress, transient=False) as bar:
        task = bar.add_task("queued", total=1.0)
        return deployments.wait_for_job(api, job_id, on_update=lambda job: bar.update(
            task, completed=job["progress"], description=job["message"][:60] or job["state"]))


def register(app: typer.Typer) -> None:
    cluster_app = typer.Typer(help="Create and delete clusters.", no_args_is_help=True)
    app.add_typer(cluster_app, name="cluster")
    token_app = typer.Typer(help="API tokens for CI pipelines.", no_args_is_help=True)
    app.add_typer(token_app, name="token")

    @cluster_app.command("create")
    def cluster_create(
        file: Path = typer.Option(None, "-f", "--file", help="Cluster spec (YAML or JSON)"),
        generator: str = typer.Option(None, help="Topology generator: fattree"),
        servers: int = typer.Option(None, help="Servers, with --generator"),
        server_type: str = typer.Option(None, "--type", help="Server type, e.g. type1-smartnic"),
        servers_per_rack: int = typer.Option(40, help="Servers per rack, with --generator"),
        name: str = typer.Option(None, help="Cluster name (default fattree-<servers>-<type>)"),
        output: Output = OutputOpt,
    ) -> None:
        """Create a cluster from a spec file or a generator."""
        api = Api()
        if file and generator:
            raise ClientError("give either -f FILE or --generator, not both")
        if file:
            body, content_type = _read_document(file)
            result = api.post("/api/v1/clusters", content=body, headers={"Content-Type": content_type}).json()
        elif generator:
            spec = {"generator": generator, "servers": servers, "server_type": server_type,
                    "servers_per_rack": servers_per_rack}
            if name:
                spec["name"] = name
            result = api.post("/api/v1/clusters", json={k: v for k, v in spec.items() if v is not None}).json()
        else:
            raise ClientError("give -f FILE or --generator fattree --servers N --type TYPE")
        if "job_id" in result:  # a large cluster: a worker builds it (202); follow its job
            job = wait_for_job(api, str(result["job_id"]), show_progress=output == Output.table)
            result.update(state=job["state"], message=job["message"], error=job["error"])
            if job["state"] == "failed":
                raise ClientError(f"building cluster {result['name']} failed: "
                                  f"{(job['error'] or {}).get('message', job['message'])}")
        emit(result, output)

    @cluster_app.command("delete")
    def cluster_delete(name: str, output: Output = OutputOpt) -> None:
        """Delete a cluster (refused while deployments exist on it)."""
        Api().request("DELETE", f"/api/v1/clusters/{name}")
        emit({"deleted": name}, output)

    @cluster_app.command("up")
    def cluster_up(
        mode: str = typer.Option("local", help="local: real e3-agent processes on this machine's loopback; "
                                               "rack: an emulated SmartNIC rack in network namespaces (root)"),
        servers: int = typer.Option(2, min=1, max=64, help="Servers"),
        server_type: str = typer.Option(None, "--type", help="Server type (local: beefy | wimpy, default beefy; "
                                                             "rack: type1-smartnic | type2-smartnic, default type1)"),
        name: str = typer.Option("local", help="Cluster name (reused if it exists)"),
        workers: int = typer.Option(2, min=1, max=64, help="Engine worker threads per agent (local mode)"),
        controller: str = typer.Option(None, help="Controller host:port, or a comma-separated list of them "
                                                  "(default: what `e3 up` wrote)"),
        output: Output = OutputOpt,
    ) -> None:
        """Start a cluster of real agents that register with the controller; `e3 cluster down` stops them."""
        from e3.emulation import local_cluster, rack_cluster
        from e3.client.api import controller_address

        if mode == "local":
            started = local_cluster.up(Api(), name, servers, server_type or "beefy", workers,
                                       controller or controller_address())
            emit(started, output, ["node", "pid", "registered", "log"], title=f"local cluster {name}: agents up")
        elif mode == "rack":
            started = rack_cluster.up(Api(), name, servers, server_type or "type1-smartnic",
                                      controller or controller_address(),
                                      on_step=lambda step: typer.echo(f"rack: {step}", err=True))
            emit(started, output, ["node", "kind", "pid", "registered", "log"],
                 title=f"rack {name}: emulated SmartNIC servers up")
        else:
            raise ClientError(f"unknown mode {mode!r}; use local or rack", exit_code=2)

    @cluster_app.command("down")
    def cluster_down(name: str = typer.Argument("local", help="The local cluster or rack to stop"),
                     output: Output = OutputOpt) -> None:
        """Stop a local cluster's agents, or a rack's programs and network (the API's cluster and its
        deployments stay; delete them separately)."""
        from e3.emulation import local_cluster, rack_cluster

        if rack_cluster.is_rack(name):
            emit(rack_cluster.down(name), output, ["node", "kind", "pid", "stopped"], title=f"rack {name}: down")
        else:
            emit(local_cluster.down(name), output, ["node", "pid", "stopped"],
                 title=f"local cluster {name}: agents down")

    @app.command()
    def apply(file: Path = typer.Option(..., "-f", "--file", help="Application DAG spec (YAML or JSON)"),
              cluster: str = typer.Option(..., help="Cluster to deploy onto"),
              algorithm: str = typer.Option("hcm", help="hcm | annealing | ilp | first_fit | random"),
              wait: bool = typer.Option(False, "--wait", help="Wait for the placement and the agents' answers; "
                                                              "exit 1 if it fails or instances are refused"),
              timeout_s: float = typer.Option(60.0, "--timeout", min=1,
                                              help="With --wait: seconds to wait for the agents after placement"),
              output: Output = OutputOpt) -> None:
        """Create or update an application from a file and deploy it onto a cluster."""
        from e3.schemas.documents import parse_document

        body, content_type = _read_document(file)
        try:
            name = parse_document(body, content_type)["metadata"]["name"]
        except Exception as exc:  # the server gives the full diagnosis; we only need the name
            raise ClientError(f"{file}: cannot read metadata.name ({exc})") from exc
        api = Api()
        application = api.request("PUT", f"/api/v1/applications/{name}", content=body,
                                  headers={"Content-Type": content_type}).json()
        accepted = api.post("/api/v1/deployments", json={"application": name, "version": application["latest_version"],
                                                         "cluster": cluster, "algorithm": algorithm}).json()
        result = {"application": name, "version": application["latest_version"], **accepted}
        if not wait:
            emit(result, output)
            return
        job = wait_for_job(api, str(accepted["job_id"]), show_progress=output == Output.table)
        result.update(state=job["state"], message=job["message"], error=job["error"])
        if job["state"] == "failed":
            if output == Output.json:
                emit(result, output)
            detail = (job["error"] or {}).get("message", job["message"])
            raise ClientError(f"deployment {accepted['deployment_id']} failed: {detail}")
        deployment = deployments.wait_settled(api, str(accepted["deployment_id"]), timeout_s)
        result.update(status=deployment["status"], status_reason=deployment["status_reason"],
                      refusals=deployment["refusals"])
        emit(result, output)
        if deployment["status"] in ("failed", "degraded"):
            raise ClientError(f"deployment {accepted['deployment_id']} {deployment['status']}: "
                              f"{deployment['status_reason']}")

    @app.command()
    def preview(file: Path = typer.Option(..., "-f", "--file", help="Application DAG spec (YAML or JSON)"),
                cluster: str = typer.Option(..., help="Cluster to preview on (its current load counts)"),
                algorithm: list[str] = typer.Option(["hcm", "annealing", "ilp", "first_fit"], "--algorithm",
                                                    help="Algorithms to compare (repeat)"),
                offered_rps: float = typer.Option(None, min=0.001, help="Entry request rate; the knee if omitted"),
                ilp_time_limit_s: float = typer.Option(10.0, min=0.1, max=120),
                output: Output = OutputOpt) -> None:
        """Dry-run placement algorithms and compare their predicted latency, throughput, power, J/req."""
        from e3.schemas.documents import parse_document

        body, content_type = _read_document(file)
        try:
            spec = parse_document(body, content_type)
        except Exception as exc:
            raise ClientError(f"{file}: {exc}") from exc
        result = Api(timeout=300).post("/api/v1/placements/preview", json={
            "cluster": cluster, "spec": spec, "algorithms": algorithm, "offered_rps": offered_rps,
            "ilp_time_limit_s": ilp_time_limit_s}).json()
        if output == Output.json:
            emit(result, output)
            return
        rows = []
        ratios_by_name = {row["name"]: row for row in result["comparison"].get("rows", [])}
        for r in result["results"]:
            p = r.get("prediction") or {}
            ratios = ratios_by_name.get(r["algorithm"], {})
            rows.append({"algorithm": r["algorithm"], "placed": r["placed"], "runtime_ms": r.get("runtime_ms"),
                         "throughput_rps": p.get("throughput_rps"), "avg_latency_ms": p.get("avg_latency_ms"),
                         "p99_latency_ms": p.get("p99_latency_ms"), "power_watts": p.get("power_watts"),
                         "joules_per_request": p.get("joules_per_request"),
                         "rpj_vs_baseline": ratios.get("requests_per_joule_ratio"),
                         "error": (r.get("error") or {}).get("message")})
        emit(rows, output, list(rows[0]) if rows else None,
             title=f"{result['application']} on {result['cluster']}: predicted by the cost model (source: model)")

    @app.command()
    def get(kind: str = typer.Argument(..., help="clusters | applications | deployments | jobs | migrations | nodes"),
            cluster: str = typer.Option(None, help="The cluster whose nodes to list (with `nodes`)"),
            limit: int = typer.Option(50, min=1, max=1000), offset: int = typer.Option(0, min=0),
            all_pages: bool = typer.Option(False, "--all", help="Fetch every page"),
            output: Output = OutputOpt) -> None:
        """List clusters, applications, deployments, jobs, or a cluster's nodes with their telemetry."""
        if kind == "nodes":
            if not cluster:
                raise ClientError("`e3 get nodes` needs --cluster NAME", exit_code=2)
            path, columns = f"/api/v1/clusters/{cluster}/nodes", NODE_COLUMNS
        elif kind in KINDS:
            path, columns = KINDS[kind]
        else:
            raise ClientError(f"unknown kind '{kind}'; use one of: {', '.join([*KINDS, 'nodes'])}", exit_code=2)
        api = Api()
        items = api.all_pages(path) if all_pages else api.get(path, limit=limit, offset=offset)["items"]
        if kind == "nodes" and output == Output.table:
            items = [_node_row(n) for n in items]
        emit(items, output, columns, title=kind)

    @app.command()
    def rollout(deployment: str = typer.Argument(..., help="Deployment id"),
                version: int = typer.Option(..., min=1, help="Application version to roll to"),
                wait: bool = typer.Option(False, "--wait", help="Wait for the rollout; exit 1 if it is rolled back"),
                output: Output = OutputOpt) -> None:
        """Roll a deployment to another application version (the old one is removed once the new one runs)."""
        api = Api()
        accepted = api.post(f"/api/v1/deployments/{deployment}/rollout", json={"version": version}).json()
        if not wait:
            emit(accepted, output)
            return
        job = wait_for_job(api, str(accepted["job_id"]), show_progress=output == Output.table)
        emit({**accepted, "state": job["state"], "message": job["message"], "error": job["error"]}, output)
        if job["state"] == "failed":
            raise ClientError(f"rollout of deployment {deployment} to v{version} failed: "
                              f"{(job['error'] or {}).get('message', job['message'])}")

    @app.command()
    def placement(deployment: str = typer.Argument(..., help="Deployment id"), output: Output = OutputOpt) -> None:
        """List where every instance of a deployment was placed."""
        items = Api().all_pages(f"/api/v1/deployments/{deployment}/placement")
        emit(items, output, ["dag_node", "shard", "replica", "role", "node", "node_kind", "server", "state", "port",
                             "error"])

    @app.command()
    def request(deployment: str = typer.Argument(..., help="Deployment id"),
                data: str = typer.Option(..., help="Request text; lines separated by \\n go down the DAG, one a hop"),
                node: str = typer.Option(None, help="DAG node to send to (default: the first in placement order)"),
                count: int = typer.Option(1, min=1, max=100_000, help="Send it this many times"),
                timeout_s: float = typer.Option(2.0, min=0.01), output: Output = OutputOpt) -> None:
        """Send a request to a deployment's entry instance (UDP, the agents' framing) and print the reply."""
        from e3.dataplane import udp

        items = Api().all_pages(f"/api/v1/deployments/{deployment}/placement")
        entry = next((i for i in items if i["role"] == "primary" and (node is None or i["dag_node"] == node)), None)
        if entry is None:
            raise ClientError(f"deployment {deployment} has no primary instance" + (f" of {node!r}" if node else ""))
        if entry["state"] != "running" or not entry.get("port"):
            raise ClientError(f"instance {entry['id']} ({entry['dag_node']}) is {entry['state']}, not running on an agent")
        address = entry["address"]
        payload = data.replace("\\n", "\n").encode()
        replies = []
        for _ in range(count):
            try:
                reply = udp.send(address, entry["port"], payload, timeout_s)
            except udp.RequestFailed as exc:
                raise ClientError(str(exc)) from exc
            replies.append(reply)
        last = replies[-1]
        result = {"instance": entry["id"], "address": f"{address}:{entry['port']}", "sent": count,
                  "ok": sum(r.ok for r in replies), "reply": last.body.decode(errors="replace")}
        emit(result, output)
        if not last.ok:
            raise ClientError(f"the service answered with an error: {result['reply']}")

    @app.command()
    def export(application: str, version: int = typer.Option(None, min=1),
               file: Path = typer.Option(None, "--file", help="Write here instead of standard output")) -> None:
        """Export an application as a YAML DAG spec."""
        text = Api().request("GET", f"/api/v1/applications/{application}/export",
                             params={"version": version} if version else None).text
        if file:
            file.write_text(text)
        else:
            print(text, end="")

    @token_app.command("create")
    def token_create(scope: list[str] = typer.Option(..., "--scope", help="read | write | deploy | admin (repeat)"),
                     name: str = typer.Option("ci", help="A name to recognise the token by"),
                     expires_in_days: int = typer.Option(None, min=1), output: Output = OutputOpt) -> None:
        """Create an API token (needs an admin token). The secret is shown once."""
        scopes = [s.strip() for item in scope for s in item.split(",") if s.strip()]
        created = Api().post("/api/v1/tokens", json={"name": name, "scopes": scopes,
                                                     "expires_in_days": expires_in_days}).json()
        if output == Output.json:
            emit(created, output)
            return
        console.print(f"token [bold]{created['name']}[/bold] ({', '.join(created['scopes'])}); shown once, store it now:")
        print(created["token"])
