"""The CLI's HTTP client: E3_URL / E3_TOKEN from the environment or the nearest .e3/env."""

import os

import httpx

from e3.core.envfile import find_env_file, read_env_file


class ClientError(Exception):
    """A failure to report in one clear message and exit non-zero."""

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        self.message, self.exit_code = message, exit_code


def connection() -> tuple[str, str | None]:
    """(url, token): the environment wins over .e3/env, which `e3 up` writes."""
    env_file = find_env_file()
    file_values = read_env_file(env_file) if env_file else {}
    url = os.environ.get("E3_URL") or file_values.get("E3_URL")
    token = os.environ.get("E3_TOKEN") or file_values.get("E3_TOKEN")
    if not url:
        raise ClientError("E3_URL is not set and no .e3/env was found: run `make up`, or export E3_URL and E3_TOKEN")
    return url.rstrip("/"), token


def controller_address() -> str:
    """host:port[,host:port...] of the gRPC controller(s) agents connect to: E3_CONTROLLER, else what `e3 up`
    wrote, else the settings' (E3_CONTROLLER_ADDRESSES, else E3_CONTROLLER_HOST:E3_CONTROLLER_PORT)."""
    from e3.core.config import get_settings

    env_file = find_env_file()
    written = read_env_file(env_file).get("E3_CONTROLLER") if env_file else None
    settings = get_settings()
    return os.environ.get("E3_CONTROLLER") or written or settings.agent_controllers


def describe_error(response: httpx.Response) -> str:
    """The API's error body as lines: the message, then each field at fault."""
    try:
        body = response.json()
    except ValueError:
        return f"HTTP {response.status_code}: {response.text[:500]}"
    lines = [f"error ({response.status_code} {body.get('code', '')}): {body.get('message', body)}"]
    for err in body.get("errors", []):
        if err.get("message") != body.get("message"):
            lines.append(f"  {err.get('field')}: {err.get('message')}")
    return "\n".join(lines)


class Api:
    def __init__(self, url: str | None = None, token: str | None = None, timeout: float = 30.0):
        if url is None:
            url, token = connection()
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.Client(base_url=url, headers=headers, timeout=timeout)
        self.url = url

    def request(self, method: str, path: str, missing_ok: bool = False, **kwargs) -> httpx.Response:
        """The response; ClientError on a refusal (a 404 too, unless `missing_ok`) or when the API is unreachable."""
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise ClientError(f"cannot reach the E3 API at {self.url}: {exc}") from exc
        if response.status_code >= 400 and not (missing_ok and response.status_code == 404):
            raise ClientError(describe_error(response))
        return response

    def exists(self, path: str) -> bool:
        """Whether GET `path` finds something (200) rather than a 404."""
        return self.request("GET", path, missing_ok=True).status_code != 404

    def get(self, path: str, **params) -> dict:
        return self.request("GET", path, params={k: v for k, v in params.items() if v is not None}).json()

    def post(self, path: str, **kwargs) -> httpx.Response:
        return self.request("POST", path, **kwargs)

    def all_pages(self, path: str, page_size: int = 500, **params) -> list[dict]:
        items, offset = [], 0
        while True:
            page = self.get(path, limit=page_size, offset=offset, **params)
            items.extend(page["items"])
            offset += len(page["items"])
            if not page["items"] or offset >= page["total"]:
                return items
