"""Ingest: sources -> documents in Postgres -> vectors -> keyword index, skipping what is unchanged.

Change detection is two-step: the sha256 of a file's bytes (unchanged bytes are not even
converted), then the content hash of the converted text with the model fingerprint (a touched file
with the same text is neither re-embedded nor re-indexed).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from pipelines.analysis.language import CJK_LANGUAGE
from pipelines.conversion import convert
from pipelines.documents import ConversionFailure, Document
from pipelines.embedding.embedder import Embedder
from pipelines.ingest.progress import NoProgress, Progress
from pipelines.ingest.summary import IngestSummary
from pipelines.keyword.base import KeywordIndex
from pipelines.settings import Settings
from pipelines.sources.local import list_files, read_file, under_any
from pipelines.stores.documents import DocumentStore, StoredState
from pipelines.stores.jobs import JobStore
from pipelines.stores.vectors import PgVectorIndex

log = structlog.get_logger(__name__)

_WRITE_BATCH = 200


@dataclass(frozen=True)
class _Candidate:
    """A source to consider: its URI, a hash of its raw form, and how to turn it into a Document."""

    uri: str
    source_hash: str
    load: Callable[[], Document | ConversionFailure]


def embedding_text(doc: Document, max_chars: int) -> str:
    """Title + leading text: one coarse vector per page fuses best with BM25 (see DESIGN.md)."""
    return f"{doc.title}\n{doc.text}"[:max_chars]


class IngestService:
    def __init__(
        self,
        *,
        documents: DocumentStore,
        vectors: PgVectorIndex,
        keyword: KeywordIndex,
        jobs: JobStore,
        embedder: Callable[[], Embedder],
        settings: Settings,
    ) -> None:
        self._documents = documents
        self._vectors = vectors
        self._keyword = keyword
        self._jobs = jobs
        self._embedder = embedder  # called only when something needs embedding
        self._settings = settings

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
        max_bytes = self._settings.max_file_bytes

        def candidate(path: Path) -> _Candidate | tuple[str, str]:
            try:
                item = read_file(path)
            except OSError as error:
                return (path.as_uri(), f"unreadable: {error.strerror or error}")
            digest = hashlib.sha256(item.data).hexdigest()
            return _Candidate(item.uri, digest, lambda: convert(item, space, max_bytes=max_bytes))

        folders = [p.expanduser().resolve() for p in paths if p.expanduser().is_dir()]

        def is_gone(uri: str, seen: set[str]) -> bool:
            return sync and uri not in seen and under_any(uri, folders)

        return self._run("ingest", space, files, candidate, is_gone, embed=True, progress=progress)

    def ingest_documents(
        self,
        documents: Sequence[Document],
        space: str,
        *,
        embed: bool = True,
        delete_missing: bool = False,
        progress: Progress | None = None,
    ) -> IngestSummary:
        """Converted documents (e.g. a BEIR corpus); their content hash is the change key."""

        def candidate(doc: Document) -> _Candidate:
            return _Candidate(doc.source_uri, doc.content_hash, lambda: doc)

        def is_gone(uri: str, seen: set[str]) -> bool:
            return delete_missing and uri not in seen

        return self._run(
            "ingest-documents", space, documents, candidate, is_gone, embed=embed, progress=progress
        )

    def _run(
        self,
        kind: str,
        space: str,
        sources: Sequence[Any],
        to_candidate: Callable[[Any], _Candidate | tuple[str, str]],
        is_gone: Callable[[str, set[str]], bool],
        *,
        embed: bool,
        progress: Progress | None,
    ) -> IngestSummary:
        progress = progress or NoProgress()
        started = time.perf_counter()
        job_id = self._jobs.create(kind, space)
        summary = IngestSummary(job_id=job_id, space=space)
        bound = log.bind(job_id=job_id, space=space)
        bound.info("ingest.start", sources=len(sources))
        try:
            stored = {space: self._documents.states(space)}
            changed = self._convert_and_store(sources, to_candidate, stored, summary, progress)
            seen = summary_uris(summary)
            gone = [state for uri, state in stored[space].items() if is_gone(uri, seen)]
            self._delete(gone, summary)
            # A page that became mostly CJK loses the vector of its earlier version.
            self._vectors.delete_for([d.id for d in changed if d.language == CJK_LANGUAGE])
            # A Markdown front matter may file a page under another space than the job's.
            spaces = sorted({space, *(doc.space for doc in changed)})
            for touched in spaces:
                if embed:
                    self._embed_missing(touched, progress, summary)
                self._index(touched, [d for d in changed if d.space == touched], progress, summary)
        except Exception:
            self._jobs.finish(job_id, "failed", summary.counts(), summary.failures())
            bound.exception("ingest.failed")
            raise
        summary.seconds = time.perf_counter() - started
        self._jobs.finish(job_id, "done", summary.counts(), summary.failures())
        bound.info("ingest.done", seconds=round(summary.seconds, 2), **summary.counts())
        return summary

    def _convert_and_store(
        self,
        sources: Sequence[Any],
        to_candidate: Callable[[Any], _Candidate | tuple[str, str]],
        stored: dict[str, dict[str, StoredState]],
        summary: IngestSummary,
        progress: Progress,
    ) -> list[Document]:
        """Convert what changed and write it to Postgres; returns the documents to (re)index.

        `stored` holds the stored states by space, starting with the job's; others are loaded
        when a document turns out to belong elsewhere."""
        job_space = next(iter(stored))
        progress.stage("convert", len(sources))
        changed: list[Document] = []
        pending: list[tuple[Document, str | None]] = []
        for source in sources:
            progress.advance()
            candidate = to_candidate(source)
            if isinstance(candidate, tuple):
                summary.failed.append(candidate)
                continue
            previous = stored[job_space].get(candidate.uri)
            if previous is not None and previous.source_hash == candidate.source_hash:
                summary.unchanged.append(candidate.uri)
                continue
            result = candidate.load()
            if isinstance(result, ConversionFailure):
                # The previous version, if any, stays searchable: a broken save loses nothing.
                summary.failed.append((candidate.uri, result.describe()))
                continue
            if result.space != job_space:
                if result.space not in stored:
                    stored[result.space] = self._documents.states(result.space)
                previous = stored[result.space].get(candidate.uri)
            if previous is not None and previous.content_hash == result.content_hash:
                self._documents.set_source_hash(previous.id, candidate.source_hash)
                summary.unchanged.append(candidate.uri)
                continue
            (summary.updated if previous else summary.added).append(candidate.uri)
            pending.append((result, candidate.source_hash))
            changed.append(result)
            if len(pending) >= _WRITE_BATCH:
                self._documents.upsert(pending)
                pending = []
        self._documents.upsert(pending)
        return changed

    def _delete(self, gone: list[StoredState], summary: IngestSummary) -> None:
        if not gone:
            return
        ids = [state.id for state in gone]
        self._keyword.delete(ids)
        self._documents.delete(ids)
        summary.deleted.extend(state.source_uri for state in gone)

    def _embed_missing(self, space: str, progress: Progress, summary: IngestSummary) -> None:
        """Embed every document of the space that lacks a vector for this content and model.
        Mostly-CJK documents are never embedded: they stay on BM25."""
        hashes = {
            state.id: state.content_hash
            for state in self._documents.states(space).values()
            if state.language != CJK_LANGUAGE
        }
        embedder: Embedder | None = None
        fingerprint = self._known_fingerprint()
        if fingerprint is None:
            embedder = self._embedder()
            fingerprint = embedder.fingerprint
        todo = sorted(set(hashes) - self._vectors.current(hashes, fingerprint))
        if not todo:
            return
        progress.stage("embed", len(todo))
        batch_size = max(self._settings.embed_batch_size * 4, 64)
        for start in range(0, len(todo), batch_size):
            docs = list(self._documents.get_many(todo[start : start + batch_size]).values())
            embedder = embedder or self._embedder()
            texts = [embedding_text(doc, self._settings.embed_max_chars) for doc in docs]
            vectors = embedder.embed_documents(texts)
            self._vectors.upsert(
                [(d.id, d.content_hash, v) for d, v in zip(docs, vectors, strict=True)],
                embedder.fingerprint,
                embedder.dimensions,
            )
            summary.embedded += len(docs)
            progress.advance(len(docs))

    def _known_fingerprint(self) -> str | None:
        """The model's fingerprint without loading it (its folder says), to skip a load when
        nothing needs embedding."""
        from pipelines.embedding.embedder import resolve_model_dir
        from pipelines.embedding.model_files import model_fingerprint

        try:
            return model_fingerprint(resolve_model_dir(self._settings))
        except Exception:  # let the real load report the problem
            return None

    def _index(
        self, space: str, changed: list[Document], progress: Progress, summary: IngestSummary
    ) -> None:
        """Index changed documents, plus any the keyword index lost (Postgres is the truth)."""
        changed_ids = {doc.id for doc in changed}
        stored_ids = {state.id for state in self._documents.states(space).values()}
        missing = stored_ids - self._keyword.ids(space) - changed_ids
        to_index = list(changed)
        if missing:
            loaded = self._documents.get_many(sorted(missing))
            to_index.extend(loaded.values())
        if not to_index:
            return
        progress.stage("index", len(to_index))
        for start in range(0, len(to_index), 1000):
            batch = to_index[start : start + 1000]
            self._keyword.upsert(batch)
            progress.advance(len(batch))
        summary.indexed += len(to_index)


def summary_uris(summary: IngestSummary) -> set[str]:
    """URIs this run saw on the source side, whatever happened to them."""
    return {
        *summary.unchanged,
        *summary.updated,
        *summary.added,
        *(uri for uri, _ in summary.failed),
    }
