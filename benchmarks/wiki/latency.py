"""Search latency per mode and wiki size, with the query-embedding cache cold and warm.

    WIKIFUSE_HOME=.wikibench/home .venv/bin/python -m benchmarks.wiki.latency \
        --corpus .wikibench/corpus --sizes wiki-200,wiki-all [--limit N] \
        [--out benchmarks/wiki/results/latency.json]

Embedded mode, one process, one query at a time, k=10. Each size's space (`eval-<size>`) must
already be indexed with `wikifuse eval <corpus>/<size>`; nothing is indexed here. Timed is the
user-facing `SearchService.search` call (and, as mode `embed`, the query embedding alone).

- cold: the query-embedding cache is cleared before every vector and hybrid search;
- warm: every query is embedded once first, so vector and hybrid searches hit the cache.

Modes are interleaved per query (bm25, vector, hybrid, embed) so machine noise spreads evenly.
Rows of the sizes measured replace those already in --out; other sizes' rows are kept.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pipelines.evaluation.metrics import percentile
from pipelines.evaluation.runner import eval_space
from pipelines.logging import configure_logging
from pipelines.runtime import EmbeddedRuntime, Runtime
from pipelines.search.filters import SearchFilters
from pipelines.search.service import Mode, SearchRequest, SearchResponse
from pipelines.settings import Settings
from pipelines.stores.embedded_postgres import EmbeddedPostgresError

DEFAULT_OUT = Path("benchmarks/wiki/results/latency.json")
K = 10
WARMUP_QUERIES = 5
SEARCH_MODES: tuple[Mode, ...] = ("bm25", "vector", "hybrid")
ALL_MODES = (*SEARCH_MODES, "embed")
CACHE_STATES = ("cold", "warm")
BREAKDOWN_KEYS = ("bm25_ms", "embed_ms", "vector_ms", "total_ms")
BAR_FACTOR = 1.5

_R = TypeVar("_R")


class BenchmarkError(RuntimeError):
    """The benchmark cannot run (missing corpus folder, space not indexed...)."""


@dataclass
class SizeResult:
    """What one wiki size measured: latencies (ms) per (mode, cache) and hybrid cold timings."""

    size: str
    pages: int
    samples: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    hybrid_timings: list[dict[str, float]] = field(default_factory=list)

    def add(self, mode: str, cache: str, ms: float) -> None:
        self.samples.setdefault((mode, cache), []).append(ms)


# ------------------------------------------------------------------------------------ inputs


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True, help="folder of wiki-* folders")
    parser.add_argument("--sizes", default="wiki-200,wiki-500,wiki-1000,wiki-all")
    parser.add_argument("--limit", type=int, default=None, help="first N queries of each size")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    return args


def load_queries(folder: Path, limit: int | None) -> list[str]:
    """The non-empty query texts of a BEIR folder's queries.jsonl, in file order."""
    path = folder / "queries.jsonl"
    if not path.is_file():
        raise BenchmarkError(f"{path} not found: build the corpus first (see benchmarks/wiki)")
    with path.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    texts = [str(row["text"]).strip() for row in rows]
    texts = [text for text in texts if text]
    return texts[:limit] if limit is not None else texts


# ------------------------------------------------------------------------------------ checks


def count_pages(runtime: Runtime, folder: Path) -> int:
    """Documents in the folder's space; stops when the space has no documents or no vectors."""
    space = eval_space(folder.name)
    hint = f"run `wikifuse eval {folder}` first (with WIKIFUSE_HOME={runtime.settings.home})"
    pages = len(runtime.documents.states(space))
    if pages == 0:
        raise BenchmarkError(f"space {space!r} has no documents: {hint}")
    fingerprint = runtime.settings.vector_key(runtime.query_embedder().fingerprint)
    if not runtime.vectors.has_vectors(fingerprint, SearchFilters(space=space)):
        raise BenchmarkError(f"space {space!r} has no vectors for the current model: {hint}")
    return pages


# ------------------------------------------------------------------------------------ timing


def timed_search(runtime: Runtime, text: str, mode: Mode, space: str) -> SearchResponse:
    """One user-facing search (k=10, the space as filter)."""
    request = SearchRequest(text, mode=mode, k=K, filters=SearchFilters(space=space))
    return runtime.search.search(request)


def clock(fn: Callable[..., _R], *args: Any) -> tuple[float, _R]:
    """Wall time of one call in ms, and its result."""
    started = time.perf_counter()
    result = fn(*args)
    return (time.perf_counter() - started) * 1000, result


def warm_up(runtime: Runtime, queries: Sequence[str], space: str) -> None:
    """A few untimed searches per mode: model loading and first connections are not timed.
    Also checks the vector side really answers for this space."""
    for text in queries[:WARMUP_QUERIES]:
        for mode in SEARCH_MODES:
            response = timed_search(runtime, text, mode, space)
            if mode == "vector" and not response.results:
                notes = "; ".join(response.notes) or "no results"
                raise BenchmarkError(f"vector search in {space!r} found nothing ({notes})")
        runtime.embedder().embed_query(text)
    runtime.query_embedder().clear()


def measure_cold(runtime: Runtime, queries: Sequence[str], space: str, result: SizeResult) -> None:
    """Per query: bm25, vector, hybrid (cache cleared before each), then the bare embedding."""
    cache = runtime.query_embedder()
    embedder = runtime.embedder()
    hits = cache.hits
    for text in queries:
        for mode in SEARCH_MODES:
            cache.clear()
            ms, response = clock(timed_search, runtime, text, mode, space)
            result.add(mode, "cold", ms)
            if mode == "hybrid":
                result.hybrid_timings.append(dict(response.timings_ms))
        ms, _ = clock(embedder.embed_query, text)
        result.add("embed", "cold", ms)
    cache.clear()
    if cache.hits != hits:
        raise BenchmarkError(f"cold run: {cache.hits - hits} query-embedding cache hits")


def measure_warm(runtime: Runtime, queries: Sequence[str], space: str, result: SizeResult) -> None:
    """Every query embedded once first, then per query: bm25, vector, hybrid (cache hits)."""
    cache = runtime.query_embedder()
    for text in queries:
        cache.embed(text)
    misses = cache.misses
    for text in queries:
        for mode in SEARCH_MODES:
            ms, _ = clock(timed_search, runtime, text, mode, space)
            result.add(mode, "warm", ms)
    if cache.misses != misses:
        raise BenchmarkError(
            f"warm run: {cache.misses - misses} cache misses; the cache ({len(cache)} entries) "
            "is smaller than the query set"
        )


def measure_size(runtime: Runtime, size: str, queries: Sequence[str], pages: int) -> SizeResult:
    """Cold then warm measurements of one wiki size."""
    space = eval_space(size)
    result = SizeResult(size, pages)
    warm_up(runtime, queries, space)
    measure_cold(runtime, queries, space, result)
    measure_warm(runtime, queries, space, result)
    return result


# ----------------------------------------------------------------------------------- summary


def summary_rows(result: SizeResult) -> list[dict[str, Any]]:
    """One JSON row per (mode, cache) measured, in a fixed order."""
    rows = []
    for cache in CACHE_STATES:
        for mode in ALL_MODES:
            values = result.samples.get((mode, cache))
            if not values:
                continue
            rows.append(
                {
                    "size": result.size,
                    "pages": result.pages,
                    "mode": mode,
                    "cache": cache,
                    "queries": len(values),
                    "p50_ms": round(percentile(values, 0.5), 3),
                    "p95_ms": round(percentile(values, 0.95), 3),
                    "mean_ms": round(statistics.fmean(values), 3),
                }
            )
    return rows


def breakdown(result: SizeResult) -> dict[str, float]:
    """Median of each part of hybrid cold searches (keys a search did not time are skipped)."""
    medians = {}
    for key in BREAKDOWN_KEYS:
        values = [timings[key] for timings in result.hybrid_timings if key in timings]
        if values:
            medians[key] = round(statistics.median(values), 3)
    return medians


def bar_check(rows: Sequence[dict[str, Any]]) -> str:
    """hybrid p95 <= 1.5 x max(bm25 p95, embed p95), all cold: the verdict with its numbers."""
    p95 = {row["mode"]: row["p95_ms"] for row in rows if row["cache"] == "cold"}
    limit = BAR_FACTOR * max(p95["bm25"], p95["embed"])
    verdict = "holds" if p95["hybrid"] <= limit else "does not hold"
    return (
        f"bar (cold): hybrid p95 {p95['hybrid']:.2f} ms <= {BAR_FACTOR} x max(bm25 p95 "
        f"{p95['bm25']:.2f}, embed p95 {p95['embed']:.2f}) = {limit:.2f} ms: {verdict}"
    )


def print_size(result: SizeResult, rows: Sequence[dict[str, Any]], parts: dict[str, float]) -> None:
    """The table of one size, the bar check and the hybrid cold breakdown."""
    print(f"\n{result.size}: {result.pages} pages, {rows[0]['queries']} queries, k={K}")
    print(f"  {'mode':<8}{'cache':<7}{'p50 ms':>9}{'p95 ms':>9}{'mean ms':>9}")
    for row in rows:
        print(
            f"  {row['mode']:<8}{row['cache']:<7}"
            f"{row['p50_ms']:>9.2f}{row['p95_ms']:>9.2f}{row['mean_ms']:>9.2f}"
        )
    print(f"  {bar_check(rows)}")
    shown = ", ".join(f"{key} {value:.2f}" for key, value in parts.items())
    print(f"  hybrid cold timings_ms medians: {shown}")
    if all(key in parts for key in BREAKDOWN_KEYS):
        # BM25 runs on the pool while this thread embeds and asks pgvector.
        rest = parts["total_ms"] - max(parts["bm25_ms"], parts["embed_ms"] + parts["vector_ms"])
        print(f"  rest of total (document fetch, fusion, snippets): about {rest:.2f} ms")


# ------------------------------------------------------------------------------------ output


def machine() -> dict[str, Any]:
    """Where and when this ran."""
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def merge_results(
    out: Path, runs: list[dict[str, Any]], parts: dict[str, dict[str, float]]
) -> dict[str, Any]:
    """The out file's content with this run's sizes replaced and other sizes kept."""
    previous: dict[str, Any] = {}
    if out.is_file():
        previous = json.loads(out.read_text(encoding="utf-8"))
    measured = set(parts)
    kept_runs = [row for row in previous.get("runs", []) if row.get("size") not in measured]
    kept_parts = {
        size: value for size, value in previous.get("breakdown", {}).items() if size not in measured
    }
    mode_order = {mode: i for i, mode in enumerate(ALL_MODES)}
    all_runs = sorted(
        [*kept_runs, *runs],
        key=lambda row: (
            row.get("pages", 0),
            str(row.get("size")),
            CACHE_STATES.index(row["cache"]) if row.get("cache") in CACHE_STATES else 9,
            mode_order.get(row.get("mode", ""), 9),
        ),
    )
    all_parts = {**kept_parts, **parts}
    order = list(dict.fromkeys([*(str(row.get("size")) for row in all_runs), *all_parts]))
    ordered_parts = {size: all_parts[size] for size in order if size in all_parts}
    return {"machine": machine(), "runs": all_runs, "breakdown": ordered_parts}


def write_results(out: Path, content: dict[str, Any]) -> None:
    """Write the JSON (creating its folder)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")


# -------------------------------------------------------------------------------------- main


def open_embedded(largest_query_set: int) -> EmbeddedRuntime:
    """The embedded runtime of WIKIFUSE_HOME, its query cache big enough for every query."""
    defaults = Settings()
    return EmbeddedRuntime(
        Settings(query_cache_size=max(defaults.query_cache_size, largest_query_set))
    )


def run(args: argparse.Namespace) -> None:
    """Measure every size asked for, print the tables, write the JSON."""
    sizes = [size.strip() for size in args.sizes.split(",") if size.strip()]
    if not sizes:
        raise BenchmarkError("--sizes lists no size")
    queries = {size: load_queries(args.corpus / size, args.limit) for size in sizes}
    runs: list[dict[str, Any]] = []
    parts: dict[str, dict[str, float]] = {}
    with open_embedded(max(len(texts) for texts in queries.values())) as runtime:
        print(f"home {runtime.settings.home}, {os.cpu_count()} cpus")
        for size in sizes:
            pages = count_pages(runtime, args.corpus / size)
            result = measure_size(runtime, size, queries[size], pages)
            rows = summary_rows(result)
            parts[size] = breakdown(result)
            print_size(result, rows, parts[size])
            runs.extend(rows)
    write_results(args.out, merge_results(args.out, runs, parts))
    print(f"\nwrote {args.out}")


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: quiet logs, run, turn known failures into a one-line error."""
    configure_logging("ERROR")
    try:
        run(parse_args(argv))
    except (BenchmarkError, EmbeddedPostgresError) as error:
        sys.exit(f"error: {error}")


if __name__ == "__main__":
    main()
