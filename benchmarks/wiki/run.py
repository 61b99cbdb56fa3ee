"""Score the wiki benchmark at every size: the modes, the pin ratios, the candidate depths, and
page- versus section-level embeddings. Writes one results file per size.

    WIKIFUSE_HOME=.wikibench/home .venv/bin/python -m benchmarks.wiki.run \\
        --corpus .wikibench/corpus --sizes wiki-200,wiki-500,wiki-1000,wiki-all

Each size is indexed into its own space once per granularity (unchanged pages are not indexed
again on a later run), then every run scores the same 520 questions with `wikifuse eval`'s
scorer. Results go to benchmarks/wiki/results/quality-<size>.json; each run's top 10 per
question goes to .wikibench/rankings-<size>.json for reading single questions.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from pipelines.evaluation.runner import EVAL_MODES, EvalReport, Runner, prepare, score
from pipelines.ingest.progress import Progress
from pipelines.logging import configure_logging
from pipelines.runtime import EmbeddedRuntime, Runtime
from pipelines.search.service import SearchRequest, SearchResponse, SearchService
from pipelines.settings import Settings

SIZES = ("wiki-200", "wiki-500", "wiki-1000", "wiki-all")
PIN_RATIOS = (1.1, 1.2, 1.5)  # 1.05 is "hybrid", no pin is "rrf"
DEPTHS = (50, 100)  # 20 is "hybrid"
MODES = ("bm25", "vector", "rrf", "hybrid", "rerank")
SECTION_MODES = ("vector", "rrf", "hybrid")


def hybrid_with(*, pin_ratio: float | None = None, candidates: int | None = None) -> Runner:
    """Hybrid search with another pin ratio or candidate depth than the configured ones."""

    def answer(search: SearchService, request: SearchRequest) -> SearchResponse:
        changed = replace(request, mode="hybrid", candidates=candidates)
        if pin_ratio is not None:
            changed = replace(changed, pin_ratio=pin_ratio)
        return search.search(changed)

    return answer


@dataclass(frozen=True)
class Run:
    """One scored configuration: how it answers, and what it changes from the defaults."""

    answer: Runner
    mode: str
    pin_ratio: float | Literal["default"] | None = "default"
    candidates: int | None = None

    def config(self, settings: Settings, granularity: str) -> dict[str, object]:
        return {
            "mode": self.mode,
            "pin_ratio": settings.pin_ratio if self.pin_ratio == "default" else self.pin_ratio,
            "candidates": self.candidates or settings.candidates,
            "granularity": granularity,
        }


def page_runs() -> dict[str, Run]:
    runs = {
        "bm25": Run(EVAL_MODES["bm25"], "bm25", None),
        "vector": Run(EVAL_MODES["vector"], "vector", None),
        "rrf": Run(EVAL_MODES["rrf"], "hybrid", None),
        "hybrid": Run(EVAL_MODES["hybrid"], "hybrid"),
        "rerank": Run(EVAL_MODES["rerank"], "rerank", None),
    }
    for ratio in PIN_RATIOS:
        runs[f"hybrid pin={ratio}"] = Run(hybrid_with(pin_ratio=ratio), "hybrid", ratio)
    for depth in DEPTHS:
        runs[f"hybrid N={depth}"] = Run(hybrid_with(candidates=depth), "hybrid", candidates=depth)
    return runs


def section_runs(page: dict[str, Run]) -> dict[str, Run]:
    return {f"{mode} sections": page[mode] for mode in SECTION_MODES}


def measure_size(
    folder: Path, runtime: Runtime, sections: Runtime | None, progress: Progress
) -> tuple[dict[str, object], dict[str, dict[str, list[str]]]]:
    """Every run on one wiki size: its results file and its rankings."""
    reports: dict[str, tuple[EvalReport, Run, str]] = {}
    runs = page_runs()
    prepared = prepare(folder, runtime.ingest, "test", embed=True, progress=progress)
    for name, run in runs.items():
        report = score(prepared, runtime.search, name, run.answer, progress)
        reports[name] = (report, run, "page")
    if sections is not None:
        prepared = prepare(folder, sections.ingest, "test", embed=True, progress=progress)
        for name, run in section_runs(runs).items():
            report = score(prepared, sections.search, name, run.answer, progress)
            reports[name] = (report, run, "section")
    settings = runtime.settings
    results: dict[str, object] = {
        "size": folder.name,
        "pages": len(prepared.dataset.corpus),
        "queries": len(prepared.dataset.queries),
        "settings": {
            "candidates": settings.candidates,
            "pin_ratio": settings.pin_ratio,
            "rrf_k": settings.rrf_k,
            "passage_chars": settings.embed_passage_chars,
            "max_passages": settings.embed_max_passages,
        },
        "runs": {
            name: {"config": run.config(settings, granularity), **report.as_json()}
            for name, (report, run, granularity) in reports.items()
        },
    }
    return results, {name: report.rankings for name, (report, _, _) in reports.items()}


class PrintedProgress:
    """One line per finished stage: enough to follow a run that takes many minutes."""

    def __init__(self, size: str) -> None:
        self._size = size

    def stage(self, name: str, total: int | None = None) -> None:
        print(f"  {self._size}: {name} ({total or '?'} items)", flush=True)

    def advance(self, n: int = 1) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path(".wikibench/corpus"))
    parser.add_argument("--sizes", default=",".join(SIZES))
    parser.add_argument("--out", type=Path, default=Path("benchmarks/wiki/results"))
    parser.add_argument("--rankings", type=Path, default=Path(".wikibench"))
    parser.add_argument(
        "--no-sections", action="store_true", help="Skip the section-level embedding runs."
    )
    args = parser.parse_args()
    configure_logging("WARNING", "console")
    args.out.mkdir(parents=True, exist_ok=True)
    settings = Settings()
    with EmbeddedRuntime(settings) as runtime:
        sections = None
        if not args.no_sections:
            section_settings = settings.model_copy(update={"embed_granularity": "section"})
            sections = Runtime(section_settings, runtime.database, runtime.keyword)
        for size in [s.strip() for s in args.sizes.split(",") if s.strip()]:
            folder = args.corpus / size
            print(f"{size}: scoring", flush=True)
            results, rankings = measure_size(folder, runtime, sections, PrintedProgress(size))
            path = args.out / f"quality-{size}.json"
            path.write_text(json.dumps(results, indent=1) + "\n")
            (args.rankings / f"rankings-{size}.json").write_text(json.dumps(rankings))
            print(f"{size}: wrote {path}", flush=True)


if __name__ == "__main__":
    main()
