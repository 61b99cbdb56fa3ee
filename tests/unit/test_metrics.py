"""nDCG, recall, MRR and percentile against values worked out by hand (and numpy)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pipelines.evaluation.metrics import mrr_at, ndcg_at, percentile, recall_at

# ------------------------------------------------------------------------------------------ nDCG


def test_ndcg_perfect_ranking_is_one() -> None:
    assert ndcg_at(["a", "b", "x"], {"a": 1, "b": 1}, 10) == pytest.approx(1.0)


def test_ndcg_single_relevant_at_rank_two() -> None:
    # DCG = 1 / log2(3); ideal DCG = 1 / log2(2) = 1.
    assert ndcg_at(["x", "a", "y"], {"a": 1}, 10) == pytest.approx(1 / math.log2(3))
    assert ndcg_at(["x", "a", "y"], {"a": 1}, 10) == pytest.approx(0.6309297535714575)


def test_ndcg_two_relevant_at_ranks_one_and_three() -> None:
    # DCG = 1 + 1/log2(4) = 1.5; ideal = 1 + 1/log2(3).
    expected = 1.5 / (1 + 1 / math.log2(3))
    assert ndcg_at(["a", "x", "b"], {"a": 1, "b": 1}, 10) == pytest.approx(expected)
    assert expected == pytest.approx(0.9197207891481876)


def test_ndcg_graded_relevance_uses_linear_gain() -> None:
    relevance = {"a": 2, "b": 1}
    # Worse order: b (gain 1) first, a (gain 2) second.
    dcg = 1 / math.log2(2) + 2 / math.log2(3)
    idcg = 2 / math.log2(2) + 1 / math.log2(3)
    assert ndcg_at(["b", "a"], relevance, 10) == pytest.approx(dcg / idcg)
    assert ndcg_at(["a", "b"], relevance, 10) == pytest.approx(1.0)
    assert ndcg_at(["b", "a"], relevance, 10) < 1.0


def test_ndcg_graded_ideal_uses_highest_grades_first() -> None:
    relevance = {"a": 1, "b": 3, "c": 2}
    # Only a is retrieved, at rank 1: DCG = 1. Ideal: 3, 2, 1.
    idcg = 3 + 2 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at(["a"], relevance, 10) == pytest.approx(1 / idcg)


def test_ndcg_cuts_at_k() -> None:
    ranked = [f"x{i}" for i in range(10)] + ["a"]
    assert ndcg_at(ranked, {"a": 1}, 10) == 0.0
    assert ndcg_at(ranked, {"a": 1}, 11) == pytest.approx(1 / math.log2(12))


def test_ndcg_ideal_is_cut_at_k_too() -> None:
    # Three relevant documents but k=2: the two retrieved fill the ideal list.
    assert ndcg_at(["a", "b"], {"a": 1, "b": 1, "c": 1}, 2) == pytest.approx(1.0)
    # At k=3 the missing third one counts.
    idcg3 = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at(["a", "b"], {"a": 1, "b": 1, "c": 1}, 3) == pytest.approx(
        (1 + 1 / math.log2(3)) / idcg3
    )


def test_ndcg_ignores_zero_grades() -> None:
    assert ndcg_at(["a", "b"], {"a": 0, "b": 1}, 10) == pytest.approx(1 / math.log2(3))


@pytest.mark.parametrize("relevance", [{}, {"a": 0, "b": 0}])
def test_metrics_are_zero_without_relevant_documents(relevance: dict[str, int]) -> None:
    ranked = ["a", "b"]
    assert ndcg_at(ranked, relevance, 10) == 0.0
    assert recall_at(ranked, relevance, 10) == 0.0
    assert mrr_at(ranked, relevance, 10) == 0.0


def test_metrics_are_zero_for_an_empty_ranking() -> None:
    assert ndcg_at([], {"a": 1}, 10) == 0.0
    assert recall_at([], {"a": 1}, 10) == 0.0
    assert mrr_at([], {"a": 1}, 10) == 0.0


# ---------------------------------------------------------------------------------------- recall


def test_recall_counts_relevant_found_in_top_k() -> None:
    relevance = {"a": 1, "b": 2, "c": 1}
    ranked = ["a", "x", "b", "y", "z", "c"]
    assert recall_at(ranked, relevance, 5) == pytest.approx(2 / 3)
    assert recall_at(ranked, relevance, 6) == pytest.approx(1.0)
    assert recall_at(ranked, relevance, 1) == pytest.approx(1 / 3)


def test_recall_is_binary_on_grade_above_zero() -> None:
    # a has grade 0: not relevant, so not in the denominator either.
    assert recall_at(["a", "b"], {"a": 0, "b": 1, "c": 1}, 10) == pytest.approx(0.5)


# ------------------------------------------------------------------------------------------- MRR


@pytest.mark.parametrize(("rank", "expected"), [(1, 1.0), (2, 0.5), (3, 1 / 3), (10, 0.1)])
def test_mrr_is_reciprocal_of_first_relevant_rank(rank: int, expected: float) -> None:
    ranked = [f"x{i}" for i in range(rank - 1)] + ["a", "b"]
    assert mrr_at(ranked, {"a": 1, "b": 1}, 10) == pytest.approx(expected)


def test_mrr_beyond_k_is_zero() -> None:
    ranked = [f"x{i}" for i in range(10)] + ["a"]
    assert mrr_at(ranked, {"a": 1}, 10) == 0.0
    assert mrr_at(ranked, {"a": 1}, 11) == pytest.approx(1 / 11)


def test_mrr_skips_zero_grade_documents() -> None:
    assert mrr_at(["a", "b"], {"a": 0, "b": 3}, 10) == pytest.approx(0.5)


# ------------------------------------------------------------------------------------ percentile


@pytest.mark.parametrize(
    "values",
    [
        [5.0],
        [1.0, 2.0],
        [3.0, 1.0, 2.0],
        [10.0, 1.0, 7.5, 3.25, 3.25, 99.0, 0.5],
        [float(x) for x in range(1, 101)],
        [12.7, 3.1, 8.8, 45.0, 0.2, 19.9, 7.7, 7.7, 31.4, 2.6, 5.0],
    ],
)
@pytest.mark.parametrize("q", [0.0, 0.1, 0.25, 0.5, 0.9, 0.95, 0.99, 1.0])
def test_percentile_matches_numpy_default(values: list[float], q: float) -> None:
    assert percentile(values, q) == pytest.approx(float(np.percentile(values, q * 100)))


def test_percentile_hand_computed() -> None:
    # Sorted [1, 2, 3, 4]; position (4-1)*0.5 = 1.5 -> 2 + (3-2)*0.5.
    assert percentile([4.0, 1.0, 3.0, 2.0], 0.5) == pytest.approx(2.5)
    # position 3*0.95 = 2.85 -> 3 + (4-3)*0.85.
    assert percentile([4.0, 1.0, 3.0, 2.0], 0.95) == pytest.approx(3.85)
    assert percentile([4.0, 1.0, 3.0, 2.0], 0.0) == 1.0
    assert percentile([4.0, 1.0, 3.0, 2.0], 1.0) == 4.0


def test_percentile_of_nothing_is_zero() -> None:
    assert percentile([], 0.5) == 0.0


def test_percentile_does_not_sort_its_input_in_place() -> None:
    values = [3.0, 1.0, 2.0]
    percentile(values, 0.5)
    assert values == [3.0, 1.0, 2.0]
