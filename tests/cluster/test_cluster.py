"""The cluster end to end: jobs through the API, real Celery workers, OpenSearch + pgvector."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from cluster_support import (
    SAMPLE_WIKI,
    SHARED_EVAL,
    WIKIFUSE,
    Api,
    TcpProxy,
    Worker,
    free_port,
    wait_for,
    wait_for_job,
)

from pipelines.runtime import EmbeddedRuntime
from pipelines.search.filters import SearchFilters
from pipelines.search.service import SearchRequest
from pipelines.settings import Settings

DEMO_QUERIES = [
    case["query"] for case in json.loads((SAMPLE_WIKI.parent / "demo_queries.json").read_text())
]
EXTRA_QUERIES = [
    "promote the replica after the primary fails",
    "rate limit for the public API",
    "how do feature flags get rolled out",
    "backup retention",
]


@pytest.fixture(scope="module")
def wiki_job(api: Api, worker: Worker) -> dict[str, Any]:
    created = api.client.post("/jobs", json={"sources": [str(SAMPLE_WIKI)], "space": "wiki"})
    assert created.status_code == 202, created.text
    return wait_for_job(api, created.json()["id"])


@pytest.fixture(scope="module")
def embedded_top10() -> Iterator[Callable[[str], list[str]]]:
    """The embedded mode on the same corpus, for comparison."""
    home = Path(tempfile.mkdtemp(prefix="wikifuse-parity-"))
    with EmbeddedRuntime(Settings(home=home)) as runtime:
        runtime.ingest.ingest_paths([SAMPLE_WIKI], "wiki")

        def top10(query: str) -> list[str]:
            response = runtime.search.search(
                SearchRequest(query, k=10, filters=SearchFilters(space="wiki"))
            )
            return [result.source_uri for result in response.results]

        yield top10
    shutil.rmtree(home, ignore_errors=True)


def test_job_ingests_the_sample_wiki(wiki_job: dict[str, Any]) -> None:
    counts = wiki_job["counts"]
    assert wiki_job["state"] == "done", wiki_job
    files = [p for p in SAMPLE_WIKI.rglob("*") if p.is_file()]
    assert counts["total"] == len(files) and counts["queued"] == 0
    assert counts["added"] == len(files) and counts["failed"] == 0
    assert counts["indexed"] == len(files)
    assert 0 < counts["embedded"] < len(files)  # the Chinese pages stay on BM25


def test_resubmitting_an_unchanged_folder_does_no_work(api: Api, wiki_job: dict[str, Any]) -> None:
    created = api.client.post("/jobs", json={"sources": [str(SAMPLE_WIKI)], "space": "wiki"})
    again = wait_for_job(api, created.json()["id"])
    counts = again["counts"]
    assert again["state"] == "done"
    assert counts["unchanged"] == counts["total"] and counts["embedded"] == counts["indexed"] == 0


@pytest.mark.parametrize("query", DEMO_QUERIES + EXTRA_QUERIES)
def test_cluster_ranks_like_the_embedded_mode(
    api: Api, wiki_job: dict[str, Any], embedded_top10: Callable[[str], list[str]], query: str
) -> None:
    body = api.client.post("/search", json={"query": query, "space": "wiki", "k": 10}).json()
    cluster = [result["source"] for result in body["results"]]
    embedded = embedded_top10(query)
    assert cluster[:1] == embedded[:1], (cluster, embedded)
    # At least 8 of 10 shared (all of them when a query has fewer than 10 matches).
    assert len(set(cluster) & set(embedded)) >= min(8, len(embedded)), (cluster, embedded)


def test_bad_job_requests(api: Api) -> None:
    assert api.client.post("/jobs", json={"sources": [], "space": "x"}).status_code == 422
    assert api.client.get("/jobs/nope").status_code == 404
    missing = api.client.post("/jobs", json={"sources": ["/no/such/folder"], "space": "x"})
    body = wait_for_job(api, missing.json()["id"], timeout=60)
    assert body["state"] == "done" and body["counts"]["failed"] == 1
    assert "no such file or folder" in body["failures"][0]["reason"]


def test_readyz_and_metrics(api: Api, wiki_job: dict[str, Any]) -> None:
    ready = api.client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"] == {"postgres": True, "opensearch": True, "redis": True}
    api.client.post("/search", json={"query": "deploy", "space": "wiki", "mode": "bm25"})
    text = api.client.get("/metrics").text
    assert 'wikifuse_search_seconds_count{mode="bm25"}' in text
    assert 'wikifuse_tasks_processed{kind="embed",state="done"}' in text
    assert 'wikifuse_queue_depth{queue="embed"}' in text


def test_killed_worker_loses_nothing(
    api: Api,
    worker: Worker,
    start_worker: Callable[..., Worker],
    cluster_env: dict[str, str],
    tmp_path: Path,
) -> None:
    """SIGKILL the only embed worker while it holds a task: the task comes back and the job
    completes with every document indexed exactly once."""
    worker.stop()  # the shared worker would take the embed tasks otherwise
    pages = tmp_path / "pages"
    pages.mkdir()
    # Long pages make each embed task take a few seconds, long enough to be caught mid-task.
    for number in range(48):
        words = " ".join(f"topic{number} detail{i} walrus{number % 7}" for i in range(120))
        (pages / f"page-{number:02}.md").write_text(f"# Page {number}\n\n{words}\n")
    doomed = start_worker("convert,embed,index")
    created = api.client.post("/jobs", json={"sources": [str(pages)], "space": "kill"})
    job_id = created.json()["id"]

    def embed_in_progress() -> bool:
        with psycopg.connect(cluster_env["WIKIFUSE_DATABASE_URL"]) as conn:
            row = conn.execute(
                "SELECT count(*) FROM job_tasks WHERE job_id = %s AND kind = 'embed'"
                " AND state = 'queued' AND attempts >= 1",
                (job_id,),
            ).fetchone()
        return bool(row and row[0])

    wait_for(embed_in_progress, 120, "an embed task to start")
    doomed.kill()
    start_worker("convert,embed,index")
    body = wait_for_job(api, job_id, timeout=300)
    assert body["state"] == "done", body
    assert body["counts"]["added"] == 48 and body["counts"]["indexed"] == 48
    assert body["counts"]["embedded"] == 48

    with psycopg.connect(cluster_env["WIKIFUSE_DATABASE_URL"]) as conn:
        retried = conn.execute(
            "SELECT max(attempts) FROM job_tasks WHERE job_id = %s", (job_id,)
        ).fetchone()
        vectors = conn.execute(
            "SELECT count(*) FROM embeddings e JOIN documents d ON d.id = e.document_id"
            " WHERE d.space = 'kill'"
        ).fetchone()
    assert retried is not None and retried[0] >= 2
    assert vectors == (48,)
    search = httpx.post(
        f"{cluster_env['WIKIFUSE_OPENSEARCH_URL']}/{cluster_env['WIKIFUSE_OPENSEARCH_INDEX']}/_search",
        json={"size": 100, "query": {"term": {"space": "kill"}}, "_source": False},
        timeout=30,
    ).json()
    ids = [hit["_id"] for hit in search["hits"]["hits"]]
    assert len(ids) == 48 and len(set(ids)) == 48


def test_search_without_opensearch_answers_from_vectors(
    start_api: Callable[[dict[str, str]], Api],
    cluster_env: dict[str, str],
    wiki_job: dict[str, Any],
) -> None:
    broken = start_api(
        {
            **cluster_env,
            "WIKIFUSE_OPENSEARCH_URL": f"http://127.0.0.1:{free_port()}",
            "WIKIFUSE_OPENSEARCH_TIMEOUT_S": "2",
        }
    )
    body = broken.client.post(
        "/search", json={"query": "promote the replica", "space": "wiki"}
    ).json()
    assert body["mode_used"] == "vector" and body["results"]
    assert any("OpenSearch is unreachable" in note for note in body["notes"])
    assert (
        broken.client.post(
            "/search", json={"query": "promote", "space": "wiki", "mode": "bm25"}
        ).status_code
        == 503
    )
    ready = broken.client.get("/readyz")
    assert ready.status_code == 503 and ready.json()["checks"]["opensearch"] is False


def test_reconcile_repairs_the_keyword_index(
    cluster_env: dict[str, str], wiki_job: dict[str, Any]
) -> None:
    index = f"{cluster_env['WIKIFUSE_OPENSEARCH_URL']}/{cluster_env['WIKIFUSE_OPENSEARCH_INDEX']}"
    with psycopg.connect(cluster_env["WIKIFUSE_DATABASE_URL"]) as conn:
        ids = [
            row[0]
            for row in conn.execute(
                "SELECT id FROM documents WHERE space = 'wiki' ORDER BY id LIMIT 2"
            )
        ]
    httpx.delete(f"{index}/_doc/{ids[0]}?refresh=true", timeout=30).raise_for_status()
    httpx.post(
        f"{index}/_update/{ids[1]}?refresh=true",
        json={"doc": {"content_hash": "stale"}},
        timeout=30,
    ).raise_for_status()

    def reconcile() -> str:
        return subprocess.run(
            [*WIKIFUSE, "reconcile", "--space", "wiki"],
            env=cluster_env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout

    assert "1 missing, 1 stale, 0 extra" in reconcile()
    assert "0 missing, 0 stale, 0 extra" in reconcile()


def test_cli_ingest_cluster_follows_the_job(
    cluster_env: dict[str, str], worker: Worker, tmp_path: Path
) -> None:
    (tmp_path / "note.md").write_text("# Capybara\n\nCapybaras are large rodents.\n")
    done = subprocess.run(
        [*WIKIFUSE, "ingest", str(tmp_path), "--space", "cli-cluster", "--json"],
        env=cluster_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert body["state"] == "done" and body["counts"]["added"] == 1
    found = subprocess.run(
        [*WIKIFUSE, "search", "capybara", "--space", "cli-cluster", "--json"],
        env=cluster_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(found.stdout)["results"][0]["title"] == "Capybara"


@pytest.mark.skipif(not (SHARED_EVAL / "scifact").exists(), reason="no shared eval data")
def test_scifact_bm25_matches_the_embedded_mode(cluster_env: dict[str, str]) -> None:
    folder = str(SHARED_EVAL / "scifact")
    home = tempfile.mkdtemp(prefix="wikifuse-eval-")
    embedded_env = {**cluster_env, "WIKIFUSE_MODE": "embedded", "WIKIFUSE_HOME": home}
    try:
        results = [
            json.loads(
                subprocess.run(
                    [*WIKIFUSE, "eval", folder, "--mode", "bm25", "--json"],
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=600,
                    check=True,
                ).stdout
            )
            for env in (embedded_env, cluster_env)
        ]
    finally:
        shutil.rmtree(home, ignore_errors=True)
    embedded, cluster = results
    assert abs(cluster["ndcg@10"] - embedded["ndcg@10"]) <= 0.01, (embedded, cluster)


def test_postgres_unreachable_gives_503(
    start_api: Callable[[dict[str, str]], Api],
    cluster_env: dict[str, str],
    wiki_job: dict[str, Any],
) -> None:
    from urllib.parse import urlsplit

    database = urlsplit(cluster_env["WIKIFUSE_DATABASE_URL"])
    proxy = TcpProxy(database.hostname or "127.0.0.1", database.port or 5432)
    proxied = cluster_env["WIKIFUSE_DATABASE_URL"].replace(
        f"{database.hostname}:{database.port}", f"127.0.0.1:{proxy.port}"
    )
    api = start_api({**cluster_env, "WIKIFUSE_DATABASE_URL": proxied})
    assert api.client.post("/search", json={"query": "deploy", "space": "wiki"}).status_code == 200
    proxy.cut()
    down = api.client.post("/search", json={"query": "deploy", "space": "wiki"})
    assert down.status_code == 503
    assert "cannot reach Postgres" in down.json()["detail"]
    ready = api.client.get("/readyz")
    assert ready.status_code == 503 and ready.json()["checks"]["postgres"] is False


def test_reindex_swaps_the_alias_while_search_keeps_answering(
    api: Api, cluster_env: dict[str, str], wiki_job: dict[str, Any]
) -> None:
    import threading

    base = cluster_env["WIKIFUSE_OPENSEARCH_URL"]
    alias = cluster_env["WIKIFUSE_OPENSEARCH_INDEX"]
    before = set(httpx.get(f"{base}/_alias/{alias}", timeout=30).json())
    expected = api.client.post("/search", json={"query": "NWL-4031", "space": "wiki"}).json()
    failures: list[str] = []
    searched = 0
    stop = threading.Event()

    def keep_searching() -> None:
        nonlocal searched
        while not stop.is_set():
            response = api.client.post(
                "/search", json={"query": "NWL-4031", "space": "wiki", "mode": "bm25"}
            )
            searched += 1
            if response.status_code != 200 or not response.json()["results"]:
                failures.append(f"{response.status_code} {response.text[:200]}")

    searcher = threading.Thread(target=keep_searching)
    searcher.start()
    try:
        done = subprocess.run(
            [*WIKIFUSE, "reindex"], env=cluster_env, capture_output=True, text=True, timeout=300
        )
    finally:
        stop.set()
        searcher.join()
    assert done.returncode == 0, done.stderr
    after = set(httpx.get(f"{base}/_alias/{alias}", timeout=30).json())
    assert after and after.isdisjoint(before)
    assert httpx.head(f"{base}/{next(iter(before))}", timeout=30).status_code == 404
    assert searched > 0 and failures == []
    again = api.client.post("/search", json={"query": "NWL-4031", "space": "wiki"}).json()
    assert [r["id"] for r in again["results"]] == [r["id"] for r in expected["results"]]


def test_worker_logs_are_json_with_the_job_id(worker: Worker, wiki_job: dict[str, Any]) -> None:
    lines = [line for line in worker.log_path.read_text().splitlines() if line.startswith("{")]
    events = [json.loads(line) for line in lines]
    done = [e for e in events if e.get("event") == "task.done"]
    assert done and all(e.get("job_id") for e in done)
