"""Hybrid search: BM25 and the query embedding start together, vectors follow, RRF + pin fuse."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Literal, TypeVar

import structlog

from pipelines.analysis.language import contains_cjk
from pipelines.embedding.query_cache import CachedQueryEmbedder
from pipelines.fusion import FusedHit, Hit, fuse
from pipelines.keyword.base import KeywordIndex, KeywordIndexUnavailable
from pipelines.search.filters import SearchFilters
from pipelines.search.snippets import snippet
from pipelines.settings import Settings
from pipelines.stores.database import DatabaseUnavailable
from pipelines.stores.documents import DocumentStore
from pipelines.stores.vectors import VectorIndex

Mode = Literal["hybrid", "bm25", "vector"]
MODES: tuple[Mode, ...] = ("hybrid", "bm25", "vector")

log = structlog.get_logger(__name__)
# Section-level vectors: passages read per document wanted, so that a few long pages whose many
# passages are all near the query do not crowd out the other candidates.
_PASSAGES_READ_PER_DOCUMENT = 8
# Snippets look at a page's first sentences only; no need to read a long page whole.
_SNIPPET_SOURCE_CHARS = 50_000
_R = TypeVar("_R")


@dataclass(frozen=True)
class SearchRequest:
    query: str
    mode: Mode = "hybrid"
    k: int = 10
    filters: SearchFilters = field(default_factory=SearchFilters)
    # None: the configured N. Each retriever returns max(candidates, k) hits.
    candidates: int | None = None
    pin_ratio: float | Literal["default"] | None = "default"
    # False skips building snippets (evaluation passes that only need the ranking).
    snippets: bool = True


@dataclass(frozen=True)
class SearchResult:
    rank: int
    doc_id: str
    title: str
    source_uri: str
    space: str
    snippet: str
    rrf_score: float
    bm25_rank: int | None
    bm25_score: float | None
    vector_rank: int | None
    vector_score: float | None
    pinned: bool


@dataclass
class SearchResponse:
    query: str
    mode: Mode
    mode_used: Mode
    results: list[SearchResult]
    notes: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)


class EmptyQuery(ValueError):
    pass


class SearchService:
    def __init__(
        self,
        *,
        keyword: KeywordIndex,
        vectors: VectorIndex,
        documents: DocumentStore,
        query_embedder: Callable[[], CachedQueryEmbedder],
        executor: Executor,
        settings: Settings,
    ) -> None:
        self._keyword = keyword
        self._vectors = vectors
        self._documents = documents
        self._query_embedder = query_embedder
        self._executor = executor
        self._settings = settings

    def search(self, request: SearchRequest) -> SearchResponse:
        query = request.query.strip()
        if not query:
            raise EmptyQuery("the query is empty")
        started = time.perf_counter()
        depth = max(request.candidates or self._settings.candidates, request.k)
        timings: dict[str, float] = {}
        notes: list[str] = []

        use_bm25 = request.mode in ("hybrid", "bm25")
        use_vector = request.mode in ("hybrid", "vector")
        if request.mode == "hybrid" and contains_cjk(query):
            use_vector = False
            notes.append("query contains CJK characters: answered by BM25 alone")

        # BM25 runs on the pool while this thread embeds the query and then asks pgvector.
        # Documents and snippets are read after fusion, on this thread: done on the pool during
        # the embedding, their pure-Python work holds the GIL and slows the embedding more than
        # it saves (measured: hybrid p50 19.4 ms that way, 16.9 ms this way; docs/benchmarks.md).
        bm25_future = (
            self._executor.submit(
                self._timed,
                timings,
                "bm25_ms",
                self._keyword.search,
                query,
                limit=depth,
                filters=request.filters,
            )
            if use_bm25
            else None
        )
        vector_hits: list[Hit] = []
        if use_vector:
            try:
                vector_hits = self._vector_search(query, depth, request.filters, timings)
            except DatabaseUnavailable:
                raise  # documents live there too: nothing to answer with
            except Exception as error:
                if request.mode == "vector":
                    raise
                log.warning("search.vector_failed", error=str(error))
                notes.append(f"vector search failed ({error}): answered by BM25 alone")
                use_vector = False
            if (
                use_vector
                and not vector_hits
                and not self._vectors.has_vectors(
                    self._vector_key(self._query_embedder()), request.filters
                )
            ):
                notes.append("no embeddings yet for these documents: vector side not ready")
                use_vector = request.mode == "vector"
        bm25_hits: list[Hit] = []
        if bm25_future is not None:
            try:
                bm25_hits = bm25_future.result()
            except KeywordIndexUnavailable as error:
                if request.mode == "bm25":
                    raise
                log.warning("search.keyword_unavailable", error=str(error))
                use_bm25 = False
                if not use_vector and not vector_hits:
                    # A CJK query skipped the vectors; they are all that is left now.
                    vector_hits = self._vector_search(query, depth, request.filters, timings)
                    use_vector = True
                notes.append(f"{error}: answered from vectors alone")

        mode_used: Mode = request.mode
        if request.mode == "hybrid" and not use_vector:
            mode_used = "bm25"
        elif request.mode == "hybrid" and not use_bm25:
            mode_used = "vector"
        pin_ratio = (
            self._settings.pin_ratio if request.pin_ratio == "default" else request.pin_ratio
        )
        fused = fuse(
            bm25_hits,
            vector_hits,
            k=self._settings.rrf_k,
            pin_ratio=pin_ratio if mode_used == "hybrid" else None,
            limit=request.k,
        )
        results = self._results(fused, query, request.snippets)
        timings["total_ms"] = (time.perf_counter() - started) * 1000
        log.info(
            "search",
            mode=request.mode,
            mode_used=mode_used,
            hits=len(results),
            total_ms=round(timings["total_ms"], 2),
        )
        return SearchResponse(query, request.mode, mode_used, results, notes, timings)

    def rerank(self, request: SearchRequest) -> SearchResponse:
        """BM25's top N re-ordered by vector similarity: a baseline for the benchmark, to show
        why re-ranking is not fusion (it can only reorder what BM25 already found)."""
        query = request.query.strip()
        if not query:
            raise EmptyQuery("the query is empty")
        depth = max(request.candidates or self._settings.candidates, request.k)
        bm25 = self._keyword.search(query, limit=depth, filters=request.filters)
        embedder = self._query_embedder()
        scores = self._vectors.similarities(
            embedder.embed(query), self._vector_key(embedder), [hit.doc_id for hit in bm25]
        )
        # Documents without a vector (mostly CJK) keep their BM25 order after the others.
        order = sorted(
            range(len(bm25)),
            key=lambda i: (bm25[i].doc_id not in scores, -scores.get(bm25[i].doc_id, 0.0), i),
        )
        fused = [
            FusedHit(
                doc_id=bm25[i].doc_id,
                rrf_score=0.0,
                bm25_rank=i + 1,
                bm25_score=bm25[i].score,
                vector_rank=None,
                vector_score=scores.get(bm25[i].doc_id),
                pinned=False,
            )
            for i in order[: request.k]
        ]
        return SearchResponse(
            query, "hybrid", "hybrid", self._results(fused, query, request.snippets)
        )

    def _vector_search(
        self, query: str, depth: int, filters: SearchFilters, timings: dict[str, float]
    ) -> list[Hit]:
        """Embed the query (cached), then the nearest vectors of its own model."""
        embedder = self._query_embedder()
        vector = self._timed(timings, "embed_ms", embedder.embed, query)
        return self._timed(
            timings,
            "vector_ms",
            self._vectors.search,
            vector,
            self._vector_key(embedder),
            limit=depth,
            filters=filters,
            passages_per_document=(
                1 if self._settings.embed_granularity == "page" else _PASSAGES_READ_PER_DOCUMENT
            ),
        )

    def _vector_key(self, embedder: CachedQueryEmbedder) -> str:
        return self._settings.vector_key(embedder.fingerprint)

    @staticmethod
    def _timed(
        timings: dict[str, float], key: str, fn: Callable[..., _R], *args: object, **kwargs: object
    ) -> _R:
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            timings[key] = (time.perf_counter() - started) * 1000

    def _results(
        self, fused: list[FusedHit], query: str, with_snippets: bool = True
    ) -> list[SearchResult]:
        docs = self._documents.get_many(
            [hit.doc_id for hit in fused], text_chars=_SNIPPET_SOURCE_CHARS
        )
        results: list[SearchResult] = []
        for hit in fused:
            doc = docs.get(hit.doc_id)
            if doc is None:  # deleted between the index read and now
                continue
            results.append(
                SearchResult(
                    rank=len(results) + 1,
                    doc_id=hit.doc_id,
                    title=doc.title,
                    source_uri=doc.source_uri,
                    space=doc.space,
                    snippet=snippet(doc.text, query) if with_snippets else "",
                    rrf_score=hit.rrf_score,
                    bm25_rank=hit.bm25_rank,
                    bm25_score=hit.bm25_score,
                    vector_rank=hit.vector_rank,
                    vector_score=hit.vector_score,
                    pinned=hit.pinned,
                )
            )
        return results
