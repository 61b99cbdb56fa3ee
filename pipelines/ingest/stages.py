"""The ingest stages, shared by the in-process runner (embedded) and the Celery tasks (cluster).

Each stage is idempotent: it upserts by document id and skips work whose content hash (and model
fingerprint, for vectors) is already stored, so running a stage twice (a retried task, a worker
killed mid-task) changes nothing the second time.

Change detection is two-step: the sha256 of a source's bytes (unchanged bytes are not even
converted), then the content hash of the converted text (a touched file with the same text is
neither re-embedded nor re-indexed).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from pipelines.analysis.language import CJK_LANGUAGE
from pipelines.conversion import convert
from pipelines.documents import ConversionFailure, Document
from pipelines.embedding.embedder import Embedder, resolve_model_dir
from pipelines.embedding.model_files import ModelAssemblyError, model_fingerprint
from pipelines.embedding.passages import embedding_texts
from pipelines.keyword.base import KeywordIndex
from pipelines.settings import Settings
from pipelines.sources.local import read_file
from pipelines.sources.remote import fetch_url
from pipelines.stores.documents import DocumentStore, StoredState
from pipelines.stores.vectors import PgVectorIndex

_WRITE_BATCH = 200
_INDEX_BATCH = 1000


@dataclass(frozen=True)
class Candidate:
    """A source to consider: its URI, a hash of its raw form, and how to turn it into a Document."""

    uri: str
    source_hash: str
    load: Callable[[], Document | ConversionFailure]


def file_candidate(path: Path, space: str, max_bytes: int) -> Candidate | tuple[str, str]:
    """A file as a candidate, or (URI, reason) when it cannot even be read."""
    try:
        item = read_file(path)
    except OSError as error:
        return (path.as_uri(), f"unreadable: {error.strerror or error}")
    digest = hashlib.sha256(item.data).hexdigest()
    return Candidate(item.uri, digest, lambda: convert(item, space, max_bytes=max_bytes))


def url_candidate(url: str, space: str, max_bytes: int) -> Candidate | tuple[str, str]:
    """A fetched URL as a candidate, or (URL, reason) when it cannot be fetched."""
    try:
        item = fetch_url(url, max_bytes=max_bytes)
    except (httpx.HTTPError, ValueError) as error:
        return (url, f"unreadable: {error}")
    digest = hashlib.sha256(item.data).hexdigest()
    return Candidate(item.uri, digest, lambda: convert(item, space, max_bytes=max_bytes))


def document_candidate(doc: Document) -> Candidate:
    """An already-converted document (a BEIR corpus row): its content hash is the change key."""
    return Candidate(doc.source_uri, doc.content_hash, lambda: doc)


@dataclass
class ConvertResult:
    changed: list[Document] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (source URI, reason)

    def seen(self) -> set[str]:
        """URIs found on the source side, whatever happened to them."""
        return {*self.added, *self.updated, *self.unchanged, *(uri for uri, _ in self.failed)}


class IngestStages:
    def __init__(
        self,
        *,
        documents: DocumentStore,
        vectors: PgVectorIndex,
        keyword: KeywordIndex,
        embedder: Callable[[], Embedder],
        settings: Settings,
    ) -> None:
        self.documents = documents
        self.vectors = vectors
        self.keyword = keyword
        self._embedder = embedder  # called only when something needs embedding
        self._settings = settings
        self._fingerprint: str | None = None

    def convert(
        self,
        candidates: Iterable[Candidate | tuple[str, str]],
        space: str,
        stored: dict[str, dict[str, StoredState]] | None = None,
        advance: Callable[[], None] = lambda: None,
        job_id: str | None = None,
    ) -> ConvertResult:
        """Convert what changed and write it to Postgres (the source of truth).

        `stored` caches stored states by space; a Markdown front matter may file a page under
        another space than the job's, whose states are then loaded on demand. A document this
        same job already wrote (a retried task) counts as changed, as it did the first time."""
        stored = stored if stored is not None else {}
        if space not in stored:
            stored[space] = self.documents.states(space)
        result = ConvertResult()
        pending: list[tuple[Document, str | None]] = []
        for candidate in candidates:
            advance()
            if isinstance(candidate, tuple):
                result.failed.append(candidate)
                continue
            previous = stored[space].get(candidate.uri)
            if previous is not None and job_id and previous.updated_job_id == job_id:
                self._count_again(previous, job_id, result)
                continue
            if previous is not None and previous.source_hash == candidate.source_hash:
                result.unchanged.append(candidate.uri)
                continue
            doc = candidate.load()
            if isinstance(doc, ConversionFailure):
                # The previous version, if any, stays searchable: a broken save loses nothing.
                result.failed.append((candidate.uri, doc.describe()))
                continue
            if doc.space != space:
                if doc.space not in stored:
                    stored[doc.space] = self.documents.states(doc.space)
                previous = stored[doc.space].get(candidate.uri)
            if previous is not None and previous.content_hash == doc.content_hash:
                self.documents.set_source_hash(previous.id, candidate.source_hash)
                result.unchanged.append(candidate.uri)
                continue
            (result.updated if previous else result.added).append(candidate.uri)
            pending.append((doc, candidate.source_hash))
            result.changed.append(doc)
            if len(pending) >= _WRITE_BATCH:
                self.documents.upsert(pending, job_id)
                pending = []
        self.documents.upsert(pending, job_id)
        # A page that became mostly CJK loses the vector of its earlier version.
        self.vectors.delete_for([d.id for d in result.changed if d.language == CJK_LANGUAGE])
        return result

    def _count_again(self, previous: StoredState, job_id: str, result: ConvertResult) -> None:
        doc = self.documents.get(previous.id)
        if doc is None:
            return
        (result.added if previous.created_job_id == job_id else result.updated).append(
            doc.source_uri
        )
        result.changed.append(doc)

    def missing_vectors(self, space: str) -> list[str]:
        """Ids of the space's embeddable documents without a vector for this content and model."""
        hashes = {
            state.id: state.content_hash
            for state in self.documents.states(space).values()
            if state.language != CJK_LANGUAGE
        }
        return sorted(set(hashes) - self.vectors.current(hashes, self.vector_key()))

    def embed(self, doc_ids: Sequence[str]) -> int:
        """Embed these documents unless their current vector exists; returns how many were."""
        by_section = self._settings.embed_granularity == "section"
        docs = self.documents.get_many(doc_ids, with_sections=by_section)
        hashes = {d.id: d.content_hash for d in docs.values() if d.language != CJK_LANGUAGE}
        todo = [
            docs[i] for i in sorted(set(hashes) - self.vectors.current(hashes, self.vector_key()))
        ]
        if not todo:
            return 0
        embedder = self._embedder()
        settings = self._settings
        texts = [
            embedding_texts(
                doc,
                settings.embed_granularity,
                max_chars=settings.embed_max_chars,
                passage_chars=settings.embed_passage_chars,
                max_passages=settings.embed_max_passages,
            )
            for doc in todo
        ]
        vectors = iter(embedder.embed_documents([text for doc in texts for text in doc]))
        self.vectors.upsert(
            [
                (doc.id, doc.content_hash, [next(vectors) for _ in doc_texts])
                for doc, doc_texts in zip(todo, texts, strict=True)
            ],
            settings.vector_key(embedder.fingerprint),
            embedder.dimensions,
        )
        return len(todo)

    def vector_key(self) -> str:
        """Where this model's vectors at the configured granularity are stored."""
        return self._settings.vector_key(self.fingerprint())

    def fingerprint(self) -> str:
        """The model's fingerprint from its folder, without loading it when nothing needs it."""
        if self._fingerprint is None:
            try:
                self._fingerprint = model_fingerprint(resolve_model_dir(self._settings))
            except ModelAssemblyError:
                self._fingerprint = self._embedder().fingerprint  # custom folder: ask the model
        return self._fingerprint

    def missing_from_keyword_index(self, space: str) -> list[str]:
        """Documents Postgres has and the keyword index lacks (a crash between the two writes)."""
        stored = {state.id for state in self.documents.states(space).values()}
        return sorted(stored - self.keyword.ids(space))

    def index(
        self, docs: Sequence[Document], advance: Callable[[int], None] = lambda n: None
    ) -> int:
        for start in range(0, len(docs), _INDEX_BATCH):
            batch = docs[start : start + _INDEX_BATCH]
            self.keyword.upsert(batch)
            advance(len(batch))
        return len(docs)

    def index_ids(self, doc_ids: Sequence[str]) -> int:
        """Index documents as Postgres holds them now (so a late retry never writes stale text)."""
        docs = self.documents.get_many(doc_ids)
        return self.index([docs[i] for i in doc_ids if i in docs])

    def delete(self, states: Sequence[StoredState]) -> list[str]:
        """Remove documents from every index; returns their source URIs."""
        ids = [state.id for state in states]
        if ids:
            self.keyword.delete(ids)
            self.documents.delete(ids)
        return [state.source_uri for state in states]
