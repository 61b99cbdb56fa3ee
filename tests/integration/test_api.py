"""The HTTP API over the real embedded stores, through the ASGI app with its lifespan."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from integration_paths import SAMPLE_WIKI

from api.app import create_app
from pipelines.settings import Settings


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    home = Path(tempfile.mkdtemp(prefix="wikifuse-api-"))
    app = create_app(Settings(home=home))
    with TestClient(app) as test_client:
        test_client.app.state.runtime.ingest.ingest_paths([SAMPLE_WIKI], "api")  # type: ignore[attr-defined]
        yield test_client
    shutil.rmtree(home, ignore_errors=True)


def test_healthz(client: TestClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_search_and_fetch_document(client: TestClient) -> None:
    response = client.post(
        "/search", json={"query": "nwctl rotate-keys --force", "space": "api", "k": 3}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["mode_used"] == "hybrid" and len(body["results"]) == 3
    top = body["results"][0]
    assert top["title"] == "Rotating JWT signing keys"
    assert top["bm25_rank"] == 1 and isinstance(top["rrf_score"], float)
    assert "x-request-id" in response.headers

    document = client.get(f"/documents/{top['id']}")
    assert document.status_code == 200
    assert document.json()["title"] == top["title"]
    assert document.json()["sections"], "Markdown headings become sections"


def test_search_modes_and_filters(client: TestClient) -> None:
    bm25 = client.post("/search", json={"query": "VPN 连不上", "space": "api", "mode": "bm25"})
    hybrid = client.post("/search", json={"query": "VPN 连不上", "space": "api"})
    assert [r["id"] for r in bm25.json()["results"]] == [r["id"] for r in hybrid.json()["results"]]
    assert hybrid.json()["mode_used"] == "bm25"

    restricted = client.post(
        "/search", json={"query": "上海办公室新员工入职", "space": "api", "groups": ["sales"]}
    )
    titles = [r["title"] for r in restricted.json()["results"]]
    assert "上海办公室新员工入职指南" not in titles
    member = client.post(
        "/search",
        json={"query": "上海办公室新员工入职", "space": "api", "groups": ["shanghai-office"]},
    )
    assert member.json()["results"][0]["title"] == "上海办公室新员工入职指南"


def test_bad_requests(client: TestClient) -> None:
    assert client.get("/documents/does-not-exist").status_code == 404
    assert client.post("/search", json={"query": ""}).status_code == 422
    assert client.post("/search", json={"query": "   "}).status_code == 422
    assert client.post("/search", json={"query": "x", "mode": "fuzzy"}).status_code == 422
    assert client.post("/search", json={"query": "x", "k": 0}).status_code == 422


def test_request_id_is_echoed(client: TestClient) -> None:
    response = client.get("/healthz", headers={"x-request-id": "abc123"})
    assert response.headers["x-request-id"] == "abc123"


def test_openapi_lists_the_endpoints(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/search", "/documents/{doc_id}", "/healthz"} <= set(paths)
    assert client.get("/docs").status_code == 200
