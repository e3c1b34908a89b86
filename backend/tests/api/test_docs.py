"""The API docs pages work with no network: every script, style and icon they load is served by E3 itself."""

import re

import pytest
from helpers import app_serving_ui

CONTENT_TYPES = {"js": "text/javascript", "css": "text/css", "png": "image/png"}


@pytest.fixture(params=["ui built", "ui not built"])
def docs_client(request, monkeypatch, tmp_path):
    """The app built both ways: with the UI's catch-all static mount at `/`, and with its placeholder page."""
    if request.param == "ui built":
        (tmp_path / "index.html").write_text("<!doctype html><title>the UI</title>")
    with app_serving_ui(monkeypatch, tmp_path) as c:
        yield c


def linked_urls(html: str) -> list[str]:
    return re.findall(r'(?:src|href)="([^"]*)"', html)


@pytest.mark.parametrize(("page", "kinds"), [("/docs", {"js", "css", "png"}), ("/redoc", {"js", "png"})])
def test_docs_page_loads_only_assets_e3_serves(docs_client, page, kinds):
    r = docs_client.get(page)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "E3 control plane" in r.text
    assert "://" not in r.text, "the page names another host (a CDN?)"
    assets = linked_urls(r.text)
    assert {url.rsplit(".", 1)[-1] for url in assets} == kinds
    for url in assets:
        assert url.startswith("/"), url
        asset = docs_client.get(url)
        assert asset.status_code == 200, url
        assert asset.headers["content-type"].startswith(CONTENT_TYPES[url.rsplit(".", 1)[-1]]), url
        if url != "/docs/e3-swagger-ui-init.js":  # E3's own few lines that start Swagger UI
            assert len(asset.content) > 1000, url  # the real file, not an error page


def test_what_the_pages_fetch_as_they_run_is_served_by_e3_too(docs_client):
    html = docs_client.get("/docs").text
    assert '&quot;url&quot;: &quot;/openapi.json&quot;' in html  # the set-up script's data-config
    assert docs_client.get("/openapi.json").json()["info"]["title"] == "E3 control plane"
    assert docs_client.get("/docs/oauth2-redirect").status_code == 200
    # ReDoc's footer logo: read from the page's own path, not Redocly's CDN.
    logo = docs_client.get("/redoc/logo-mini.svg")
    assert logo.status_code == 200 and logo.headers["content-type"].startswith("image/svg+xml")
