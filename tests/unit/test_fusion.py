"""RRF fusion and the BM25 pin, checked against rankings worked out by hand."""

from __future__ import annotations

import pytest

from pipelines.fusion import PIN_DEPTH, PIN_RATIO, RRF_K, FusedHit, Hit, fuse, should_pin


def hits(*pairs: tuple[str, float]) -> list[Hit]:
    return [Hit(doc_id, score) for doc_id, score in pairs]


def ids(fused: list[FusedHit]) -> list[str]:
    return [h.doc_id for h in fused]


def by_id(fused: list[FusedHit]) -> dict[str, FusedHit]:
    return {h.doc_id: h for h in fused}


# BM25 scores too close together to pin (10.0 < 1.05 * 9.9 = 10.395).
def flat_bm25(*doc_ids: str) -> list[Hit]:
    return [Hit(d, 10.0 - 0.1 * i) for i, d in enumerate(doc_ids)]


def test_defaults() -> None:
    assert RRF_K == 60
    assert PIN_RATIO == 1.05
    assert PIN_DEPTH == 3


def test_plain_rrf_disjoint_lists_interleave() -> None:
    bm25 = flat_bm25("a", "b", "c")
    vector = hits(("d", 0.9), ("e", 0.8), ("f", 0.7))
    fused = fuse(bm25, vector)
    # a=1/61, d=1/61, b=1/62, e=1/62, c=1/63, f=1/63; ties go to the BM25 doc.
    assert ids(fused) == ["a", "d", "b", "e", "c", "f"]
    assert [h.rrf_score for h in fused] == pytest.approx(
        [1 / 61, 1 / 61, 1 / 62, 1 / 62, 1 / 63, 1 / 63], rel=1e-12
    )
    assert not any(h.pinned for h in fused)


def test_fused_hit_carries_ranks_and_scores() -> None:
    bm25 = flat_bm25("a", "b")
    vector = hits(("c", 0.9), ("b", 0.8))
    got = by_id(fuse(bm25, vector))
    assert got["b"] == FusedHit(
        doc_id="b",
        rrf_score=got["b"].rrf_score,
        bm25_rank=2,
        bm25_score=9.9,
        vector_rank=2,
        vector_score=0.8,
        pinned=False,
    )
    assert got["b"].rrf_score == pytest.approx(1 / 62 + 1 / 62, rel=1e-12)
    assert got["a"].vector_rank is None and got["a"].vector_score is None
    assert got["a"].bm25_rank == 1 and got["a"].bm25_score == 10.0
    assert got["c"].bm25_rank is None and got["c"].bm25_score is None
    assert got["c"].vector_rank == 1 and got["c"].vector_score == 0.9


def test_doc_in_both_lists_outranks_docs_in_one() -> None:
    bm25 = flat_bm25("a", "b", "c")
    vector = hits(("d", 0.9), ("e", 0.8), ("c", 0.7))
    fused = fuse(bm25, vector)
    # c = 1/63 + 1/63 = 0.0317 beats a = d = 1/61 = 0.0164; then b = e = 1/62.
    assert ids(fused) == ["c", "a", "d", "b", "e"]
    assert fused[0].rrf_score == pytest.approx(1 / 63 + 1 / 63, rel=1e-12)


def test_custom_k() -> None:
    bm25 = flat_bm25("a", "b")
    vector = hits(("b", 0.9))
    fused = fuse(bm25, vector, k=1)
    # b = 1/3 + 1/2 = 0.833 > a = 1/2.
    assert ids(fused) == ["b", "a"]
    assert [h.rrf_score for h in fused] == pytest.approx([1 / 3 + 1 / 2, 1 / 2], rel=1e-12)


def test_tie_at_rank_one_of_each_list_goes_to_bm25_doc() -> None:
    # Each doc is alone at rank 1 of one list: both 1/61; the one with a BM25 rank first,
    # whatever the doc ids say.
    fused = fuse(hits(("z", 5.0)), hits(("a", 0.9)), pin_ratio=None)
    assert ids(fused) == ["z", "a"]
    assert fused[0].rrf_score == fused[1].rrf_score


def test_tie_in_both_lists_goes_to_doc_whose_best_rank_is_bm25() -> None:
    # a: bm25 1, vector 3 -> 1/61 + 1/63; c: bm25 3, vector 1 -> 1/63 + 1/61. Same score, same
    # best rank (1); a's best rank is its BM25 rank.
    bm25 = flat_bm25("a", "b", "c")
    vector = hits(("c", 0.9), ("d", 0.8), ("a", 0.7))
    fused = fuse(bm25, vector)
    assert ids(fused)[:2] == ["a", "c"]
    assert fused[0].rrf_score == fused[1].rrf_score
    # b = d = 1/62: b has the BM25 rank.
    assert ids(fused)[2:] == ["b", "d"]


def test_tie_broken_by_best_rank_before_list() -> None:
    # k=0 makes exact ties easy: x = 1/3 + 1/6 = 1/2 (best rank 3), q = 1/2 (bm25 rank 2),
    # y = 1/2 (vector rank 2). Lower best rank first, then BM25 before vector: q, y, x.
    bm25 = flat_bm25("p", "q", "x")
    vector = hits(("r", 0.9), ("y", 0.8), ("s", 0.7), ("t", 0.6), ("u", 0.5), ("x", 0.4))
    fused = fuse(bm25, vector, k=0)
    assert ids(fused) == ["p", "r", "q", "y", "x", "s", "t", "u"]
    assert [h.rrf_score for h in fused] == pytest.approx(
        [1.0, 1.0, 1 / 2, 1 / 2, 1 / 3 + 1 / 6, 1 / 3, 1 / 4, 1 / 5], rel=1e-12
    )


def test_repeated_doc_counts_once_at_first_rank() -> None:
    bm25 = [Hit("a", 10.0), Hit("a", 9.95), Hit("b", 9.9)]
    vector = hits(("b", 0.9), ("b", 0.8), ("c", 0.7))
    got = by_id(fuse(bm25, vector))
    assert set(got) == {"a", "b", "c"}
    assert got["a"].bm25_rank == 1 and got["a"].bm25_score == 10.0
    assert got["a"].rrf_score == pytest.approx(1 / 61, rel=1e-12)
    # Ranks are list positions: b is third in the BM25 list.
    assert got["b"].bm25_rank == 3 and got["b"].vector_rank == 1
    assert got["b"].vector_score == 0.9
    assert got["b"].rrf_score == pytest.approx(1 / 63 + 1 / 61, rel=1e-12)
    assert got["c"].vector_rank == 3


def test_vector_empty_gives_bm25_order() -> None:
    fused = fuse(flat_bm25("a", "b", "c"), [])
    assert ids(fused) == ["a", "b", "c"]
    assert not any(h.pinned for h in fused)
    assert all(h.vector_rank is None for h in fused)


def test_bm25_empty_gives_vector_order_without_pin() -> None:
    fused = fuse([], hits(("x", 0.9), ("y", 0.5), ("z", 0.1)))
    assert ids(fused) == ["x", "y", "z"]
    assert not any(h.pinned for h in fused)
    assert all(h.bm25_rank is None for h in fused)


def test_both_empty() -> None:
    assert fuse([], []) == []


# Pinning. BM25 [a, b, c, d], vector [x, y, z, d]:
#   RRF: d = 1/64 + 1/64 = 1/32; a = x = 1/61; b = y = 1/62; c = z = 1/63.
PIN_VECTOR = hits(("x", 0.9), ("y", 0.8), ("z", 0.7), ("d", 0.6))


def pin_bm25(top: float) -> list[Hit]:
    return hits(("a", top), ("b", 10.0), ("c", 5.0), ("d", 4.0))


def test_pin_fires_at_exactly_the_ratio() -> None:
    fused = fuse(pin_bm25(10.5), PIN_VECTOR)  # 10.5 = 1.05 * 10.0
    assert ids(fused) == ["a", "b", "c", "d", "x", "y", "z"]
    assert [h.pinned for h in fused] == [True, True, True, False, False, False, False]
    # Pinned docs keep their RRF score.
    assert fused[0].rrf_score == pytest.approx(1 / 61, rel=1e-12)


def test_pin_does_not_fire_below_the_ratio() -> None:
    fused = fuse(pin_bm25(10.49), PIN_VECTOR)  # 1.049 * 10.0
    assert ids(fused) == ["d", "a", "x", "b", "y", "c", "z"]
    assert not any(h.pinned for h in fused)


def test_pin_ratio_none_disables_pinning() -> None:
    fused = fuse(pin_bm25(100.0), PIN_VECTOR, pin_ratio=None)
    assert ids(fused) == ["d", "a", "x", "b", "y", "c", "z"]
    assert not any(h.pinned for h in fused)


def test_pin_ratio_exact_despite_float_rounding() -> None:
    # 1.05 * 3.0 == 3.1500000000000004 in floating point; 3.15 must still pin.
    assert should_pin(hits(("a", 3.15), ("b", 3.0)))
    assert not should_pin(hits(("a", 3.147), ("b", 3.0)))


def test_custom_pin_ratio_and_depth() -> None:
    fused = fuse(pin_bm25(12.0), PIN_VECTOR, pin_ratio=1.2, pin_depth=1)
    assert ids(fused) == ["a", "d", "x", "b", "y", "c", "z"]
    assert [h.pinned for h in fused][:2] == [True, False]
    assert ids(fuse(pin_bm25(11.9), PIN_VECTOR, pin_ratio=1.2))[0] == "d"


def test_pin_depth_zero_pins_nothing() -> None:
    fused = fuse(pin_bm25(50.0), PIN_VECTOR, pin_depth=0)
    assert ids(fused) == ["d", "a", "x", "b", "y", "c", "z"]


def test_pinned_docs_in_vector_list_not_duplicated() -> None:
    bm25 = hits(("a", 20.0), ("b", 10.0), ("c", 9.0), ("e", 8.0))
    vector = hits(("c", 0.9), ("a", 0.8), ("x", 0.7), ("e", 0.6))
    fused = fuse(bm25, vector)
    # Rest after pinning a, b, c: e = 1/64 + 1/64 = 1/32, x = 1/63.
    assert ids(fused) == ["a", "b", "c", "e", "x"]
    assert len(set(ids(fused))) == len(fused)
    got = by_id(fused)
    assert got["c"].pinned and got["c"].vector_rank == 1
    assert got["c"].rrf_score == pytest.approx(1 / 63 + 1 / 61, rel=1e-12)


def test_pin_with_two_bm25_hits() -> None:
    bm25 = hits(("a", 5.0), ("b", 1.0))
    vector = hits(("c", 0.9), ("w", 0.8), ("b", 0.7))
    fused = fuse(bm25, vector)
    # RRF: a = c = 1/61, b = 1/62 + 1/63, w = 1/62. a, b pinned (only two BM25 hits); then c, w.
    assert ids(fused) == ["a", "b", "c", "w"]
    assert [h.pinned for h in fused] == [True, True, False, False]
    # Without pinning: b = 1/62 + 1/63 = 0.0320 first, then a = c = 1/61, then w.
    assert ids(fuse(bm25, vector, pin_ratio=None)) == ["b", "a", "c", "w"]


def test_pin_with_one_bm25_hit() -> None:
    bm25 = hits(("a", 0.7))
    vector = hits(("c", 0.9), ("d", 0.8), ("e", 0.7))
    fused = fuse(bm25, vector)
    assert ids(fused) == ["a", "c", "d", "e"]
    assert [h.pinned for h in fused] == [True, False, False, False]


def test_lone_bm25_hit_with_zero_score_does_not_pin() -> None:
    fused = fuse(hits(("a", 0.0)), hits(("c", 0.9)))
    assert not any(h.pinned for h in fused)


def test_should_pin_rules() -> None:
    assert not should_pin([])
    assert should_pin(hits(("a", 0.1)))
    assert not should_pin(hits(("a", 0.0)))
    assert should_pin(hits(("a", 0.5), ("b", 0.0)))
    assert not should_pin(hits(("a", 0.0), ("b", 0.0)))
    assert should_pin(hits(("a", 2.0), ("b", 1.0), ("c", 1.0)))
    assert not should_pin(hits(("a", 1.0), ("b", 1.0)))
    # A repeated doc is not a second hit: compares a (10.5) with b (10.0).
    assert should_pin(hits(("a", 10.5), ("a", 10.4), ("b", 10.0)))
    assert not should_pin(hits(("a", 10.4), ("a", 10.4), ("b", 10.0)))
    assert should_pin(hits(("a", 1.3), ("b", 1.0)), ratio=1.3)
    assert not should_pin(hits(("a", 1.29), ("b", 1.0)), ratio=1.3)


def test_limit_truncates() -> None:
    assert ids(fuse(pin_bm25(10.5), PIN_VECTOR, limit=2)) == ["a", "b"]
    assert ids(fuse(pin_bm25(10.5), PIN_VECTOR, limit=5)) == ["a", "b", "c", "d", "x"]
    assert ids(fuse(pin_bm25(1.0), PIN_VECTOR, limit=3)) == ["d", "a", "x"]
    assert fuse(pin_bm25(10.5), PIN_VECTOR, limit=0) == []
    assert len(fuse(pin_bm25(10.5), PIN_VECTOR, limit=100)) == 7


@pytest.mark.parametrize(
    "kwargs", [{"k": -1}, {"pin_depth": -1}, {"limit": -1}], ids=["k", "pin_depth", "limit"]
)
def test_rejects_negative_parameters(kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        fuse(pin_bm25(10.5), PIN_VECTOR, **kwargs)
