"""How much the question review changes the results, without searching again.

    .venv/bin/python -m benchmarks.wiki.reviewed --corpus .wikibench/corpus \\
        --rankings .wikibench --review benchmarks/wiki/review --out benchmarks/wiki/results

The review (benchmarks/wiki/review/*.jsonl) gives each question a verdict: ok, ambiguous
(another page answers it about as well), mislabelled (another page answers it better) or
unanswerable. From the rankings that `benchmarks.wiki.run` saved, this scores every run three
ways: as labelled; on the questions judged ok only; and leniently, where the pages the review
names as answers count as right too (Hit@5: a right page in the top 5). Writes
reviewed-<size>.json per size.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from pathlib import Path

from pipelines.evaluation.beir import DatasetError, load_dataset
from pipelines.evaluation.metrics import mrr_at, recall_at

VERDICTS = ("ok", "ambiguous", "mislabelled", "unanswerable")


def load_review(folder: Path) -> dict[str, dict[str, object]]:
    """Question id -> its verdict row; every row must carry a known verdict."""
    review: dict[str, dict[str, object]] = {}
    for path in sorted(folder.glob("*.jsonl")):
        for line_number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            row = json.loads(line)
            if row.get("verdict") not in VERDICTS:
                raise DatasetError(f"{path.name}:{line_number}: unknown verdict {row!r}")
            review[str(row["id"])] = row
    return review


def score_views(
    rankings: dict[str, list[str]],
    qrels: dict[str, dict[str, int]],
    types: dict[str, str],
    review: dict[str, dict[str, object]],
) -> dict[str, dict[str, float]]:
    """Per type (and "all"): R@5 and MRR@10 as labelled, the same on ok questions only, and
    lenient Hit@5 / MRR@10 with the review's extra answers counted as right."""
    rows: dict[str, list[dict[str, float]]] = {}
    for query_id, ranked in rankings.items():
        labelled = qrels[query_id]
        verdict = review.get(query_id, {}).get("verdict")
        also = review.get(query_id, {}).get("also")
        extra = [str(page) for page in also] if isinstance(also, list) else []
        lenient = {**labelled, **dict.fromkeys(extra, 1)}
        row = {
            "recall@5": recall_at(ranked, labelled, 5),
            "mrr@10": mrr_at(ranked, labelled, 10),
            "hit@5 lenient": float(any(lenient.get(page, 0) > 0 for page in ranked[:5])),
            "mrr@10 lenient": mrr_at(ranked, lenient, 10),
            "ok": float(verdict in (None, "ok")),
        }
        for group in (types.get(query_id, "untyped"), "all"):
            rows.setdefault(group, []).append(row)
    return {group: _summarise(group_rows) for group, group_rows in rows.items()}


def _summarise(rows: list[dict[str, float]]) -> dict[str, float]:
    ok_rows = [row for row in rows if row["ok"]]
    summary = {
        "questions": float(len(rows)),
        "questions ok": float(len(ok_rows)),
        "recall@5": _mean(row["recall@5"] for row in rows),
        "mrr@10": _mean(row["mrr@10"] for row in rows),
        "recall@5 ok only": _mean(row["recall@5"] for row in ok_rows),
        "mrr@10 ok only": _mean(row["mrr@10"] for row in ok_rows),
        "hit@5 lenient": _mean(row["hit@5 lenient"] for row in rows),
        "mrr@10 lenient": _mean(row["mrr@10 lenient"] for row in rows),
    }
    return {name: round(value, 4) for name, value in summary.items()}


def _mean(values: Iterable[float]) -> float:
    listed = list(values)
    return sum(listed) / len(listed) if listed else 0.0


def verdict_counts(
    review: dict[str, dict[str, object]], types: dict[str, str]
) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    for query_id, row in review.items():
        kind = types.get(query_id, "untyped")
        counts.setdefault(kind, dict.fromkeys(VERDICTS, 0))[str(row["verdict"])] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path(".wikibench/corpus"))
    parser.add_argument("--rankings", type=Path, default=Path(".wikibench"))
    parser.add_argument("--review", type=Path, default=Path("benchmarks/wiki/review"))
    parser.add_argument("--out", type=Path, default=Path("benchmarks/wiki/results"))
    args = parser.parse_args()
    review = load_review(args.review)
    for rankings_path in sorted(args.rankings.glob("rankings-*.json")):
        size = rankings_path.stem.removeprefix("rankings-")
        dataset = load_dataset(args.corpus / size, f"eval-{size}")
        qrels = dataset.qrels
        types = {query.id: query.type or "untyped" for query in dataset.queries}
        runs = json.loads(rankings_path.read_text())
        result = {
            "size": size,
            "reviewed": len(review),
            "verdicts": verdict_counts(review, types),
            "runs": {name: score_views(r, qrels, types, review) for name, r in runs.items()},
        }
        path = args.out / f"reviewed-{size}.json"
        path.write_text(json.dumps(result, indent=1) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
