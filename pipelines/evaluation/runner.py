"""`wikifuse eval`: index a BEIR folder into its own space, run its queries, score the rankings."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pipelines.evaluation.beir import Dataset, load_dataset
from pipelines.evaluation.metrics import mrr_at, ndcg_at, percentile, recall_at
from pipelines.ingest.progress import NoProgress, Progress
from pipelines.ingest.service import IngestService
from pipelines.search.filters import SearchFilters
from pipelines.search.service import Mode, SearchRequest, SearchService

METRICS = ("ndcg@10", "recall@5", "recall@10", "recall@100", "mrr@10")


@dataclass
class EvalReport:
    dataset: str
    mode: Mode
    queries: int
    metrics: dict[str, float]
    latency_p50_ms: float
    latency_p95_ms: float
    by_type: dict[str, dict[str, float]] = field(default_factory=dict)
    index_seconds: float = 0.0
    embedded: int = 0

    def as_json(self) -> dict[str, object]:
        return {
            **{name: round(value, 4) for name, value in self.metrics.items()},
            "latency_p50_ms": round(self.latency_p50_ms, 2),
            "latency_p95_ms": round(self.latency_p95_ms, 2),
            "queries": self.queries,
            "mode": self.mode,
            "dataset": self.dataset,
            "by_type": {
                kind: {name: round(value, 4) for name, value in values.items()}
                for kind, values in self.by_type.items()
            },
            "index_seconds": round(self.index_seconds, 2),
            "embedded": self.embedded,
        }


def eval_space(dataset_name: str) -> str:
    return f"eval-{dataset_name}"


def run_eval(
    folder: Path,
    *,
    ingest: IngestService,
    search: SearchService,
    mode: Mode,
    split: str = "test",
    progress: Progress | None = None,
) -> EvalReport:
    progress = progress or NoProgress()
    space = eval_space(folder.resolve().name)
    dataset = load_dataset(folder, space, split)
    started = time.perf_counter()
    summary = ingest.ingest_documents(
        dataset.corpus, space, embed=mode != "bm25", delete_missing=True, progress=progress
    )
    index_seconds = time.perf_counter() - started

    to_beir = dataset.corpus_ids
    filters = SearchFilters(space=space)
    per_query: dict[str, dict[str, float]] = {}
    latencies: list[float] = []
    progress.stage("queries", len(dataset.queries))
    for query in dataset.queries:
        began = time.perf_counter()
        top10 = search.search(SearchRequest(query.text, mode=mode, k=10, filters=filters))
        latencies.append((time.perf_counter() - began) * 1000)
        # Recall@100 asks each retriever for 100 candidates; the top-10 metrics and latency above
        # use the configured candidate depth, as users get it.
        top100 = search.search(SearchRequest(query.text, mode=mode, k=100, filters=filters))
        per_query[query.id] = _score(
            [to_beir[r.doc_id] for r in top10.results],
            [to_beir[r.doc_id] for r in top100.results],
            dataset.qrels[query.id],
        )
        progress.advance()

    return EvalReport(
        dataset=dataset.name,
        mode=mode,
        queries=len(dataset.queries),
        metrics=_mean(per_query.values()),
        latency_p50_ms=percentile(latencies, 0.50),
        latency_p95_ms=percentile(latencies, 0.95),
        by_type=_by_type(dataset, per_query),
        index_seconds=index_seconds,
        embedded=summary.embedded,
    )


def _score(top10: list[str], top100: list[str], relevance: dict[str, int]) -> dict[str, float]:
    return {
        "ndcg@10": ndcg_at(top10, relevance, 10),
        "recall@5": recall_at(top10, relevance, 5),
        "recall@10": recall_at(top10, relevance, 10),
        "recall@100": recall_at(top100, relevance, 100),
        "mrr@10": mrr_at(top10, relevance, 10),
    }


def _mean(rows: Iterable[dict[str, float]]) -> dict[str, float]:
    listed = list(rows)
    return (
        {name: sum(row[name] for row in listed) / len(listed) for name in METRICS} if listed else {}
    )


def _by_type(
    dataset: Dataset, per_query: dict[str, dict[str, float]]
) -> dict[str, dict[str, float]]:
    groups: dict[str, list[dict[str, float]]] = {}
    for query in dataset.queries:
        if query.type:
            groups.setdefault(query.type, []).append(per_query[query.id])
    return {
        kind: {**_mean(rows), "queries": float(len(rows))} for kind, rows in sorted(groups.items())
    }
