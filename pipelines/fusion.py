"""Reciprocal Rank Fusion of the BM25 and vector result lists, with the BM25 pin.

Pure functions, no I/O. Each retriever's result is a list of :class:`Hit`, best first; its
position in the list is its rank (1 = best). The caller has already cut each list to its top N.

RRF: ``score(d) = sum(1 / (k + rank))`` over the lists that contain ``d``.

The BM25 pin: when BM25's best hit is clearly ahead of its second one (see :func:`should_pin`),
an exact keyword match (an error code, a config key) is a stronger signal than any semantic
neighbour, so BM25's top ``pin_depth`` documents are put first, in BM25 order, and everything
else follows in RRF order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

RRF_K = 60
PIN_RATIO = 1.05
PIN_DEPTH = 3

# Relative tolerance for the pin ratio, so that a top score at exactly ``ratio`` times the second
# one pins despite floating-point rounding of ``ratio * second`` (1.05 is not exact in binary).
_PIN_REL_TOL = 1e-9


@dataclass(frozen=True)
class Hit:
    """One retriever's result; the list order is the rank (best first)."""

    doc_id: str
    score: float


@dataclass(frozen=True)
class FusedHit:
    """A fused result with where it came from; ranks are 1-based, None when absent from a list."""

    doc_id: str
    rrf_score: float
    bm25_rank: int | None
    bm25_score: float | None
    vector_rank: int | None
    vector_score: float | None
    pinned: bool


def _first_occurrences(hits: Sequence[Hit]) -> dict[str, tuple[int, float]]:
    """doc_id -> (rank, score) at the doc's first (best) position; later repeats are ignored.

    Ranks are list positions, so a repeat leaves a gap: in [a, a, b], b has rank 3.
    """
    seen: dict[str, tuple[int, float]] = {}
    for position, hit in enumerate(hits, start=1):
        if hit.doc_id not in seen:
            seen[hit.doc_id] = (position, hit.score)
    return seen


def _distinct(hits: Sequence[Hit]) -> list[Hit]:
    """The hits without repeated doc ids, each kept at its first position."""
    seen: set[str] = set()
    out: list[Hit] = []
    for hit in hits:
        if hit.doc_id not in seen:
            seen.add(hit.doc_id)
            out.append(hit)
    return out


def should_pin(bm25: Sequence[Hit], ratio: float = PIN_RATIO) -> bool:
    """Whether BM25's top hits are pinned above the RRF order.

    Looks at the first two distinct documents of ``bm25`` (a repeated doc id is not a second
    hit):

    - no hits: no pin;
    - one hit: pins when its score is > 0. There is no second score to compare with, so the top
      hit is infinitely far ahead of it; a lone keyword hit (an exact identifier) is a strong
      signal;
    - two or more: pins when ``top >= ratio * second`` (with a 1e-9 relative tolerance so that
      exactly ``ratio`` pins); when the second score is <= 0, pins when the top score is > 0.

    A top score <= 0 never pins.
    """
    distinct = _distinct(bm25)
    if not distinct:
        return False
    top = distinct[0].score
    if top <= 0:
        return False
    if len(distinct) == 1:
        return True
    second = distinct[1].score
    if second <= 0:
        return True
    threshold = ratio * second
    return top >= threshold or math.isclose(top, threshold, rel_tol=_PIN_REL_TOL)


def fuse(
    bm25: Sequence[Hit],
    vector: Sequence[Hit],
    *,
    k: int = RRF_K,
    pin_ratio: float | None = PIN_RATIO,
    pin_depth: int = PIN_DEPTH,
    limit: int | None = None,
) -> list[FusedHit]:
    """Fuse the two result lists with RRF, pinning BM25's top hits when :func:`should_pin` says so.

    - A doc id repeated within one list counts only at its first (best) rank.
    - Pin: when ``pin_ratio`` is not None and ``should_pin(bm25, pin_ratio)``, BM25's top
      ``pin_depth`` distinct documents (fewer if BM25 has fewer) come first, in BM25 order,
      with ``pinned=True``. The rest follow in RRF order; no document appears twice. A pinned
      document keeps its full RRF score (vector contribution included). ``pin_ratio=None``
      disables pinning: RRF alone decides.
    - Ties in RRF score are broken, in order, by: the lower best rank in either list; then the
      doc whose best rank is its BM25 rank (BM25 before vector, so at equal best rank the
      keyword hit wins); then doc_id. The order is fully deterministic.
    - ``limit`` truncates the output (None: no limit).
    """
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if pin_depth < 0:
        raise ValueError(f"pin_depth must be >= 0, got {pin_depth}")
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")

    bm25_at = _first_occurrences(bm25)
    vector_at = _first_occurrences(vector)

    fused: dict[str, FusedHit] = {}
    sort_keys: dict[str, tuple[float, int, int, str]] = {}
    # BM25 first so that dict order (and thus any debugging output) starts with keyword hits.
    for doc_id in [*bm25_at, *(d for d in vector_at if d not in bm25_at)]:
        bm25_rank, bm25_score = bm25_at.get(doc_id, (None, None))
        vector_rank, vector_score = vector_at.get(doc_id, (None, None))
        score = 0.0
        if bm25_rank is not None:
            score += 1.0 / (k + bm25_rank)
        if vector_rank is not None:
            score += 1.0 / (k + vector_rank)
        fused[doc_id] = FusedHit(
            doc_id=doc_id,
            rrf_score=score,
            bm25_rank=bm25_rank,
            bm25_score=bm25_score,
            vector_rank=vector_rank,
            vector_score=vector_score,
            pinned=False,
        )
        best_rank = min(r for r in (bm25_rank, vector_rank) if r is not None)
        best_from_bm25 = 0 if bm25_rank == best_rank else 1
        sort_keys[doc_id] = (-score, best_rank, best_from_bm25, doc_id)

    rrf_order = sorted(fused, key=sort_keys.__getitem__)

    pinned_ids: list[str] = []
    if pin_ratio is not None and pin_depth > 0 and should_pin(bm25, pin_ratio):
        pinned_ids = list(bm25_at)[:pin_depth]  # dicts keep insertion (= BM25) order

    pinned_set = set(pinned_ids)
    result = [replace(fused[d], pinned=True) for d in pinned_ids]
    result.extend(fused[d] for d in rrf_order if d not in pinned_set)
    if limit is not None:
        del result[limit:]
    return result
