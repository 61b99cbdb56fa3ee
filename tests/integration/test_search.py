"""Ingest -> search on the real embedded stores with the sample wiki and its demo queries."""

from __future__ import annotations

import json

import pytest
from integration_paths import REPO

from pipelines.runtime import EmbeddedRuntime
from pipelines.search.filters import SearchFilters
from pipelines.search.service import SearchRequest, SearchResponse

DEMO_QUERIES = json.loads((REPO / "samples" / "demo_queries.json").read_text())


def _search(runtime: EmbeddedRuntime, query: str, space: str, **options: object) -> SearchResponse:
    filters = options.pop("filters", SearchFilters(space=space))
    return runtime.search.search(SearchRequest(query, filters=filters, **options))  # type: ignore[arg-type]


@pytest.mark.parametrize("case", DEMO_QUERIES, ids=lambda case: f"{case['kind']}:{case['query']}")
def test_demo_queries_rank_the_expected_page_first(
    runtime: EmbeddedRuntime, sample_space: str, case: dict[str, str]
) -> None:
    response = _search(runtime, case["query"], sample_space)
    assert response.results, response.notes
    assert response.results[0].title == case["expected_title"]


def test_results_explain_themselves(runtime: EmbeddedRuntime, sample_space: str) -> None:
    response = _search(runtime, "promote the replica after the primary fails", sample_space)
    assert response.mode_used == "hybrid"
    assert any(r.bm25_rank is not None and r.vector_rank is not None for r in response.results)
    for result in response.results:
        expected = sum(
            1 / (60 + rank) for rank in (result.bm25_rank, result.vector_rank) if rank is not None
        )
        assert result.rrf_score == pytest.approx(expected)
    assert [r.rank for r in response.results] == list(range(1, len(response.results) + 1))


def test_cjk_query_in_hybrid_equals_bm25(runtime: EmbeddedRuntime, sample_space: str) -> None:
    hybrid = _search(runtime, "数据库主从切换怎么做", sample_space, mode="hybrid")
    bm25 = _search(runtime, "数据库主从切换怎么做", sample_space, mode="bm25")
    assert hybrid.mode_used == "bm25" and any("CJK" in note for note in hybrid.notes)
    assert [r.doc_id for r in hybrid.results] == [r.doc_id for r in bm25.results]
    assert hybrid.results[0].title == "数据库主从切换说明"


def test_identifier_is_pinned_above_semantic_neighbours(
    runtime: EmbeddedRuntime, sample_space: str
) -> None:
    response = _search(runtime, "ledger.replica_lag_max_ms", sample_space)
    top = response.results[0]
    assert top.pinned and top.bm25_rank == 1
    assert "ledger.replica_lag_max_ms" in runtime.documents.get(top.doc_id).text  # type: ignore[union-attr]


def test_filters_apply_inside_both_retrievers(runtime: EmbeddedRuntime, sample_space: str) -> None:
    everything = _search(runtime, "backup restore", sample_space, k=20)
    restricted = [r for r in everything.results if r.title == "Restoring a database from backup"]
    assert restricted, "the ACL-restricted backup page should be visible without ACL filtering"

    outsider = _search(
        runtime,
        "backup restore",
        sample_space,
        k=20,
        filters=SearchFilters(space=sample_space, acl_groups=("marketing",)),
    )
    assert "Restoring a database from backup" not in [r.title for r in outsider.results]
    assert outsider.results, "public pages must still be found"

    other_space = _search(runtime, "backup restore", "no-such-space")
    assert other_space.results == []


def test_tag_filter(runtime: EmbeddedRuntime, sample_space: str) -> None:
    doc = runtime.documents.get(
        _search(runtime, "Postgres failover runbook", sample_space).results[0].doc_id
    )
    assert doc is not None and doc.tags
    tag = doc.tags[0]
    for mode in ("bm25", "vector", "hybrid"):
        response = _search(
            runtime,
            "database",
            sample_space,
            mode=mode,
            k=20,
            filters=SearchFilters(space=sample_space, tags=(tag,)),
        )
        assert response.results
        for result in response.results:
            stored = runtime.documents.get(result.doc_id)
            assert stored is not None and tag in stored.tags


def test_space_without_vectors_answers_with_bm25_and_says_so(runtime: EmbeddedRuntime) -> None:
    from pipelines.documents import Document, content_hash

    doc = Document(
        id="plain-1",
        space="bm25-only",
        source_uri="mem://plain-1",
        title="Walrus gateway",
        text="The walrus gateway terminates TLS.",
        content_hash=content_hash("Walrus gateway", "x"),
    )
    runtime.ingest.ingest_documents([doc], "bm25-only", embed=False)
    response = _search(runtime, "walrus gateway", "bm25-only")
    assert response.mode_used == "bm25"
    assert any("not ready" in note for note in response.notes)
    assert [r.title for r in response.results] == ["Walrus gateway"]


def test_vectors_of_another_model_are_never_compared(
    runtime: EmbeddedRuntime, sample_space: str
) -> None:
    """A vector stored by another model (another fingerprint) is invisible to the query."""
    import numpy as np

    target = _search(runtime, "Postgres failover runbook", sample_space).results[0]
    fingerprint = runtime.query_embedder().fingerprint
    query = runtime.query_embedder().embed("quokka migration schedule")
    with runtime.database.connection() as conn:
        # Another model's vector equal to the query itself: it would rank first if compared.
        conn.execute(
            "INSERT INTO embeddings (document_id, model_fingerprint, content_hash, embedding)"
            " VALUES (%s, 'other-model@0', 'x', %s)",
            (target.doc_id, np.asarray(query)),
        )
    try:
        response = _search(runtime, "quokka migration schedule", sample_space, mode="vector")
        top = response.results[0]
        assert top.vector_score is not None and top.vector_score < 0.99
        assert fingerprint != "other-model@0"
    finally:
        with runtime.database.connection() as conn:
            conn.execute("DELETE FROM embeddings WHERE model_fingerprint = 'other-model@0'")
