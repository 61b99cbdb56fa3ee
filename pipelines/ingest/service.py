"""Ingest in-process (the embedded default): the stages run one after the other in this process."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import structlog

from pipelines.documents import Document
from pipelines.ingest.progress import NoProgress, Progress
from pipelines.ingest.stages import Candidate, IngestStages, document_candidate, file_candidate
from pipelines.ingest.summary import IngestSummary
from pipelines.sources.local import list_files, under_any
from pipelines.stores.jobs import JobStore

log = structlog.get_logger(__name__)


class IngestService:
    def __init__(self, *, stages: IngestStages, jobs: JobStore, max_file_bytes: int) -> None:
        self._stages = stages
        self._jobs = jobs
        self._max_file_bytes = max_file_bytes

    def ingest_paths(
        self,
        paths: Sequence[Path],
        space: str,
        *,
        sync: bool = False,
        progress: Progress | None = None,
    ) -> IngestSummary:
        """Files and folders (recursive). With `sync`, stored files under the given folders that
        are gone from disk are deleted from every index."""
        files = list_files(list(paths))
        folders = [p.expanduser().resolve() for p in paths if p.expanduser().is_dir()]
        candidates = (file_candidate(path, space, self._max_file_bytes) for path in files)

        def is_gone(uri: str, seen: set[str]) -> bool:
            return sync and uri not in seen and under_any(uri, folders)

        return self._run("ingest", space, len(files), candidates, is_gone, True, progress)

    def ingest_documents(
        self,
        documents: Sequence[Document],
        space: str,
        *,
        embed: bool = True,
        delete_missing: bool = False,
        progress: Progress | None = None,
    ) -> IngestSummary:
        """Already-converted documents (e.g. a BEIR corpus)."""

        def is_gone(uri: str, seen: set[str]) -> bool:
            return delete_missing and uri not in seen

        candidates = (document_candidate(doc) for doc in documents)
        kind = "ingest-documents"
        return self._run(kind, space, len(documents), candidates, is_gone, embed, progress)

    def _run(
        self,
        kind: str,
        space: str,
        total: int,
        candidates: Iterable[Candidate | tuple[str, str]],
        is_gone: Callable[[str, set[str]], bool],
        embed: bool,
        progress: Progress | None,
    ) -> IngestSummary:
        progress = progress or NoProgress()
        started = time.perf_counter()
        job_id = self._jobs.create(kind, space)
        summary = IngestSummary(job_id=job_id, space=space)
        bound = log.bind(job_id=job_id, space=space)
        bound.info("ingest.start", sources=total)
        stages = self._stages
        try:
            progress.stage("convert", total)
            stored = {space: stages.documents.states(space)}
            converted = stages.convert(candidates, space, stored, progress.advance)
            summary.added, summary.updated = converted.added, converted.updated
            summary.unchanged, summary.failed = converted.unchanged, converted.failed
            seen = converted.seen()
            summary.deleted = stages.delete(
                [state for uri, state in stored[space].items() if is_gone(uri, seen)]
            )
            for touched in sorted({space, *(doc.space for doc in converted.changed)}):
                if embed:
                    self._embed(touched, progress, summary)
                changed = [doc for doc in converted.changed if doc.space == touched]
                self._index(touched, changed, progress, summary)
            stages.keyword.refresh()
        except Exception:
            self._jobs.finish(job_id, "failed", summary.counts(), summary.failures())
            bound.exception("ingest.failed")
            raise
        summary.seconds = time.perf_counter() - started
        self._jobs.finish(job_id, "done", summary.counts(), summary.failures())
        bound.info("ingest.done", seconds=round(summary.seconds, 2), **summary.counts())
        return summary

    def _embed(self, space: str, progress: Progress, summary: IngestSummary) -> None:
        """Embed every document of the space that lacks a current vector (not only the changed
        ones: an earlier BM25-only run, or a model change, leaves some behind)."""
        todo = self._stages.missing_vectors(space)
        if not todo:
            return
        progress.stage("embed", len(todo))
        batch = 128
        for start in range(0, len(todo), batch):
            ids = todo[start : start + batch]
            summary.embedded += self._stages.embed(ids)
            progress.advance(len(ids))

    def _index(
        self, space: str, changed: list[Document], progress: Progress, summary: IngestSummary
    ) -> None:
        """Index changed documents, plus any the keyword index lost (Postgres is the truth)."""
        changed_ids = {doc.id for doc in changed}
        lost = [i for i in self._stages.missing_from_keyword_index(space) if i not in changed_ids]
        lost_docs = self._stages.documents.get_many(lost)
        to_index = [*changed, *lost_docs.values()]
        if to_index:
            progress.stage("index", len(to_index))
            summary.indexed += self._stages.index(to_index, progress.advance)
