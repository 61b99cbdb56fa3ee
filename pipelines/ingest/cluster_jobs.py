"""Ingest jobs run by distributed workers (cluster mode).

A job is cut into tasks: one `plan` (list the sources), `convert` tasks of a few sources each,
and per converted batch one `embed` and one `index` task. Each task is a row in `job_tasks` that
holds its arguments; the queue message only names the row. A task's effects are idempotent
(upserts keyed by document id, skips by content hash), and its accounting is exactly-once: the
row flips from queued to done in the same transaction that adds its counts to the job, under a
lock on the job row. So a task delivered twice (a worker killed mid-task, a retry) does its work
again harmlessly and counts once.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import psycopg
import structlog
from psycopg.types.json import Jsonb

from pipelines.analysis.language import CJK_LANGUAGE
from pipelines.ingest.stages import IngestStages, file_candidate, url_candidate
from pipelines.settings import Settings
from pipelines.sources.local import list_files, under_any
from pipelines.sources.remote import is_url
from pipelines.stores.database import Database

log = structlog.get_logger(__name__)

PLAN, CONVERT, EMBED, INDEX = "plan", "convert", "embed", "index"
# Embedding is the expensive part (GPU nodes in production), so it has a queue of its own.
QUEUE_OF = {PLAN: "convert", CONVERT: "convert", EMBED: "embed", INDEX: "index"}
# Large enough for efficient embedding batches, small enough to spread over workers.
SOURCES_PER_TASK = 16

COUNT_KEYS = ("total", "added", "updated", "unchanged", "deleted", "failed", "embedded", "indexed")


class TaskQueue(Protocol):
    def send(self, kind: str, job_id: str, task_key: str) -> None: ...


class JobError(ValueError):
    """A job request that cannot be accepted (the caller's mistake)."""


@dataclass
class JobStatus:
    id: str
    state: str
    space: str
    sources: list[str]
    counts: dict[str, int]
    failures: list[dict[str, str]]
    tasks: dict[str, int]
    created_at: datetime
    finished_at: datetime | None
    error: str | None = None

    @property
    def processed(self) -> int:
        """Sources handled so far (converted, unchanged or failed)."""
        c = self.counts
        return c.get("added", 0) + c.get("updated", 0) + c.get("unchanged", 0) + c.get("failed", 0)

    @property
    def finished(self) -> bool:
        return self.state in ("done", "failed")


@dataclass
class _Outcome:
    """What a task adds to its job: counts, failure reasons, and follow-up tasks."""

    counts: dict[str, int] = field(default_factory=dict)
    failures: list[dict[str, str]] = field(default_factory=list)
    follow_ups: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)


class ClusterJobs:
    def __init__(
        self, *, db: Database, stages: IngestStages, queue: TaskQueue, settings: Settings
    ) -> None:
        self._db = db
        self._stages = stages
        self._queue = queue
        self._settings = settings

    # -- API side ----------------------------------------------------------------------------

    def submit(self, sources: Sequence[str], space: str, *, sync: bool = False) -> str:
        if not sources:
            raise JobError("a job needs at least one source (a path or an http(s) URL)")
        if not space.strip():
            raise JobError("the space name is empty")
        job_id = uuid.uuid4().hex
        with self._db.connection() as conn, conn.transaction():
            conn.execute(
                "INSERT INTO jobs (id, kind, space, state, sources, options, counts)"
                " VALUES (%s, 'cluster-ingest', %s, 'queued', %s, %s, %s)",
                (
                    job_id,
                    space,
                    Jsonb(list(sources)),
                    Jsonb({"sync": sync}),
                    Jsonb(dict.fromkeys(COUNT_KEYS, 0)),
                ),
            )
            conn.execute(
                "INSERT INTO job_tasks (job_id, task_key, kind) VALUES (%s, %s, %s)",
                (job_id, PLAN, PLAN),
            )
        self._queue.send(PLAN, job_id, PLAN)
        log.info("job.submitted", job_id=job_id, space=space, sources=len(sources))
        return job_id

    def status(self, job_id: str) -> JobStatus | None:
        with self._db.connection() as conn:
            row = conn.execute(
                "SELECT id, state, space, sources, counts, failures, created_at, finished_at,"
                " error FROM jobs WHERE id = %s",
                (job_id,),
            ).fetchone()
            if row is None:
                return None
            tasks = dict(
                conn.execute(
                    "SELECT state, count(*) FROM job_tasks WHERE job_id = %s GROUP BY state",
                    (job_id,),
                ).fetchall()
            )
        jid, state, space, sources, counts, failures, created, finished, error = row
        return JobStatus(
            id=jid,
            state=state,
            space=space,
            sources=list(sources),
            counts={key: int(counts.get(key, 0)) for key in COUNT_KEYS},
            failures=list(failures),
            tasks={k: int(v) for k, v in tasks.items()},
            created_at=created,
            finished_at=finished,
            error=error,
        )

    # -- worker side -------------------------------------------------------------------------

    def run(self, job_id: str, task_key: str) -> None:
        """Do one task. Safe to call again for the same task at any point."""
        task = self._task(job_id, task_key)
        if task is None or task["state"] != "queued":
            return  # already finished by an earlier delivery
        bound = log.bind(job_id=job_id, task=task_key)
        bound.info("task.start", attempt=task["attempts"] + 1)
        with self._db.connection() as conn:
            conn.execute(
                "UPDATE job_tasks SET attempts = attempts + 1, updated_at = now()"
                " WHERE job_id = %s AND task_key = %s",
                (job_id, task_key),
            )
            conn.execute(
                "UPDATE jobs SET state = 'running' WHERE id = %s AND state = 'queued'", (job_id,)
            )
        payload, space = task["payload"], task["space"]
        kind = task["kind"]
        if kind == PLAN:
            outcome = self._plan(job_id, space, task["sources"], task["options"])
        elif kind == CONVERT:
            outcome = self._convert(job_id, task_key, space, payload["sources"])
        elif kind == EMBED:
            outcome = _Outcome(counts={"embedded": self._stages.embed(payload["ids"])})
        elif kind == INDEX:
            outcome = _Outcome(counts={"indexed": self._stages.index_ids(payload["ids"])})
        else:
            raise ValueError(f"unknown task kind {kind!r}")
        sent = self._complete(job_id, task_key, outcome, state="done")
        for follow_kind, follow_key in sent:
            self._queue.send(follow_kind, job_id, follow_key)
        bound.info("task.done", **outcome.counts)

    def fail(self, job_id: str, task_key: str, reason: str) -> None:
        """A task that will not be retried any more: record why, and let the job finish."""
        log.error("task.failed", job_id=job_id, task=task_key, reason=reason)
        outcome = _Outcome(failures=[{"source": f"task {task_key}", "reason": reason}])
        self._complete(job_id, task_key, outcome, state="failed", error=reason)

    # -- the tasks ---------------------------------------------------------------------------

    def _plan(
        self, job_id: str, space: str, sources: list[str], options: dict[str, Any]
    ) -> _Outcome:
        outcome = _Outcome()
        urls = [source for source in sources if is_url(source)]
        paths = [Path(source) for source in sources if not is_url(source)]
        files: list[str] = []
        for path in paths:
            try:
                files.extend(str(found) for found in list_files([path]))
            except FileNotFoundError as error:
                outcome.failures.append({"source": str(path), "reason": str(error)})
                outcome.counts["failed"] = outcome.counts.get("failed", 0) + 1
        everything = [*files, *urls]
        outcome.counts["total"] = len(everything)
        for number, start in enumerate(range(0, len(everything), SOURCES_PER_TASK)):
            batch = everything[start : start + SOURCES_PER_TASK]
            outcome.follow_ups.append((CONVERT, f"convert:{number}", {"sources": batch}))
        if options.get("sync"):
            folders = [p.resolve() for p in paths if p.is_dir()]
            listed = {Path(f).as_uri() for f in files}
            gone = [
                state
                for uri, state in self._stages.documents.states(space).items()
                if uri not in listed and under_any(uri, folders)
            ]
            outcome.counts["deleted"] = len(self._stages.delete(gone))
        return outcome

    def _convert(self, job_id: str, task_key: str, space: str, sources: list[str]) -> _Outcome:
        max_bytes = self._settings.max_file_bytes
        candidates = (
            url_candidate(source, space, max_bytes)
            if is_url(source)
            else file_candidate(Path(source), space, max_bytes)
            for source in sources
        )
        result = self._stages.convert(candidates, space, job_id=job_id)
        outcome = _Outcome(
            counts={
                "added": len(result.added),
                "updated": len(result.updated),
                "unchanged": len(result.unchanged),
                "failed": len(result.failed),
            },
            failures=[{"source": uri, "reason": reason} for uri, reason in result.failed],
        )
        to_embed = [d.id for d in result.changed if d.language != CJK_LANGUAGE]
        to_index = [d.id for d in result.changed]
        suffix = task_key.removeprefix("convert:")
        if to_embed:
            outcome.follow_ups.append((EMBED, f"embed:{suffix}", {"ids": to_embed}))
        if to_index:
            outcome.follow_ups.append((INDEX, f"index:{suffix}", {"ids": to_index}))
        return outcome

    # -- bookkeeping -------------------------------------------------------------------------

    def _task(self, job_id: str, task_key: str) -> dict[str, Any] | None:
        with self._db.connection() as conn:
            row = conn.execute(
                "SELECT t.kind, t.state, t.payload, t.attempts, j.space, j.sources, j.options"
                " FROM job_tasks t JOIN jobs j ON j.id = t.job_id"
                " WHERE t.job_id = %s AND t.task_key = %s",
                (job_id, task_key),
            ).fetchone()
        if row is None:
            return None
        keys = ("kind", "state", "payload", "attempts", "space", "sources", "options")
        return dict(zip(keys, row, strict=True))

    def _complete(
        self,
        job_id: str,
        task_key: str,
        outcome: _Outcome,
        *,
        state: str,
        error: str | None = None,
    ) -> list[tuple[str, str]]:
        """Mark the task finished and add its outcome to the job, once; returns the follow-up
        tasks to send (after commit, so a worker never sees a task row that is not there)."""
        with self._db.connection() as conn, conn.transaction():
            job = conn.execute(
                "SELECT counts, failures FROM jobs WHERE id = %s FOR UPDATE", (job_id,)
            ).fetchone()
            flipped = conn.execute(
                "UPDATE job_tasks SET state = %s, error = %s, updated_at = now()"
                " WHERE job_id = %s AND task_key = %s AND state = 'queued'",
                (state, error, job_id, task_key),
            ).rowcount
            if job is None or not flipped:
                return []  # another delivery of this task got here first
            counts: dict[str, int] = dict(job[0])
            for key, value in outcome.counts.items():
                counts[key] = counts.get(key, 0) + value
            _insert_tasks(conn, job_id, outcome.follow_ups)
            conn.execute(
                "UPDATE jobs SET counts = %s, failures = failures || %s WHERE id = %s",
                (Jsonb(counts), Jsonb(outcome.failures), job_id),
            )
            self._finish_if_done(conn, job_id)
        return [(kind, key) for kind, key, _ in outcome.follow_ups]

    def _finish_if_done(self, conn: psycopg.Connection, job_id: str) -> None:
        open_tasks, failed_tasks = conn.execute(
            "SELECT count(*) FILTER (WHERE state = 'queued'),"
            " count(*) FILTER (WHERE state = 'failed') FROM job_tasks WHERE job_id = %s",
            (job_id,),
        ).fetchone() or (0, 0)
        if open_tasks == 0:
            # Before the job says done, its documents must be searchable.
            self._stages.keyword.refresh()
            final = "failed" if failed_tasks else "done"
            conn.execute(
                "UPDATE jobs SET state = %s, finished_at = now(),"
                " error = CASE WHEN %s THEN 'a task failed permanently; see failures' END"
                " WHERE id = %s",
                (final, bool(failed_tasks), job_id),
            )
            log.info("job.finished", job_id=job_id, state=final)


def _insert_tasks(
    conn: psycopg.Connection, job_id: str, tasks: Iterable[tuple[str, str, dict[str, Any]]]
) -> None:
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO job_tasks (job_id, task_key, kind, payload) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT DO NOTHING",
            [(job_id, key, kind, Jsonb(payload)) for kind, key, payload in tasks],
        )
