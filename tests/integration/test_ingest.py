"""Ingest on the real embedded stores: change detection, updates, deletions, failures."""

from __future__ import annotations

import os
from pathlib import Path

from pipelines.runtime import EmbeddedRuntime
from pipelines.search.filters import SearchFilters
from pipelines.search.service import SearchRequest


def _top_titles(runtime: EmbeddedRuntime, query: str, space: str, mode: str = "bm25") -> list[str]:
    response = runtime.search.search(
        SearchRequest(query, mode=mode, k=5, filters=SearchFilters(space=space))  # type: ignore[arg-type]
    )
    return [result.title for result in response.results]


def _embedding_count(runtime: EmbeddedRuntime, space: str) -> int:
    with runtime.database.connection() as conn:
        row = conn.execute(
            "SELECT count(*) FROM embeddings e JOIN documents d ON d.id = e.document_id"
            " WHERE d.space = %s",
            (space,),
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_reingest_of_unchanged_folder_embeds_nothing(
    runtime: EmbeddedRuntime, wiki_copy: Path
) -> None:
    first = runtime.ingest.ingest_paths([wiki_copy], "reingest")
    files = [p for p in wiki_copy.rglob("*") if p.is_file()]
    assert len(first.added) + len(first.failed) == len(files)
    assert first.embedded > 0 and first.indexed == len(first.added)

    # Touching files changes nothing that matters.
    for path in files[:5]:
        os.utime(path, None)
    second = runtime.ingest.ingest_paths([wiki_copy], "reingest")
    assert second.added == [] and second.updated == []
    assert len(second.unchanged) == len(first.added)
    assert second.embedded == 0 and second.indexed == 0


def test_changed_file_is_reconverted_reembedded_and_reindexed(
    runtime: EmbeddedRuntime, wiki_copy: Path
) -> None:
    runtime.ingest.ingest_paths([wiki_copy], "changes")
    page = wiki_copy / "runbooks" / "postgres-failover.md"
    page.write_text(page.read_text() + "\n\nThe quokka protocol zqxjv applies after failover.\n")
    summary = runtime.ingest.ingest_paths([wiki_copy], "changes")
    assert [Path(uri).name for uri in summary.updated] == ["postgres-failover.md"]
    assert summary.embedded == 1 and summary.indexed == 1
    assert _top_titles(runtime, "zqxjv quokka", "changes")[:1] == ["Postgres failover runbook"]


def test_sync_removes_deleted_files_from_every_index(
    runtime: EmbeddedRuntime, wiki_copy: Path
) -> None:
    runtime.ingest.ingest_paths([wiki_copy], "sync")
    before = _embedding_count(runtime, "sync")
    victim = wiki_copy / "runbooks" / "postgres-failover.md"
    victim.unlink()

    without_sync = runtime.ingest.ingest_paths([wiki_copy], "sync")
    assert without_sync.deleted == []
    assert "Postgres failover runbook" in _top_titles(runtime, "pg_ctl promote failover", "sync")

    with_sync = runtime.ingest.ingest_paths([wiki_copy], "sync", sync=True)
    assert [Path(uri).name for uri in with_sync.deleted] == ["postgres-failover.md"]
    for mode in ("bm25", "vector", "hybrid"):
        assert "Postgres failover runbook" not in _top_titles(
            runtime, "pg_ctl promote failover", "sync", mode
        )
    assert _embedding_count(runtime, "sync") == before - 1


def test_bad_files_are_reported_and_do_not_stop_the_job(
    runtime: EmbeddedRuntime, tmp_path: Path
) -> None:
    (tmp_path / "good.md").write_text("# Good page\n\nThe walrus gateway handles ingress.\n")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.7\nthis is not really a pdf")
    (tmp_path / "slides.pptx").write_bytes(b"PK\x03\x04")
    (tmp_path / "empty.txt").write_text("")
    summary = runtime.ingest.ingest_paths([tmp_path], "bad-files")
    reasons = {Path(uri).name: reason for uri, reason in summary.failed}
    assert set(reasons) == {"broken.pdf", "slides.pptx", "empty.txt"}
    assert reasons["broken.pdf"].startswith("corrupt")
    assert reasons["slides.pptx"].startswith("unsupported type")
    assert reasons["empty.txt"].startswith("empty")
    assert [Path(uri).name for uri in summary.added] == ["good.md"]
    job = runtime.jobs_store.get(summary.job_id)
    assert job is not None and job.state == "done"
    assert job.counts["failed"] == 3 and len(job.failures) == 3


def test_cjk_documents_are_not_embedded(runtime: EmbeddedRuntime, tmp_path: Path) -> None:
    (tmp_path / "zh.md").write_text(
        "# 数据库切换\n\n主库故障时，值班工程师需要确认从库的复制延迟，然后提升从库。\n"
    )
    (tmp_path / "en.md").write_text(
        "# Database switchover\n\nPromote the replica when the primary fails.\n"
    )
    summary = runtime.ingest.ingest_paths([tmp_path], "cjk-embed")
    assert len(summary.added) == 2 and summary.embedded == 1
    assert _embedding_count(runtime, "cjk-embed") == 1
    assert _top_titles(runtime, "数据库切换", "cjk-embed") == ["数据库切换"]

    (tmp_path / "en.md").write_text(
        "# 数据库切换（英文版已翻译）\n\n主库故障时提升从库，并通知值班工程师。\n"
    )
    changed = runtime.ingest.ingest_paths([tmp_path], "cjk-embed")
    assert len(changed.updated) == 1 and changed.embedded == 0
    assert _embedding_count(runtime, "cjk-embed") == 0


def test_front_matter_space_files_the_page_elsewhere(
    runtime: EmbeddedRuntime, tmp_path: Path
) -> None:
    (tmp_path / "moved.md").write_text(
        "---\ntitle: Moved page\nspace: elsewhere\n---\nThe narwhal registry lives here.\n"
    )
    first = runtime.ingest.ingest_paths([tmp_path], "job-space")
    assert len(first.added) == 1 and first.embedded == 1
    assert _top_titles(runtime, "narwhal registry", "elsewhere", "vector") == ["Moved page"]
    assert _top_titles(runtime, "narwhal registry", "job-space") == []
    again = runtime.ingest.ingest_paths([tmp_path], "job-space")
    assert len(again.unchanged) == 1 and again.embedded == 0 and again.indexed == 0
