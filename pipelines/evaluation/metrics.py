"""Ranking metrics as BEIR/pytrec_eval define them (linear gain nDCG, binary relevance > 0)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def _unique(ranked: Sequence[str]) -> list[str]:
    """A document counts once, at its best position."""
    return list(dict.fromkeys(ranked))


def ndcg_at(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> float:
    dcg = sum(
        max(relevance.get(doc_id, 0), 0) / math.log2(position + 2)
        for position, doc_id in enumerate(_unique(ranked)[:k])
    )
    ideal = sorted((grade for grade in relevance.values() if grade > 0), reverse=True)[:k]
    idcg = sum(grade / math.log2(position + 2) for position, grade in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> float:
    relevant = {doc_id for doc_id, grade in relevance.items() if grade > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(_unique(ranked)[:k])) / len(relevant)


def mrr_at(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> float:
    for position, doc_id in enumerate(_unique(ranked)[:k]):
        if relevance.get(doc_id, 0) > 0:
            return 1.0 / (position + 1)
    return 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
