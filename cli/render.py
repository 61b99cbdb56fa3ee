"""How search results and summaries look on a terminal."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pipelines.evaluation.runner import METRICS, EvalReport
from pipelines.ingest.summary import IngestSummary
from pipelines.search.service import SearchResponse, SearchResult


def explain(result: SearchResult) -> str:
    bm25 = (
        f"bm25 #{result.bm25_rank} ({result.bm25_score:.3f})"
        if result.bm25_rank is not None and result.bm25_score is not None
        else "bm25 —"
    )
    vector = (
        f"vector #{result.vector_rank} ({result.vector_score:.3f})"
        if result.vector_rank is not None and result.vector_score is not None
        else "vector —"
    )
    pinned = " · pinned (BM25 top1 ≥ ratio × top2)" if result.pinned else ""
    return f"{bm25} · {vector} · rrf {result.rrf_score:.4f}{pinned}"


def print_search(console: Console, response: SearchResponse, *, show_explain: bool) -> None:
    header = f"[bold]{escape(response.query)}[/] — {response.mode_used}"
    if response.mode_used != response.mode:
        header += f" (asked {response.mode})"
    console.print(header)
    for note in response.notes:
        console.print(f"  [yellow]note:[/] {escape(note)}")
    if not response.results:
        console.print("  no results")
    for result in response.results:
        pin = " [magenta]\\[pinned][/]" if result.pinned else ""
        console.print(f"{result.rank:>3}. [bold]{escape(result.title)}[/]{pin}")
        console.print(f"     [dim]{escape(result.source_uri)}[/]")
        if result.snippet:
            console.print(f"     {escape(result.snippet)}")
        if show_explain:
            console.print(f"     [cyan]{escape(explain(result))}[/]")


def print_ingest(console: Console, summary: IngestSummary) -> None:
    counts = summary.counts()
    console.print(
        f"[bold]space {escape(summary.space)}[/]: {counts['added']} added, "
        f"{counts['updated']} updated, {counts['unchanged']} unchanged, "
        f"{counts['deleted']} deleted, {counts['failed']} failed "
        f"({counts['embedded']} embedded, {counts['indexed']} indexed) "
        f"in {summary.seconds:.1f}s — job {summary.job_id}"
    )
    for uri, reason in summary.failed:
        console.print(f"  [red]failed[/] {escape(uri)}: {escape(reason)}")
    for uri in summary.deleted:
        console.print(f"  [yellow]deleted[/] {escape(uri)}")


def print_eval(console: Console, report: EvalReport) -> None:
    console.print(
        f"[bold]{escape(report.dataset)}[/] · mode {report.mode} · {report.queries} queries "
        f"(indexing {report.index_seconds:.1f}s, {report.embedded} embedded)"
    )
    for name in METRICS:
        console.print(f"  {name:<11} {report.metrics[name]:.4f}")
    console.print(
        f"  latency p50 {report.latency_p50_ms:.1f} ms · p95 {report.latency_p95_ms:.1f} ms"
    )
    if report.metrics["pin_rate"]:
        console.print(
            f"  BM25 pin fired on {report.metrics['pin_rate']:.0%} of queries; its top 1 was "
            f"right {report.metrics['pin_top1_right']:.0%} of those times"
        )
    for kind, values in report.by_type.items():
        cells = " · ".join(f"{name} {values[name]:.4f}" for name in METRICS)
        console.print(f"  [dim]{escape(kind)}[/] ({int(values['queries'])}): {cells}")


def print_comparison(console: Console, reports: list[EvalReport]) -> None:
    """One table: metrics as rows, modes as columns; then one per query type."""
    first = reports[0]
    console.print(
        f"[bold]{escape(first.dataset)}[/] · {first.queries} queries "
        f"(indexing {first.index_seconds:.1f}s, {first.embedded} embedded)"
    )
    console.print(_table("all queries", reports, [r.metrics for r in reports], latency=True))
    for kind in first.by_type:
        count = int(first.by_type[kind]["queries"])
        console.print(_table(f"{kind} ({count})", reports, [r.by_type[kind] for r in reports]))


def _table(
    title: str,
    reports: list[EvalReport],
    values: list[dict[str, float]],
    latency: bool = False,
) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("metric")
    for report in reports:
        table.add_column(report.mode, justify="right")
    for name in METRICS:
        scores = [row[name] for row in values]
        best = max(scores)
        table.add_row(name, *(f"[bold]{s:.4f}[/]" if s == best else f"{s:.4f}" for s in scores))
    table.add_row("pin fired", *(f"{row['pin_rate']:.0%}" for row in values))
    table.add_row("pinned top1 right", *(f"{row['pin_top1_right']:.0%}" for row in values))
    if latency:
        table.add_row("p50 ms", *(f"{r.latency_p50_ms:.1f}" for r in reports))
        table.add_row("p95 ms", *(f"{r.latency_p95_ms:.1f}" for r in reports))
    return table
