"""`wikifuse eval`: index a BEIR folder into its own space, run its queries, score the rankings."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from pipelines.evaluation.beir import Dataset, load_dataset
from pipelines.evaluation.metrics import mrr_at, ndcg_at, percentile, recall_at
from pipelines.ingest.progress import NoProgress, Progress
from pipelines.ingest.service import IngestService
from pipelines.search.filters import SearchFilters
from pipelines.search.service import Mode, SearchRequest, SearchResponse, SearchService

METRICS = ("ndcg@10", "recall@5", "recall@10", "recall@20", "recall@100", "mrr@10")

# What `eval` can compare: the three search modes; plain RRF (hybrid without the BM25 pin), to
# show what the pin adds; and BM25's top N re-ordered by vectors, to show why re-ranking is not
# fusion. Each names how it answers a request.
Runner = Callable[[SearchService, SearchRequest], SearchResponse]


def _searching(mode: Mode, pin_ratio: float | Literal["default"] | None = "default") -> Runner:
    return lambda search, request: search.search(replace(request, mode=mode, pin_ratio=pin_ratio))


EVAL_MODES: dict[str, Runner] = {
    "bm25": _searching("bm25"),
    "vector": _searching("vector"),
    "rrf": _searching("hybrid", None),
    "hybrid": _searching("hybrid"),
    "rerank": lambda search, request: search.rerank(request),
}


@dataclass
class EvalReport:
    dataset: str
    mode: str
    queries: int
    metrics: dict[str, float]
    latency_p50_ms: float
    latency_p95_ms: float
    by_type: dict[str, dict[str, float]] = field(default_factory=dict)
    index_seconds: float = 0.0
    embedded: int = 0
    # Query id -> the top 10 BEIR ids, for looking at single questions (not in as_json).
    rankings: dict[str, list[str]] = field(default_factory=dict)

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
    mode: str,
    split: str = "test",
    progress: Progress | None = None,
) -> EvalReport:
    """One mode; see `compare` for several over one indexing."""
    return compare(
        folder, ingest=ingest, search=search, modes=[mode], split=split, progress=progress
    )[0]


def compare(
    folder: Path,
    *,
    ingest: IngestService,
    search: SearchService,
    modes: list[str],
    split: str = "test",
    progress: Progress | None = None,
) -> list[EvalReport]:
    """Index the dataset once (embedding only when a mode needs vectors), then score each mode."""
    unknown = [mode for mode in modes if mode not in EVAL_MODES]
    if unknown or not modes:
        raise ValueError(f"unknown mode(s) {unknown}; choose from {', '.join(EVAL_MODES)}")
    progress = progress or NoProgress()
    prepared = prepare(
        folder, ingest, split, embed=any(mode != "bm25" for mode in modes), progress=progress
    )
    return [score(prepared, search, mode, EVAL_MODES[mode], progress) for mode in modes]


@dataclass
class Prepared:
    """A dataset indexed into its own space, and what that indexing cost."""

    dataset: Dataset
    space: str
    index_seconds: float
    embedded: int


def prepare(
    folder: Path, ingest: IngestService, split: str, *, embed: bool, progress: Progress
) -> Prepared:
    """Load a BEIR folder and bring its space up to date (unchanged documents cost nothing)."""
    space = eval_space(folder.resolve().name)
    dataset = load_dataset(folder, space, split)
    started = time.perf_counter()
    summary = ingest.ingest_documents(
        dataset.corpus, space, embed=embed, delete_missing=True, progress=progress
    )
    return Prepared(dataset, space, time.perf_counter() - started, summary.embedded)


def score(
    prepared: Prepared, search: SearchService, name: str, answer: Runner, progress: Progress
) -> EvalReport:
    """Run every query through `answer` and score the rankings; `name` labels the report."""
    dataset = prepared.dataset
    filters = SearchFilters(space=prepared.space)

    def run(text: str, k: int, *, snippets: bool = False) -> SearchResponse:
        return answer(search, SearchRequest(text, k=k, filters=filters, snippets=snippets))

    to_beir = dataset.corpus_ids
    per_query: dict[str, dict[str, float]] = {}
    rankings: dict[str, list[str]] = {}
    latencies: list[float] = []
    progress.stage(name, len(dataset.queries))
    for query in dataset.queries:
        began = time.perf_counter()
        top10 = run(query.text, 10, snippets=True)
        latencies.append((time.perf_counter() - began) * 1000)
        # The top-10 metrics and the latency use the configured candidate depth, as users get
        # it (snippets included); Recall@20 and Recall@100 ask for that many results (and at
        # least as many candidates from each retriever) in passes that are not timed.
        top20 = run(query.text, 20)
        top100 = run(query.text, 100)
        relevance = dataset.qrels[query.id]
        rankings[query.id] = [to_beir[r.doc_id] for r in top10.results]
        per_query[query.id] = _score(
            rankings[query.id],
            [to_beir[r.doc_id] for r in top20.results],
            [to_beir[r.doc_id] for r in top100.results],
            relevance,
        )
        # How often the BM25 pin fires, and how often its top 1 is then right.
        pinned = bool(top10.results) and top10.results[0].pinned
        per_query[query.id]["pin_fired"] = float(pinned)
        per_query[query.id]["pin_right"] = float(
            pinned and relevance.get(to_beir[top10.results[0].doc_id], 0) > 0
        )
        progress.advance()

    return EvalReport(
        dataset=dataset.name,
        mode=name,
        queries=len(dataset.queries),
        metrics=_mean(per_query.values()),
        latency_p50_ms=percentile(latencies, 0.50),
        latency_p95_ms=percentile(latencies, 0.95),
        by_type=_by_type(dataset, per_query),
        index_seconds=prepared.index_seconds,
        embedded=prepared.embedded,
        rankings=rankings,
    )


def _score(
    top10: list[str], top20: list[str], top100: list[str], relevance: dict[str, int]
) -> dict[str, float]:
    return {
        "ndcg@10": ndcg_at(top10, relevance, 10),
        "recall@5": recall_at(top10, relevance, 5),
        "recall@10": recall_at(top10, relevance, 10),
        "recall@20": recall_at(top20, relevance, 20),
        "recall@100": recall_at(top100, relevance, 100),
        "mrr@10": mrr_at(top10, relevance, 10),
    }


def _mean(rows: Iterable[dict[str, float]]) -> dict[str, float]:
    listed = list(rows)
    if not listed:
        return {}
    means = {name: sum(row[name] for row in listed) / len(listed) for name in METRICS}
    fired = sum(row["pin_fired"] for row in listed)
    means["pin_rate"] = fired / len(listed)
    # Share of pinned queries whose pinned top 1 is relevant (0 when the pin never fired).
    means["pin_top1_right"] = sum(row["pin_right"] for row in listed) / fired if fired else 0.0
    return means


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
