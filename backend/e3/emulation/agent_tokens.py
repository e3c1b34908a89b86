"""The agent tokens of an emulated cluster's programs (local agents, a rack): one per server, bound to that
server's nodes, revoked when the cluster is taken down.

A token per server means a program can register, heartbeat for and read the commands of its own server's
nodes only (docs/security.md, "Agent identity"). Each start issues new tokens, so the previous start's are
revoked first: those of a run that was killed before its `down` are not left valid. With a controller on TLS,
its programs are also told which certificate to trust (controller_trust_args).
"""

from pathlib import Path

from e3.client.api import Api, ClientError
from e3.core.config import get_settings
from e3.core.envfile import read_env_file


def controller_trust_args() -> list[str]:
    """`--tls-ca <PEM>` for a program to speak TLS to a controller that does (settings.agent_tls_ca); [] for
    plaintext."""
    ca = get_settings().agent_tls_ca
    return ["--tls-ca", str(ca)] if ca else []


def write_secret(path: Path, secret: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600, exist_ok=True)
    path.chmod(0o600)
    path.write_text(secret + "\n")


def token_file(folder: Path, server: str) -> Path:
    """Where the agent token of `server`'s programs is kept (0600)."""
    return folder / f"agent-token.{server}"


def issue(api: Api, prefix: str, cluster: str, servers: list[str], folder: Path) -> dict[str, Path]:
    """Revoke what is left of an earlier start, then a token per server named `<prefix>.<server>`, bound to
    `cluster` and that server, written to token_file(folder, server). Returns server -> its token file."""
    revoke(api, prefix)
    files = {}
    for server in servers:
        body = {"name": f"{prefix}.{server}", "scopes": ["agent"], "cluster": cluster, "servers": [server]}
        files[server] = token_file(folder, server)
        write_secret(files[server], api.post("/api/v1/tokens", json=body).json()["token"])
    return files


def revoke(api: Api, prefix: str) -> int:
    """Revoke every agent token still valid whose name is `<prefix>.<server>`; returns how many."""
    live = [t for t in api.all_pages("/api/v1/tokens")
            if t["name"].startswith(f"{prefix}.") and t["revoked_at"] is None and t["scopes"] == ["agent"]]
    for token in live:
        api.request("DELETE", f"/api/v1/tokens/{token['id']}")
    return len(live)


def revoke_after_failure(api: Api, prefix: str) -> None:
    """revoke() when a start failed: best effort (the next start revokes what this one could not)."""
    try:
        revoke(api, prefix)
    except ClientError:
        pass


def _default_api() -> Api:
    """The CLI's connection (E3_URL/E3_TOKEN, or the nearest .e3/env); else what `e3 up` wrote in its data dir
    (E3_DATA_DIR need not be a `.e3` above the working directory)."""
    try:
        return Api()
    except ClientError:
        env_file = get_settings().env_file
        written = read_env_file(env_file) if env_file.is_file() else {}
        if not written.get("E3_URL"):
            raise
        return Api(written["E3_URL"], written.get("E3_TOKEN"))


def revoke_at_down(prefix: str, api: Api | None = None) -> None:
    """revoke() through `api`, else _default_api(). A ClientError says which tokens are left valid, so that a
    failure is not reported as a clean stop."""
    try:
        revoke(api or _default_api(), prefix)
    except ClientError as exc:
        raise ClientError(f"the programs are stopped, but their agent tokens ({prefix}.*) could not be revoked: "
                          f"{exc.message}; revoke them (DELETE /api/v1/tokens/<id>)") from exc
