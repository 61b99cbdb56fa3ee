"""Markdown tables and one PNG chart per table from the wiki benchmark's result files.

    python -m benchmarks.wiki.report --results benchmarks/wiki/results --charts docs/img/wiki \
        [--out FILE]

Reads `quality-<size>.json` (written by `benchmarks/wiki/run.py`) and `latency.json` (written by
`benchmarks/wiki/latency.py`). Missing or unreadable files, sizes, runs and metrics are skipped
(a missing cell shows as a dash). Prints the Markdown, or writes it to --out; image links are
relative to the folder of --out (`docs/` when printing).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

MODES = ("bm25", "vector", "rrf", "hybrid", "rerank")
TYPES = ("lexical", "paraphrase", "identifier")
ALL = "all"
QUALITY_METRICS = (
    ("Recall@5", "recall@5"),
    ("Recall@20", "recall@20"),
    ("MRR@10", "mrr@10"),
    ("nDCG@10", "ndcg@10"),
)
# (column header, question type, metric key) of the sweep tables.
SWEEP_COLUMNS = (
    ("paraphrase R@5", "paraphrase", "recall@5"),
    ("identifier R@5", "identifier", "recall@5"),
    ("lexical R@5", "lexical", "recall@5"),
    ("all nDCG@10", ALL, "ndcg@10"),
)
GROWTH_TYPES = ("paraphrase", "identifier", "lexical")
SECTION_MODES = ("vector", "rrf", "hybrid")
LATENCY_MODES = ("bm25", "embed", "vector", "hybrid")
CACHES = ("cold", "warm")
BAR_FACTOR = 1.5
DASH = "—"
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
)
MODE_COLORS = {"bm25": 0, "vector": 1, "rrf": 2, "hybrid": 3, "rerank": 4, "embed": 5}

Run = Mapping[str, Any]
Draw = Callable[[Figure], None]
Series = dict[str, list[float | None]]


@dataclass
class SizeResult:
    """One `quality-<size>.json` file."""

    size: str
    pages: int
    queries: int
    settings: dict[str, Any]
    runs: dict[str, Run]

    @property
    def label(self) -> str:
        """`wiki-all (2,000 pages)`, or the bare size name when the page count is unknown."""
        return f"{self.size} ({self.pages:,} pages)" if self.pages else self.size


@dataclass
class Section:
    """One `###` subsection: explanation, table, chart (and optional lines after the table)."""

    title: str
    explanation: str
    header: list[str]
    rows: list[list[str]]
    chart: str
    draw: Draw
    figsize: tuple[float, float] = (10.0, 4.0)
    notes: list[str] = field(default_factory=list)


# -------------------------------------------------------------------------------- formatting


def number(value: object) -> float | None:
    """A finite int or float as float, anything else (None, bool, text, NaN) as None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def fmt(value: float | None) -> str:
    """A metric with 3 decimals."""
    return DASH if value is None else f"{value:.3f}"


def pct(value: float | None) -> str:
    """A share as a whole percentage, `67%`."""
    return DASH if value is None else f"{value:.0%}"


def fmt_ms(value: float | None) -> str:
    """A latency in ms with 1 decimal."""
    return DASH if value is None else f"{value:.1f}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub-flavoured Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def pages_label(pages: int, size: str) -> str:
    """`2,000 pages`, or the size name when the page count is unknown."""
    return f"{pages:,} pages" if pages else size


# ----------------------------------------------------------------------------------- loading


def read_json(path: Path) -> Any:
    """The parsed file, or None (with a warning on stderr) when it cannot be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        print(f"warning: skipping {path}: {error}", file=sys.stderr)
        return None


def pages_from_name(size: str) -> int:
    """The page count in a size name (`wiki-500` gives 500), 0 when there is none."""
    found = re.search(r"(\d+)$", size)
    return int(found.group(1)) if found else 0


def parse_quality(data: Any, fallback_size: str) -> SizeResult | None:
    """A SizeResult from one file's JSON, None when it has no runs."""
    if not isinstance(data, dict) or not isinstance(data.get("runs"), dict):
        return None
    runs: dict[str, Run] = {
        str(name): run for name, run in data["runs"].items() if isinstance(run, dict)
    }
    if not runs:
        return None
    size = str(data.get("size") or fallback_size)
    pages = number(data.get("pages"))
    queries = number(data.get("queries"))
    settings = data.get("settings")
    return SizeResult(
        size=size,
        pages=int(pages) if pages else pages_from_name(size),
        queries=int(queries) if queries else 0,
        settings=settings if isinstance(settings, dict) else {},
        runs=runs,
    )


def load_quality(results: Path) -> list[SizeResult]:
    """Every usable `quality-*.json` in the folder, smallest wiki first."""
    found = []
    for path in sorted(results.glob("quality-*.json")):
        result = parse_quality(read_json(path), path.stem.removeprefix("quality-"))
        if result is None:
            print(f"warning: skipping {path}: no runs", file=sys.stderr)
        else:
            found.append(result)
    return sorted(found, key=lambda result: (result.pages or math.inf, result.size))


def load_latency(results: Path) -> list[dict[str, Any]]:
    """The usable rows of `latency.json` (size, mode, cache and p95 present), or none."""
    path = results / "latency.json"
    if not path.is_file():
        return []
    data = read_json(path)
    rows = data.get("runs") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        return []
    return [
        row
        for row in rows
        if isinstance(row, dict)
        and isinstance(row.get("size"), str)
        and isinstance(row.get("mode"), str)
        and isinstance(row.get("cache"), str)
        and number(row.get("p95_ms")) is not None
    ]


# ----------------------------------------------------------------------------------- lookups


def metric(run: Run | None, kind: str, key: str) -> float | None:
    """One metric of a run for a question type (`all` = the run's top-level metrics)."""
    if run is None:
        return None
    if kind == ALL:
        return number(run.get(key))
    by_type = run.get("by_type")
    values = by_type.get(kind) if isinstance(by_type, dict) else None
    return number(values.get(key)) if isinstance(values, dict) else None


def kinds_of(result: SizeResult) -> list[str]:
    """The question types any run of this size has, known types first, then `all`."""
    found: set[str] = set()
    for run in result.runs.values():
        by_type = run.get("by_type")
        if isinstance(by_type, dict):
            found.update(str(kind) for kind in by_type)
    ordered = [kind for kind in TYPES if kind in found]
    ordered += sorted(found - set(TYPES) - {ALL})
    return [*ordered, ALL]


def type_count(result: SizeResult, kind: str) -> int | None:
    """How many questions of this type the size was scored on."""
    for run in result.runs.values():
        count = metric(run, kind, "queries")
        if count is not None:
            return int(count)
    return (result.queries or None) if kind == ALL else None


def type_label(result: SizeResult, kind: str) -> str:
    """`paraphrase (175)`, or the bare type when its count is unknown."""
    count = type_count(result, kind)
    return kind if count is None else f"{kind} ({count})"


def default_setting(result: SizeResult, key: str) -> float | None:
    """A default setting (`pin_ratio`, `candidates`): the file's settings, else hybrid's config."""
    value = number(result.settings.get(key))
    if value is None:
        config = result.runs.get("hybrid", {}).get("config")
        value = number(config.get(key)) if isinstance(config, dict) else None
    return value


def suffixed_runs(result: SizeResult, prefix: str) -> list[tuple[float, str]]:
    """The runs named `<prefix><number>` (`hybrid pin=1.2`), as (number, name), by number."""
    found = []
    for name in result.runs:
        if name.startswith(prefix):
            try:
                found.append((float(name.removeprefix(prefix)), name))
            except ValueError:
                continue
    return sorted(found)


def sweep_values(run: Run | None) -> list[float | None]:
    """The four sweep-table metrics of one run."""
    return [metric(run, kind, key) for _, kind, key in SWEEP_COLUMNS]


# ------------------------------------------------------------------------------------ charts


def color(index: int) -> str:
    """A palette colour, cycling."""
    return PALETTE[index % len(PALETTE)]


def mode_color(mode: str) -> str:
    """The fixed colour of a search mode (all charts use the same)."""
    return color(MODE_COLORS.get(mode, len(MODE_COLORS)))


def grouped_bars(
    ax: Axes, groups: Sequence[str], series: Series, colors: Mapping[str, str] | None = None
) -> None:
    """Bars per group, one bar per series; missing values leave a gap."""
    width = 0.8 / max(len(series), 1)
    for index, (name, values) in enumerate(series.items()):
        shift = (index - (len(series) - 1) / 2) * width
        heights = [math.nan if value is None else value for value in values]
        ax.bar(
            [position + shift for position in range(len(groups))],
            heights,
            width,
            label=name,
            color=(colors or {}).get(name, color(index)),
        )
    ax.set_xticks(range(len(groups)), list(groups), fontsize="small")


def plot_lines(
    ax: Axes,
    xs: Sequence[float | None],
    series: Series,
    colors: Mapping[str, str] | None = None,
) -> None:
    """One line per series over `xs`; points with a missing x or y are left out."""
    for index, (name, values) in enumerate(series.items()):
        points = [
            (x, y) for x, y in zip(xs, values, strict=True) if x is not None and y is not None
        ]
        if points:
            ax.plot(
                [x for x, _ in points],
                [y for _, y in points],
                marker="o",
                label=name,
                color=(colors or {}).get(name, color(index)),
            )


def finish_axes(ax: Axes, title: str, ylabel: str = "", unit_scale: bool = True) -> None:
    """Title, y label and grid; with `unit_scale` the y axis runs from 0 to 1."""
    ax.set_title(title, fontsize="medium")
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    if unit_scale:
        ax.set_ylim(0, 1.05)


def figure_legend(figure: Figure) -> None:
    """One legend for the whole figure, outside the plots on the right (from the first plot)."""
    handles, labels = figure.axes[0].get_legend_handles_labels()
    if handles:
        figure.legend(handles, labels, loc="outside right upper", fontsize="small")


def save_chart(section: Section, path: Path) -> None:
    """Draw the section's chart with the Agg backend (no display) into a PNG."""
    figure = Figure(figsize=section.figsize, layout="constrained")
    FigureCanvasAgg(figure)
    section.draw(figure)
    figure.savefig(path, dpi=100, format="png")


# ---------------------------------------------------------------------------------- sections


def quality_section(result: SizeResult) -> Section | None:
    """Table 1 for one size: type × metric rows, one column per mode."""
    modes = [mode for mode in MODES if mode in result.runs]
    if not modes:
        return None
    kinds = kinds_of(result)
    rows = [
        [type_label(result, kind), name, *(fmt(metric(result.runs[m], kind, key)) for m in modes)]
        for kind in kinds
        for name, key in QUALITY_METRICS
    ]

    def draw(figure: Figure) -> None:
        groups = [type_label(result, kind) for kind in kinds]
        for index, (name, key) in enumerate((("Recall@5", "recall@5"), ("nDCG@10", "ndcg@10"))):
            ax = figure.add_subplot(1, 2, index + 1)
            series = {m: [metric(result.runs[m], kind, key) for kind in kinds] for m in modes}
            grouped_bars(ax, groups, series, {m: mode_color(m) for m in modes})
            finish_axes(ax, f"{name}, {result.label}")
        figure_legend(figure)

    return Section(
        title=f"Quality per question type: {result.label}",
        explanation=(
            f"Each mode on `{result.size}` with the default settings; the type's question count "
            "is in brackets."
        ),
        header=["type", "metric", *modes],
        rows=rows,
        chart=f"quality-{result.size}.png",
        draw=draw,
    )


def growth_section(results: Sequence[SizeResult]) -> Section | None:
    """Table 2: Recall@5 per type and mode across the sizes."""
    modes = [mode for mode in MODES if any(mode in result.runs for result in results)]
    rows, series_by_type = [], {}
    for kind in GROWTH_TYPES:
        series: Series = {}
        for mode in modes:
            values = [metric(result.runs.get(mode), kind, "recall@5") for result in results]
            if any(value is not None for value in values):
                series[mode] = values
                rows.append([f"{kind} R@5", mode, *(fmt(value) for value in values)])
        series_by_type[kind] = series
    if not rows:
        return None

    def draw(figure: Figure) -> None:
        xs = [float(result.pages) if result.pages else None for result in results]
        for index, kind in enumerate(GROWTH_TYPES):
            ax = figure.add_subplot(1, len(GROWTH_TYPES), index + 1)
            plot_lines(ax, xs, series_by_type[kind], {m: mode_color(m) for m in modes})
            finish_axes(ax, f"{kind} Recall@5", unit_scale=False)
            ax.set_xticks([x for x in xs if x is not None])
            ax.set_xlabel("pages")
        figure_legend(figure)

    return Section(
        title="Growth: Recall@5 as the wiki grows",
        explanation="The same questions on each nested wiki size; each size contains the smaller.",
        header=["type", "mode", *(pages_label(r.pages, r.size) for r in results)],
        rows=rows,
        chart="growth.png",
        draw=draw,
        figsize=(12.0, 4.0),
    )


def pin_cells(run: Run, kind: str) -> tuple[float | None, float | None]:
    """Pin fire rate and pinned-top-1-right rate (None when the pin never fired)."""
    fired = metric(run, kind, "pin_rate")
    right = metric(run, kind, "pin_top1_right") if fired else None
    return fired, right


def pin_section(results: Sequence[SizeResult]) -> Section | None:
    """Table 3: hybrid's pin fire rate and top-1-right rate per size and type."""
    with_hybrid = [result for result in results if "hybrid" in result.runs]
    if not with_hybrid:
        return None
    rows = []
    for result in with_hybrid:
        for kind in kinds_of(result):
            fired, right = pin_cells(result.runs["hybrid"], kind)
            rows.append([result.label, type_label(result, kind), pct(fired), pct(right)])
    kinds = kinds_of(with_hybrid[-1])

    def draw(figure: Figure) -> None:
        for index, (title, pick) in enumerate((("pin fired", 0), ("pinned top 1 right", 1))):
            ax = figure.add_subplot(1, 2, index + 1)
            series: Series = {
                r.label: [pin_cells(r.runs["hybrid"], kind)[pick] for kind in kinds]
                for r in with_hybrid
            }
            grouped_bars(ax, kinds, series)
            finish_axes(ax, f"hybrid: {title}", "share of questions" if pick == 0 else "")
        figure_legend(figure)

    return Section(
        title="The BM25 pin per size",
        explanation=(
            "How often hybrid's BM25 pin fires, and how often its top 1 is then the labelled page "
            "(a dash when it never fired)."
        ),
        header=["size", "type", "pin fired", "pinned top 1 right"],
        rows=rows,
        chart="pin.png",
        draw=draw,
    )


def pin_variants(result: SizeResult) -> list[tuple[str, str, str]]:
    """(row label, chart label, run name) of the pin sweep, present runs only."""
    default = default_setting(result, "pin_ratio")
    short = f"{default:g}" if default else "default"
    variants = [
        ("bm25 alone", "bm25", "bm25"),
        ("no pin (rrf)", "no pin", "rrf"),
        (f"{short} (default)" if default else "default", short, "hybrid"),
    ]
    variants += [(f"{r:g}", f"{r:g}", name) for r, name in suffixed_runs(result, "hybrid pin=")]
    return [variant for variant in variants if variant[2] in result.runs]


def pin_pair(run: Run, pick: int) -> str:
    """`67% / 85%`: paraphrase / identifier pin rate (pick 0) or top-1-right rate (pick 1)."""
    return " / ".join(pct(pin_cells(run, kind)[pick]) for kind in ("paraphrase", "identifier"))


def pin_sweep_section(results: Sequence[SizeResult]) -> Section | None:
    """Table 4: the pin ratio sweep per size, with a bm25 reference row."""
    rows, curves = [], {}
    for result in results:
        variants = pin_variants(result)
        if not any(name not in ("bm25", "rrf") for _, _, name in variants):
            continue
        for label, _, name in variants:
            run = result.runs[name]
            pins = [DASH, DASH] if name == "bm25" else [pin_pair(run, 0), pin_pair(run, 1)]
            rows.append([result.label, label, *map(fmt, sweep_values(run)), *pins])
        curves[result.label] = variants_points(result, variants)
    if not rows:
        return None

    def draw(figure: Figure) -> None:
        ax = figure.add_subplot(1, 1, 1)
        for index, (label, points) in enumerate(curves.items()):
            tradeoff_curve(ax, label, points, color(index))
        finish_axes(
            ax, "pin ratio: paraphrase vs identifier Recall@5", "paraphrase Recall@5", False
        )
        ax.set_xlabel("identifier Recall@5")
        ax.legend(fontsize="small")

    return Section(
        title="Pin ratio sweep per size",
        explanation=(
            "Hybrid (RRF + BM25 pin) at each pin ratio; no pin is plain RRF, bm25 the reference. "
            "Pin columns are paraphrase / identifier."
        ),
        header=[
            "size",
            "pin ratio",
            *(header for header, _, _ in SWEEP_COLUMNS),
            "pin fired (para / ident)",
            "pinned top 1 right (para / ident)",
        ],
        rows=rows,
        chart="pin-ratio.png",
        draw=draw,
        figsize=(8.0, 5.0),
    )


def variants_points(
    result: SizeResult, variants: Sequence[tuple[str, str, str]]
) -> list[tuple[str, float, float]]:
    """(chart label, identifier R@5, paraphrase R@5) of each variant that has both."""
    points = []
    for _, short, name in variants:
        ident = metric(result.runs[name], "identifier", "recall@5")
        para = metric(result.runs[name], "paraphrase", "recall@5")
        if ident is not None and para is not None:
            points.append((short, ident, para))
    return points


def tradeoff_curve(
    ax: Axes, label: str, points: Sequence[tuple[str, float, float]], line_color: str
) -> None:
    """One size's pin variants joined by a line (bm25 as a lone cross), each point labelled."""
    line = [(x, y) for short, x, y in points if short != "bm25"]
    if line:
        ax.plot(
            [x for x, _ in line], [y for _, y in line], marker="o", color=line_color, label=label
        )
    for short, x, y in points:
        if short == "bm25":
            ax.plot([x], [y], marker="x", markersize=9, color=line_color, linestyle="none")
        ax.annotate(short, (x, y), textcoords="offset points", xytext=(4, 4), fontsize="x-small")


def depth_variants(result: SizeResult) -> list[tuple[str, float | None, str]]:
    """(row label, N, run name) of the candidate-depth sweep, present runs only."""
    default = default_setting(result, "candidates")
    variants: list[tuple[str, float | None, str]] = [
        ("bm25 alone", None, "bm25"),
        (f"{default:g} (default)" if default else "default", default, "hybrid"),
    ]
    variants += [(f"{n:g}", n, name) for n, name in suffixed_runs(result, "hybrid N=")]
    return [variant for variant in variants if variant[2] in result.runs]


def depth_section(results: Sequence[SizeResult]) -> Section | None:
    """Table 5: candidate depth per size, with a bm25 reference row."""
    rows, chart_sizes = [], []
    for result in results:
        variants = depth_variants(result)
        if not any(name.startswith("hybrid N=") for _, _, name in variants):
            continue
        chart_sizes.append((result, variants))
        for label, _, name in variants:
            rows.append([result.label, label, *map(fmt, sweep_values(result.runs[name]))])
    if not rows:
        return None

    def draw(figure: Figure) -> None:
        for index, (header, kind, key) in enumerate(SWEEP_COLUMNS):
            ax = figure.add_subplot(1, len(SWEEP_COLUMNS), index + 1)
            for number_, (result, variants) in enumerate(chart_sizes):
                swept = [(n, name) for _, n, name in variants if n is not None]
                values = {result.label: [metric(result.runs[name], kind, key) for _, name in swept]}
                plot_lines(ax, [n for n, _ in swept], values, {result.label: color(number_)})
                reference = metric(result.runs.get("bm25"), kind, key)
                if reference is not None:
                    ax.axhline(reference, color=color(number_), linestyle=":", linewidth=1)
            finish_axes(ax, header, unit_scale=False)
            ax.set_xticks(sorted({n for _, variants in chart_sizes for _, n, _ in variants if n}))
            ax.set_xlabel("candidates per retriever")
        figure_legend(figure)

    return Section(
        title="Candidate depth per size",
        explanation=(
            "Hybrid with N candidates from each retriever (pin at the default ratio); "
            "dotted lines in the chart are bm25."
        ),
        header=["size", "candidates", *(header for header, _, _ in SWEEP_COLUMNS)],
        rows=rows,
        chart="candidates.png",
        draw=draw,
        figsize=(14.0, 4.0),
    )


def sections_rows(result: SizeResult) -> list[tuple[str, str, str]]:
    """(granularity, mode, run name) of the page/section comparison, present runs only."""
    rows = [(DASH, "bm25", "bm25")]
    rows += [("page", mode, mode) for mode in SECTION_MODES]
    rows += [("section", mode, f"{mode} sections") for mode in SECTION_MODES]
    return [row for row in rows if row[2] in result.runs]


def granularity_section(results: Sequence[SizeResult]) -> Section | None:
    """Table 6: page- vs section-level embeddings, for the sizes with section runs."""
    with_sections = [
        result
        for result in results
        if any(f"{mode} sections" in result.runs for mode in SECTION_MODES)
    ]
    if not with_sections:
        return None
    rows = [
        [result.label, granularity, mode, *map(fmt, sweep_values(result.runs[name]))]
        for result in with_sections
        for granularity, mode, name in sections_rows(result)
    ]

    def draw(figure: Figure) -> None:
        pairs = [(result, mode) for result in with_sections for mode in SECTION_MODES]
        groups = [f"{result.size}\n{mode}" for result, mode in pairs]
        for index, (header, kind, key) in enumerate(SWEEP_COLUMNS):
            ax = figure.add_subplot(2, 2, index + 1)
            series: Series = {
                "page": [metric(r.runs.get(m), kind, key) for r, m in pairs],
                "section": [metric(r.runs.get(f"{m} sections"), kind, key) for r, m in pairs],
            }
            grouped_bars(ax, groups, series)
            finish_axes(ax, header)
        figure_legend(figure)

    return Section(
        title="Page- vs section-level embeddings",
        explanation=(
            "One vector per page against one per section of a page; bm25 is the reference."
        ),
        header=["size", "embeddings", "mode", *(header for header, _, _ in SWEEP_COLUMNS)],
        rows=rows,
        chart="sections.png",
        draw=draw,
        figsize=(12.0, 7.0),
    )


# ----------------------------------------------------------------------------------- latency


def latency_index(
    rows: Sequence[Mapping[str, Any]],
) -> dict[tuple[str, str, str], Mapping[str, Any]]:
    """The rows by (size, mode, cache); a later duplicate wins."""
    return {(row["size"], row["mode"], row["cache"]): row for row in rows}


def latency_sizes(rows: Sequence[Mapping[str, Any]]) -> list[tuple[str, int]]:
    """(size, pages) of the latency rows, smallest first."""
    pages: dict[str, int] = {}
    for row in rows:
        count = number(row.get("pages"))
        pages[row["size"]] = max(pages.get(row["size"], 0), int(count or 0))
    sizes = {size: count or pages_from_name(size) for size, count in pages.items()}
    return sorted(sizes.items(), key=lambda item: (item[1] or math.inf, item[0]))


def ordered(values: set[str], known: Sequence[str]) -> list[str]:
    """Known values in their order, then any others sorted."""
    return [value for value in known if value in values] + sorted(values - set(known))


def p95_of(
    index: Mapping[tuple[str, str, str], Mapping[str, Any]], key: tuple[str, str, str]
) -> float | None:
    """The p95 of one (size, mode, cache) row, None when absent."""
    row = index.get(key)
    return number(row.get("p95_ms")) if row is not None else None


def bar_check(
    size: str, label: str, index: Mapping[tuple[str, str, str], Mapping[str, Any]]
) -> str:
    """The latency bar for one size: cold hybrid p95 <= 1.5 × max(cold bm25 p95, cold embed p95).

    BM25 does not use the embedding cache, so a missing cold bm25 row falls back to the warm one.
    """
    hybrid = p95_of(index, (size, "hybrid", "cold"))
    embed = p95_of(index, (size, "embed", "cold"))
    bm25 = p95_of(index, (size, "bm25", "cold"))
    bm25_note = ""
    if bm25 is None:
        bm25, bm25_note = p95_of(index, (size, "bm25", "warm")), " (warm)"
    missing = [
        name
        for name, value in (("hybrid", hybrid), ("bm25", bm25), ("embed", embed))
        if value is None
    ]
    if hybrid is None or bm25 is None or embed is None:
        return f"- **{label}:** not checked, no cold p95 for {', '.join(missing)}."
    limit = BAR_FACTOR * max(bm25, embed)
    verdict = "holds" if hybrid <= limit else "does not hold"
    return (
        f"- **{label}:** hybrid p95 (cold) {fmt_ms(hybrid)} ms against {BAR_FACTOR:g} × "
        f"max(bm25 {fmt_ms(bm25)}{bm25_note}, embed {fmt_ms(embed)}) = {fmt_ms(limit)} ms: "
        f"**{verdict}**."
    )


def latency_section(rows: Sequence[Mapping[str, Any]]) -> Section | None:
    """Table 7: p50 and p95 per size, mode and cache state, and the bar check per size."""
    if not rows:
        return None
    index = latency_index(rows)
    sizes = latency_sizes(rows)
    modes = ordered({row["mode"] for row in rows}, LATENCY_MODES)
    caches = ordered({row["cache"] for row in rows}, CACHES)
    labels = {size: f"{size} ({pages:,} pages)" if pages else size for size, pages in sizes}
    table = [
        [
            labels[size],
            mode,
            cache,
            fmt_ms(number(row.get("p50_ms"))),
            fmt_ms(number(row.get("p95_ms"))),
        ]
        for size, _ in sizes
        for mode in modes
        for cache in caches
        if (row := index.get((size, mode, cache))) is not None
    ]

    def draw(figure: Figure) -> None:
        groups = [pages_label(pages, size) for size, pages in sizes]
        for number_, cache in enumerate(caches):
            ax = figure.add_subplot(1, len(caches), number_ + 1)
            series: Series = {m: [p95_of(index, (s, m, cache)) for s, _ in sizes] for m in modes}
            grouped_bars(ax, groups, series, {m: mode_color(m) for m in modes})
            finish_axes(ax, f"p95 latency, {cache} cache", "ms" if number_ == 0 else "", False)
        figure_legend(figure)

    return Section(
        title="Latency",
        explanation=(
            "Per query, sequential, top 10; cold clears the query-embedding cache before each "
            "search, warm has every query embedded first; embed is the query embedding alone."
        ),
        header=["size", "mode", "cache", "p50 ms", "p95 ms"],
        rows=table,
        chart="latency.png",
        draw=draw,
        notes=[
            f"The bar: hybrid p95 (cold) at most {BAR_FACTOR:g} × the larger of bm25 p95 and "
            "embed p95 (cold).",
            "",
            *(bar_check(size, labels[size], index) for size, _ in sizes),
        ],
    )


# ------------------------------------------------------------------------------------ report


def build_sections(results: Path) -> list[Section]:
    """Every section the result files have data for, in report order."""
    quality = load_quality(results)
    candidates = [
        *(quality_section(result) for result in quality),
        growth_section(quality) if quality else None,
        pin_section(quality),
        pin_sweep_section(quality),
        depth_section(quality),
        granularity_section(quality),
        latency_section(load_latency(results)),
    ]
    return [section for section in candidates if section is not None]


def render_section(section: Section, link: str) -> str:
    """One `###` subsection as Markdown."""
    parts = [
        f"### {section.title}",
        section.explanation,
        markdown_table(section.header, section.rows),
    ]
    if section.notes:
        parts.append("\n".join(section.notes))
    parts.append(f"![{section.title}]({link})")
    return "\n\n".join(parts)


def build_report(results: Path, charts: Path, base: Path) -> str:
    """Write the charts into `charts` and return the Markdown, linking images from `base`."""
    sections = build_sections(results)
    if not sections:
        return f"_No wiki benchmark results in `{results}`._\n"
    charts.mkdir(parents=True, exist_ok=True)
    parts = []
    for section in sections:
        path = charts / section.chart
        save_chart(section, path)
        link = Path(os.path.relpath(path.resolve(), base.resolve())).as_posix()
        parts.append(render_section(section, link))
    return "\n\n".join(parts) + "\n"


MARK_START = "<!-- wiki-report:start -->"
MARK_END = "<!-- wiki-report:end -->"


def splice(path: Path, text: str) -> None:
    """Put the generated report between the markers, keeping the hand-written text around it."""
    document = path.read_text(encoding="utf-8")
    start, end = document.find(MARK_START), document.find(MARK_END)
    if start < 0 or end < start:
        raise SystemExit(f"{path} has no {MARK_START} ... {MARK_END} block")
    head, tail = document[: start + len(MARK_START)], document[end:]
    path.write_text(f"{head}\n\n{text.strip()}\n\n{tail}", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: write the charts, print the Markdown or write it to --out."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("benchmarks/wiki/results"))
    parser.add_argument("--charts", type=Path, default=Path("docs/img/wiki"))
    parser.add_argument("--out", type=Path, help="Markdown file (default: print)")
    parser.add_argument(
        "--into",
        type=Path,
        help=f"Replace the text between {MARK_START} and {MARK_END} in this Markdown file",
    )
    args = parser.parse_args(argv)
    target = args.into or args.out
    base = target.parent if target else Path("docs")
    text = build_report(args.results, args.charts, base)
    if args.into:
        splice(args.into, text)
    elif args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
