"""The `wikifuse` command as a user runs it: a subprocess on its own WIKIFUSE_HOME."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from integration_paths import SHARED_EVAL

WIKIFUSE = [sys.executable, "-m", "cli.main"]


@pytest.fixture(scope="module")
def cli_env() -> Iterator[dict[str, str]]:
    home = Path(tempfile.mkdtemp(prefix="wikifuse-cli-"))
    yield {**os.environ, "WIKIFUSE_HOME": str(home), "COLUMNS": "200"}
    shutil.rmtree(home, ignore_errors=True)


def run(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*WIKIFUSE, *args], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    if check and done.returncode != 0:
        raise AssertionError(f"exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("notes")
    (folder / "failover.md").write_text(
        "---\ntitle: Failover drill\ntags: [database]\n---\n# Failover drill\n\n"
        "Run pg_ctl promote on the standby once the primary is confirmed dead.\n"
    )
    (folder / "lunch.txt").write_text("Lunch menu\n\nTacos on Tuesday, noodles on Thursday.\n")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 nothing here")
    return folder


def test_ingest_then_search(cli_env: dict[str, str], notes: Path) -> None:
    first = run(cli_env, "ingest", str(notes), "--space", "cli", "--json")
    summary = json.loads(first.stdout)
    assert summary["counts"]["added"] == 2 and summary["counts"]["failed"] == 1
    assert summary["failed"][0][1].startswith("corrupt")

    again = json.loads(run(cli_env, "ingest", str(notes), "--space", "cli", "--json").stdout)
    assert again["counts"]["unchanged"] == 2 and again["counts"]["embedded"] == 0

    found = json.loads(run(cli_env, "search", "promote standby", "--space", "cli", "--json").stdout)
    assert found["mode_used"] == "hybrid"
    top = found["results"][0]
    assert top["title"] == "Failover drill"
    assert {"bm25_rank", "bm25_score", "vector_rank", "vector_score", "rrf_score", "pinned"} <= set(
        top
    )

    text = run(cli_env, "search", "tacos", "--space", "cli", "--explain", "-k", "1").stdout
    assert "Lunch menu" in text and "bm25 #1" in text and "rrf" in text


def test_human_summary_lists_failures(cli_env: dict[str, str], notes: Path) -> None:
    out = run(cli_env, "ingest", str(notes), "--space", "cli-human").stdout
    assert "2 added" in out and "1 failed" in out and "broken.pdf" in out


def test_clear_errors(cli_env: dict[str, str], tmp_path: Path) -> None:
    missing = run(cli_env, "ingest", str(tmp_path / "nope"), check=False)
    assert missing.returncode == 2
    assert "no such file or folder" in missing.stderr and "Traceback" not in missing.stderr

    bad_mode = run(cli_env, "search", "x", "--mode", "fuzzy", check=False)
    assert bad_mode.returncode == 2 and "Traceback" not in bad_mode.stderr

    not_beir = run(cli_env, "eval", str(tmp_path), check=False)
    assert not_beir.returncode == 2 and "missing corpus.jsonl" in not_beir.stderr


def test_eval_json_on_a_small_beir_folder(cli_env: dict[str, str], tmp_path: Path) -> None:
    dataset = tmp_path / "mini"
    (dataset / "qrels").mkdir(parents=True)
    corpus = [
        {"_id": "d1", "title": "Walrus", "text": "Walruses live on Arctic sea ice."},
        {"_id": "d2", "title": "Penguin", "text": "Penguins live in the southern hemisphere."},
        {"_id": "d3", "title": "Camel", "text": "Camels store fat in their humps."},
    ]
    queries = [
        {"_id": "q1", "text": "arctic walrus", "metadata": {"type": "lexical"}},
        {
            "_id": "q2",
            "text": "which animal keeps fat on its back",
            "metadata": {"type": "paraphrase"},
        },
    ]
    (dataset / "corpus.jsonl").write_text("\n".join(json.dumps(row) for row in corpus))
    (dataset / "queries.jsonl").write_text("\n".join(json.dumps(row) for row in queries))
    (dataset / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\n"
    )

    report = json.loads(run(cli_env, "eval", str(dataset), "--mode", "hybrid", "--json").stdout)
    keys = {
        "ndcg@10",
        "recall@5",
        "recall@10",
        "recall@100",
        "mrr@10",
        "latency_p50_ms",
        "latency_p95_ms",
        "queries",
        "mode",
    }
    assert keys <= set(report)
    assert report["queries"] == 2 and report["mode"] == "hybrid"
    assert report["recall@10"] == 1.0 and report["mrr@10"] >= 0.75
    assert set(report["by_type"]) == {"lexical", "paraphrase"}
    assert report["embedded"] == 3
    # "arctic walrus" matches one page only: a lone BM25 hit pins, and it is the right page.
    assert report["by_type"]["lexical"]["pin_rate"] == 1.0
    assert report["by_type"]["lexical"]["pin_top1_right"] == 1.0

    rerun = json.loads(run(cli_env, "eval", str(dataset), "--mode", "vector", "--json").stdout)
    assert rerun["embedded"] == 0 and rerun["mode"] == "vector"

    modes = "bm25,vector,rrf,hybrid,rerank"
    table = json.loads(run(cli_env, "eval", str(dataset), "--compare", modes, "--json").stdout)
    assert list(table) == modes.split(",")
    assert all(set(entry["by_type"]) == {"lexical", "paraphrase"} for entry in table.values())
    # Re-ranking only reorders BM25's candidates: it can never find what BM25 missed.
    assert table["rerank"]["recall@100"] == table["bm25"]["recall@100"]
    printed = run(cli_env, "eval", str(dataset), "--compare", modes).stdout
    assert "all queries" in printed and "paraphrase (1)" in printed and "rrf" in printed

    wrong = run(cli_env, "eval", str(dataset), "--compare", "bm25,fuzzy", check=False)
    assert wrong.returncode == 2 and "unknown mode fuzzy" in wrong.stderr


@pytest.mark.skipif(not (SHARED_EVAL / "dureader_robust_zh").exists(), reason="no shared eval data")
def test_dureader_bm25_and_hybrid(cli_env: dict[str, str]) -> None:
    folder = str(SHARED_EVAL / "dureader_robust_zh")
    bm25 = json.loads(run(cli_env, "eval", folder, "--mode", "bm25", "--json").stdout)
    hybrid = json.loads(run(cli_env, "eval", folder, "--mode", "hybrid", "--json").stdout)
    assert bm25["ndcg@10"] >= 0.75
    assert hybrid["ndcg@10"] == bm25["ndcg@10"]
    # Only the few passages that are mostly Latin text (numbers, English names) get a vector.
    assert hybrid["embedded"] < 20


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_answers_while_the_cli_ingests(cli_env: dict[str, str], tmp_path: Path) -> None:
    """`wikifuse serve` and `wikifuse ingest` share one WIKIFUSE_HOME: the server sees new pages."""
    import time

    import httpx

    port = _free_port()
    server = subprocess.Popen(
        [*WIKIFUSE, "serve", "--port", str(port)],
        env=cli_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None, server.stdout.read() if server.stdout else ""
            assert time.monotonic() < deadline, "server did not come up in 60 s"
            time.sleep(0.3)

        (tmp_path / "aardvark.md").write_text("# Aardvark habitats\n\nAardvarks dig burrows.\n")
        run(cli_env, "ingest", str(tmp_path), "--space", "served")
        deadline = time.monotonic() + 10
        while True:
            body = httpx.post(
                f"{base}/search", json={"query": "aardvark burrows", "space": "served"}, timeout=30
            ).json()
            if body["results"] or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        assert [r["title"] for r in body["results"]] == ["Aardvark habitats"]
    finally:
        server.terminate()
        server.wait(timeout=30)
