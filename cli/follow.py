"""`wikifuse ingest --cluster`: submit a job to the workers and follow it to the end."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from api.app import job_out
from pipelines.ingest.cluster_jobs import JobStatus
from pipelines.runtime import ClusterRuntime, Runtime

_POLL_S = 0.5


def submit_and_follow(
    runtime: Runtime,
    paths: list[Path],
    space: str,
    *,
    sync: bool,
    as_json: bool,
    out: Console,
    err: Console,
) -> int:
    assert isinstance(runtime, ClusterRuntime)
    jobs = runtime.jobs
    # Workers resolve paths on their own filesystem: send absolute ones.
    sources = [str(path.expanduser().resolve()) for path in paths]
    job_id = jobs.submit(sources, space, sync=sync)
    err.print(f"job {job_id} submitted", highlight=False)
    status = _follow(jobs.status, job_id, err)
    body = job_out(status).model_dump()
    if as_json:
        out.print_json(json.dumps(body))
    else:
        counts = body["counts"]
        out.print(
            f"[bold]space {escape(space)}[/]: job {status.id} {status.state} — "
            f"{counts['added']} added, {counts['updated']} updated, {counts['unchanged']} "
            f"unchanged, {counts['deleted']} deleted, {counts['failed']} failed "
            f"({counts['embedded']} embedded, {counts['indexed']} indexed)"
        )
        for failure in status.failures:
            out.print(f"  [red]failed[/] {escape(failure['source'])}: {escape(failure['reason'])}")
    return 0 if status.state == "done" else 1


def _follow(read: Callable[[str], JobStatus | None], job_id: str, err: Console) -> JobStatus:
    """A bar of finished tasks (the total grows as converted batches add embed/index tasks)."""
    with Progress(
        TextColumn("{task.description:<8}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        disable=not err.is_terminal,
    ) as bar:
        task = bar.add_task("tasks", total=None)
        last_line = ""
        while True:
            found = read(job_id)
            if found is None:
                raise RuntimeError(f"job {job_id} disappeared")
            status = found
            done = status.tasks.get("done", 0) + status.tasks.get("failed", 0)
            bar.update(task, completed=done, total=done + status.tasks.get("queued", 0))
            line = (
                f"{status.state}: {status.processed}/{status.counts['total']} sources, "
                f"{status.counts['embedded']} embedded, {status.counts['indexed']} indexed"
            )
            if not err.is_terminal and line != last_line:
                err.print(line, highlight=False)
                last_line = line
            if status.finished:
                return status
            time.sleep(_POLL_S)
