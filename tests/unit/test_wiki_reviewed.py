"""The review's effect on the wiki results, scored from saved rankings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.wiki.reviewed import load_review, score_views
from pipelines.evaluation.beir import DatasetError

QRELS = {"q1": {"p1": 1}, "q2": {"p2": 1}, "q3": {"p3": 1}}
TYPES = {"q1": "paraphrase", "q2": "paraphrase", "q3": "identifier"}
RANKINGS = {
    "q1": ["p1", "x", "y"],  # right at 1
    "q2": ["x", "alt2", "y", "z", "w", "p2"],  # labelled page at 6, an equal answer at 2
    "q3": ["y", "p3"],  # right at 2
}
REVIEW: dict[str, dict[str, object]] = {
    "q1": {"verdict": "ok", "also": []},
    "q2": {"verdict": "ambiguous", "also": ["alt2"]},
    "q3": {"verdict": "ok", "also": []},
}


def test_scores_as_labelled_on_ok_questions_and_leniently() -> None:
    views = score_views(RANKINGS, QRELS, TYPES, REVIEW)
    para = views["paraphrase"]
    assert para["questions"] == 2 and para["questions ok"] == 1
    assert para["recall@5"] == 0.5  # q1 found, q2's label at 6
    assert para["recall@5 ok only"] == 1.0  # q2 left out
    assert para["hit@5 lenient"] == 1.0  # alt2 at 2 counts for q2
    assert para["mrr@10 lenient"] == 0.75  # (1 + 1/2) / 2
    assert views["all"]["mrr@10"] == round((1 + 1 / 6 + 1 / 2) / 3, 4)


def test_unreviewed_questions_count_as_ok() -> None:
    views = score_views(RANKINGS, QRELS, TYPES, {})
    assert views["all"]["questions ok"] == 3


def test_unknown_verdict_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "part.jsonl").write_text(json.dumps({"id": "q1", "verdict": "maybe"}) + "\n")
    with pytest.raises(DatasetError, match="unknown verdict"):
        load_review(tmp_path)
