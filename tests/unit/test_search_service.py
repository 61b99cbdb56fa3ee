"""SearchService with fake retrievers, document store and embedder (behind the real cache)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

from pipelines.documents import Document
from pipelines.embedding.query_cache import CachedQueryEmbedder
from pipelines.fusion import Hit
from pipelines.search.filters import SearchFilters
from pipelines.search.service import (
    EmptyQuery,
    Mode,
    SearchRequest,
    SearchResponse,
    SearchService,
)
from pipelines.settings import Settings
from pipelines.stores.documents import DocumentStore

K = 60  # rrf_k used by every test


def rrf(*ranks: int) -> float:
    return sum(1.0 / (K + rank) for rank in ranks)


# --------------------------------------------------------------------------------------- fakes


class FakeKeyword:
    def __init__(
        self, hits: Sequence[Hit] = (), on_search: Callable[[], None] | None = None
    ) -> None:
        self.hits = list(hits)
        self.on_search = on_search
        self.calls: list[tuple[str, int, SearchFilters]] = []

    def search(self, query: str, *, limit: int, filters: SearchFilters) -> list[Hit]:
        self.calls.append((query, limit, filters))
        if self.on_search is not None:
            self.on_search()
        return self.hits[:limit]

    def upsert(self, documents: Sequence[Document]) -> None:
        raise AssertionError("search must not write")

    def delete(self, doc_ids: Sequence[str]) -> None:
        raise AssertionError("search must not write")

    def ids(self, space: str) -> set[str]:
        raise AssertionError("not used by search")


class FakeVectors:
    def __init__(self, hits: Sequence[Hit] = (), has_vectors: bool = True) -> None:
        self.hits = list(hits)
        self.ready = has_vectors
        self.search_calls: list[tuple[np.ndarray, str, int, SearchFilters]] = []
        self.has_vectors_calls: list[tuple[str, SearchFilters]] = []

    def search(
        self,
        vector: np.ndarray,
        fingerprint: str,
        *,
        limit: int,
        filters: SearchFilters,
        passages_per_document: int = 1,
    ) -> list[Hit]:
        self.search_calls.append((vector, fingerprint, limit, filters))
        self.passages_per_document = passages_per_document
        return self.hits[:limit]

    def has_vectors(self, fingerprint: str, filters: SearchFilters) -> bool:
        self.has_vectors_calls.append((fingerprint, filters))
        return self.ready

    def similarities(
        self, vector: np.ndarray, fingerprint: str, doc_ids: Sequence[str]
    ) -> dict[str, float]:
        scores = {hit.doc_id: hit.score for hit in self.hits}
        return {d: scores[d] for d in doc_ids if d in scores}


class FakeDocuments:
    def __init__(self, documents: Sequence[Document]) -> None:
        self.documents = {doc.id: doc for doc in documents}
        self.calls: list[list[str]] = []

    def get_many(
        self,
        doc_ids: Sequence[str],
        *,
        with_sections: bool = False,
        text_chars: int | None = None,
    ) -> dict[str, Document]:
        if doc_ids:
            self.calls.append(list(doc_ids))
        return {d: self.documents[d] for d in doc_ids if d in self.documents}


class FakeEmbedder:
    def __init__(
        self, fingerprint: str = "fp-1", on_embed: Callable[[], None] | None = None
    ) -> None:
        self._fingerprint = fingerprint
        self.on_embed = on_embed
        self.queries: list[str] = []

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    @fingerprint.setter
    def fingerprint(self, value: str) -> None:
        self._fingerprint = value

    @property
    def dimensions(self) -> int:
        return 3

    def embed_documents(self, texts: Sequence[str]) -> list[np.ndarray]:
        raise AssertionError("search embeds queries only")

    def embed_query(self, text: str) -> np.ndarray:
        self.queries.append(text)
        if self.on_embed is not None:
            self.on_embed()
        return np.array([float(len(text)), 1.0, 0.0], dtype=np.float32)


def doc(doc_id: str, text: str = "") -> Document:
    return Document(
        id=doc_id,
        space="eng",
        source_uri=f"file:///{doc_id}.md",
        title=f"Title {doc_id}",
        text=text or f"Body of {doc_id}.",
    )


ALL_DOCS = [doc(d) for d in ("a", "b", "c", "d", "e", "f")]

# Scores too close to pin (10.0 < 1.05 * 9.9).
FLAT_BM25 = [Hit("a", 10.0), Hit("b", 9.9), Hit("c", 9.8)]
# 20.0 >= 1.05 * 10.0: pins in hybrid mode.
SHARP_BM25 = [Hit("a", 20.0), Hit("b", 10.0), Hit("c", 9.0)]
VECTOR = [Hit("b", 0.9), Hit("d", 0.8), Hit("a", 0.7)]


@dataclass
class Harness:
    service: SearchService
    keyword: FakeKeyword
    vectors: FakeVectors
    documents: FakeDocuments
    embedder: FakeEmbedder
    cache: CachedQueryEmbedder
    settings: Settings
    factory_calls: list[int] = field(default_factory=list)

    def search(self, query: str, mode: Mode = "hybrid", **kwargs: Any) -> SearchResponse:
        return self.service.search(SearchRequest(query, mode=mode, **kwargs))


@pytest.fixture
def executor() -> Iterator[ThreadPoolExecutor]:
    pool = ThreadPoolExecutor(max_workers=2)
    yield pool
    pool.shutdown(wait=False, cancel_futures=True)


@pytest.fixture
def make(tmp_path: Path, executor: ThreadPoolExecutor) -> Callable[..., Harness]:
    def build(
        *,
        keyword: FakeKeyword | None = None,
        vectors: FakeVectors | None = None,
        documents: Sequence[Document] = ALL_DOCS,
        embedder: FakeEmbedder | None = None,
        **settings_overrides: Any,
    ) -> Harness:
        settings = Settings(
            home=tmp_path,
            **{"candidates": 20, "rrf_k": K, "pin_ratio": 1.05, **settings_overrides},
        )
        keyword = keyword if keyword is not None else FakeKeyword(FLAT_BM25)
        vectors = vectors if vectors is not None else FakeVectors(VECTOR)
        store = FakeDocuments(documents)
        embedder = embedder if embedder is not None else FakeEmbedder()
        cache = CachedQueryEmbedder(embedder, size=settings.query_cache_size)
        factory_calls: list[int] = []

        def factory() -> CachedQueryEmbedder:
            factory_calls.append(1)
            return cache

        service = SearchService(
            keyword=keyword,
            vectors=vectors,
            documents=cast(DocumentStore, store),
            query_embedder=factory,
            executor=executor,
            settings=settings,
        )
        return Harness(service, keyword, vectors, store, embedder, cache, settings, factory_calls)

    return build


def ids(response: SearchResponse) -> list[str]:
    return [r.doc_id for r in response.results]


# ---------------------------------------------------------------------------------- concurrency


def test_bm25_and_query_embedding_run_concurrently(make: Callable[..., Harness]) -> None:
    bm25_started = threading.Event()
    embed_started = threading.Event()
    seen: dict[str, bool] = {}

    def keyword_waits_for_embedder() -> None:
        bm25_started.set()
        seen["bm25 saw embedding"] = embed_started.wait(timeout=5)

    def embedder_waits_for_keyword() -> None:
        embed_started.set()
        seen["embedding saw bm25"] = bm25_started.wait(timeout=5)

    h = make(
        keyword=FakeKeyword(FLAT_BM25, on_search=keyword_waits_for_embedder),
        embedder=FakeEmbedder(on_embed=embedder_waits_for_keyword),
    )
    response = h.search("replica lag")

    # Sequential execution would leave one side waiting out its timeout and record False.
    assert seen == {"bm25 saw embedding": True, "embedding saw bm25": True}
    assert response.mode_used == "hybrid"
    assert set(ids(response)) == {"a", "b", "c", "d"}
    assert {"bm25_ms", "embed_ms", "vector_ms", "total_ms"} <= set(response.timings_ms)


# --------------------------------------------------------------------------------------- fusion


def test_hybrid_fuses_both_lists(make: Callable[..., Harness]) -> None:
    h = make()
    response = h.search("replica lag")

    assert response.mode == response.mode_used == "hybrid"
    assert response.notes == []
    # b: bm25 2 + vector 1; a: bm25 1 + vector 3; d: vector 2; c: bm25 3.
    assert ids(response) == ["b", "a", "d", "c"]
    assert [r.rank for r in response.results] == [1, 2, 3, 4]
    by_id = {r.doc_id: r for r in response.results}
    assert by_id["b"].rrf_score == pytest.approx(rrf(2, 1))
    assert by_id["a"].rrf_score == pytest.approx(rrf(1, 3))
    assert by_id["d"].rrf_score == pytest.approx(rrf(2))
    assert by_id["c"].rrf_score == pytest.approx(rrf(3))
    assert (by_id["b"].bm25_rank, by_id["b"].vector_rank) == (2, 1)
    assert (by_id["b"].bm25_score, by_id["b"].vector_score) == (9.9, 0.9)
    assert (by_id["d"].bm25_rank, by_id["d"].bm25_score) == (None, None)
    assert (by_id["c"].vector_rank, by_id["c"].vector_score) == (None, None)
    assert not any(r.pinned for r in response.results)
    # Document fields come from the store.
    assert by_id["d"].title == "Title d"
    assert by_id["d"].source_uri == "file:///d.md"
    assert by_id["d"].space == "eng"
    assert by_id["d"].snippet == "Body of d."


def test_hybrid_pins_bm25_top_hits(make: Callable[..., Harness]) -> None:
    h = make(keyword=FakeKeyword(SHARP_BM25))
    response = h.search("NWL-4031")

    # Pinned a, b, c in BM25 order, then d by RRF.
    assert ids(response) == ["a", "b", "c", "d"]
    assert [r.pinned for r in response.results] == [True, True, True, False]
    assert response.results[0].rrf_score == pytest.approx(rrf(1, 3))
    assert response.results[1].rrf_score == pytest.approx(rrf(2, 1))


def test_request_can_disable_the_pin(make: Callable[..., Harness]) -> None:
    h = make(keyword=FakeKeyword(SHARP_BM25))
    response = h.search("NWL-4031", pin_ratio=None)

    assert ids(response) == ["b", "a", "d", "c"]
    assert not any(r.pinned for r in response.results)


def test_k_truncates_the_fused_list(make: Callable[..., Harness]) -> None:
    h = make()
    response = h.search("replica lag", k=2)

    assert ids(response) == ["b", "a"]


@pytest.mark.parametrize("mode", ["bm25", "vector"])
def test_no_pin_outside_hybrid(make: Callable[..., Harness], mode: Mode) -> None:
    h = make(keyword=FakeKeyword(SHARP_BM25), vectors=FakeVectors([Hit("d", 5.0), Hit("e", 1.0)]))
    response = h.search("NWL-4031", mode=mode)

    assert response.mode_used == mode
    expected = ["a", "b", "c"] if mode == "bm25" else ["d", "e"]
    assert ids(response) == expected
    assert [r.rank for r in response.results] == list(range(1, len(expected) + 1))
    assert not any(r.pinned for r in response.results)


def test_bm25_mode_never_touches_the_vector_side(make: Callable[..., Harness]) -> None:
    h = make()
    response = h.search("replica lag", mode="bm25")

    assert ids(response) == ["a", "b", "c"]
    assert [r.rrf_score for r in response.results] == pytest.approx([rrf(1), rrf(2), rrf(3)])
    assert all(r.vector_rank is None for r in response.results)
    assert h.vectors.search_calls == []
    assert h.vectors.has_vectors_calls == []
    assert h.embedder.queries == []


def test_vector_mode_never_calls_bm25(make: Callable[..., Harness]) -> None:
    h = make()
    response = h.search("replica lag", mode="vector")

    assert ids(response) == ["b", "d", "a"]
    assert all(r.bm25_rank is None for r in response.results)
    assert h.keyword.calls == []


# -------------------------------------------------------------------------------------------- CJK


def test_cjk_query_in_hybrid_is_answered_by_bm25_alone(make: Callable[..., Harness]) -> None:
    h = make(keyword=FakeKeyword(SHARP_BM25))
    hybrid = h.search("数据库 replica")

    assert hybrid.mode == "hybrid"
    assert hybrid.mode_used == "bm25"
    assert any("CJK" in note for note in hybrid.notes)
    assert h.vectors.search_calls == []
    assert h.vectors.has_vectors_calls == []
    assert h.embedder.queries == []
    assert h.factory_calls == []  # the model is not even loaded

    bm25 = h.search("数据库 replica", mode="bm25")
    assert hybrid.results == bm25.results
    assert ids(hybrid) == ["a", "b", "c"]
    assert not any(r.pinned for r in hybrid.results)


@pytest.mark.parametrize("query", ["ログ", "로그 설정", "設定"])
def test_kana_hangul_and_kanji_count_as_cjk(make: Callable[..., Harness], query: str) -> None:
    h = make()
    response = h.search(query)

    assert response.mode_used == "bm25"
    assert h.embedder.queries == []


def test_cjk_query_in_vector_mode_still_embeds(make: Callable[..., Harness]) -> None:
    h = make()
    response = h.search("数据库", mode="vector")

    assert response.mode_used == "vector"
    assert h.embedder.queries == ["数据库"]
    assert ids(response) == ["b", "d", "a"]


# ---------------------------------------------------------------------------- no embeddings yet


def test_hybrid_without_embeddings_falls_back_to_bm25(make: Callable[..., Harness]) -> None:
    h = make(keyword=FakeKeyword(SHARP_BM25), vectors=FakeVectors([], has_vectors=False))
    filters = SearchFilters(space="eng")
    response = h.search("replica lag", filters=filters)

    assert response.mode == "hybrid"
    assert response.mode_used == "bm25"
    assert any("embeddings" in note for note in response.notes)
    assert ids(response) == ["a", "b", "c"]
    # Fallen back to bm25: no pin.
    assert not any(r.pinned for r in response.results)
    assert h.vectors.has_vectors_calls == [("fp-1", filters)]


def test_vector_mode_without_embeddings_is_empty(make: Callable[..., Harness]) -> None:
    h = make(vectors=FakeVectors([], has_vectors=False))
    response = h.search("replica lag", mode="vector")

    assert response.mode_used == "vector"
    assert response.results == []
    assert any("embeddings" in note for note in response.notes)


def test_empty_vector_result_with_embeddings_stays_hybrid(make: Callable[..., Harness]) -> None:
    h = make(vectors=FakeVectors([], has_vectors=True))
    response = h.search("replica lag")

    assert response.mode_used == "hybrid"
    assert response.notes == []
    assert ids(response) == ["a", "b", "c"]


def test_has_vectors_not_asked_when_vectors_found(make: Callable[..., Harness]) -> None:
    h = make()
    h.search("replica lag")

    assert h.vectors.has_vectors_calls == []


# ------------------------------------------------------------------------- filters and depth


def test_filters_reach_both_retrievers_unchanged(make: Callable[..., Harness]) -> None:
    h = make()
    filters = SearchFilters(space="eng", tags=("ops", "db"), acl_groups=("sre",))
    h.search("  replica lag  ", filters=filters)

    ((query, _, keyword_filters),) = h.keyword.calls
    ((vector, fingerprint, _, vector_filters),) = h.vectors.search_calls
    assert keyword_filters is filters
    assert vector_filters is filters
    assert query == "replica lag"  # stripped
    assert fingerprint == "fp-1"
    assert h.embedder.queries == ["replica lag"]
    np.testing.assert_array_equal(vector, np.array([11.0, 1.0, 0.0], dtype=np.float32))


@pytest.mark.parametrize(
    ("k", "candidates", "expected"),
    [(50, None, 50), (5, None, 20), (20, None, 20), (5, 30, 30), (40, 30, 40)],
)
def test_candidate_depth(
    make: Callable[..., Harness], k: int, candidates: int | None, expected: int
) -> None:
    h = make()
    h.search("replica lag", k=k, candidates=candidates)

    assert [limit for _, limit, _ in h.keyword.calls] == [expected]
    assert [limit for _, _, limit, _ in h.vectors.search_calls] == [expected]


def test_candidate_depth_follows_settings(make: Callable[..., Harness]) -> None:
    h = make(candidates=7)
    h.search("replica lag", k=3)

    assert h.keyword.calls[0][1] == 7
    assert h.vectors.search_calls[0][2] == 7


# ----------------------------------------------------------------------------------- query cache


def test_same_query_twice_embeds_once(make: Callable[..., Harness]) -> None:
    h = make()
    first = h.search("replica lag")
    second = h.search(" replica lag ")

    assert h.embedder.queries == ["replica lag"]
    assert (h.cache.misses, h.cache.hits) == (1, 1)
    assert first.results == second.results
    assert len(h.vectors.search_calls) == 2


def test_query_cache_is_lru_bounded_by_settings(make: Callable[..., Harness]) -> None:
    h = make(query_cache_size=2)
    for query in ["alpha", "beta", "alpha", "gamma"]:  # gamma evicts beta, the least recent
        h.search(query)
    assert len(h.cache) == 2
    assert h.embedder.queries == ["alpha", "beta", "gamma"]

    h.search("alpha")  # still cached
    assert h.embedder.queries == ["alpha", "beta", "gamma"]
    h.search("beta")  # evicted: embedded again, evicting gamma
    assert h.embedder.queries == ["alpha", "beta", "gamma", "beta"]
    h.search("gamma")
    assert h.embedder.queries == ["alpha", "beta", "gamma", "beta", "gamma"]
    assert len(h.cache) == 2


def test_query_cache_key_includes_fingerprint() -> None:
    embedder = FakeEmbedder(fingerprint="model-a")
    cache = CachedQueryEmbedder(embedder, size=8)

    cache.embed("replica lag")
    embedder.fingerprint = "model-b"
    assert cache.fingerprint == "model-b"
    cache.embed("replica lag")
    assert embedder.queries == ["replica lag", "replica lag"]
    embedder.fingerprint = "model-a"
    cache.embed("replica lag")
    assert embedder.queries == ["replica lag", "replica lag"]
    assert len(cache) == 2


def test_query_cache_of_size_zero_never_caches() -> None:
    embedder = FakeEmbedder()
    cache = CachedQueryEmbedder(embedder, size=0)

    cache.embed("q")
    cache.embed("q")
    assert embedder.queries == ["q", "q"]
    assert len(cache) == 0


def test_query_cache_returns_the_embedders_vector() -> None:
    cache = CachedQueryEmbedder(FakeEmbedder(), size=4)

    first = cache.embed("abcd")
    second = cache.embed("abcd")
    np.testing.assert_array_equal(first, np.array([4.0, 1.0, 0.0], dtype=np.float32))
    np.testing.assert_array_equal(second, first)


# ----------------------------------------------------------------------------------- edge cases


@pytest.mark.parametrize("query", ["", "   ", "\t\n "])
@pytest.mark.parametrize("mode", ["hybrid", "bm25", "vector"])
def test_empty_query_raises(make: Callable[..., Harness], query: str, mode: Mode) -> None:
    h = make()
    with pytest.raises(EmptyQuery):
        h.search(query, mode=mode)
    assert h.keyword.calls == []
    assert h.embedder.queries == []


def test_empty_query_is_a_value_error() -> None:
    assert issubclass(EmptyQuery, ValueError)


def test_doc_missing_from_store_is_dropped(make: Callable[..., Harness]) -> None:
    store_docs = [d for d in ALL_DOCS if d.id != "b"]
    h = make(documents=store_docs)
    response = h.search("replica lag")

    # Fused order is b, a, d, c; b was deleted after indexing.
    assert ids(response) == ["a", "d", "c"]
    assert [r.rank for r in response.results] == [1, 2, 3]
    assert response.results[0].rrf_score == pytest.approx(rrf(1, 3))
    assert h.documents.calls == [["b", "a", "d", "c"]]


def test_doc_missing_from_store_in_bm25_mode(make: Callable[..., Harness]) -> None:
    keyword = FakeKeyword([Hit("a", 3.0), Hit("ghost", 2.9), Hit("c", 2.8)])
    h = make(keyword=keyword)
    response = h.search("replica lag", mode="bm25")

    assert ids(response) == ["a", "c"]
    assert [r.rank for r in response.results] == [1, 2]
    # Ranks within BM25 are kept as the retriever returned them.
    assert [r.bm25_rank for r in response.results] == [1, 3]


def test_snippet_is_built_from_the_query(make: Callable[..., Harness]) -> None:
    text = "Introduction to the ledger. Replica lag is measured in ms. Unrelated closing."
    h = make(
        keyword=FakeKeyword([Hit("a", 1.0)]),
        documents=[doc("a", text)],
        vectors=FakeVectors([]),
    )
    response = h.search("replica lag", mode="bm25")

    assert response.results[0].snippet.startswith("Replica lag is measured in ms.")


def test_rerank_reorders_bm25_candidates_by_vector_similarity(make: Callable[..., Harness]) -> None:
    # BM25 finds a, b, c; vectors know b (0.9) and a (0.7), not c; d is a vector-only hit.
    harness = make(keyword=FakeKeyword(FLAT_BM25))
    response = harness.service.rerank(SearchRequest("query", k=10))
    assert [r.doc_id for r in response.results] == ["b", "a", "c"]
    assert [r.bm25_rank for r in response.results] == [2, 1, 3]
    assert [r.vector_score for r in response.results] == [0.9, 0.7, None]
    assert all(not r.pinned for r in response.results)
