"""The Celery tasks: one per stage, each a thin call into pipelines' ClusterJobs.

Transient errors (a service briefly down) are retried with exponential backoff; when retries
run out, or on any other error, the failure is recorded on the job with its reason.
"""

from __future__ import annotations

from functools import lru_cache

import structlog
from celery import Task
from redis.exceptions import ConnectionError as RedisConnectionError

from pipelines.ingest.cluster_jobs import CONVERT, EMBED, INDEX, PLAN, ClusterJobs
from pipelines.keyword.base import KeywordIndexUnavailable
from pipelines.runtime import ClusterRuntime
from pipelines.settings import get_settings
from pipelines.stores.database import DatabaseUnavailable
from workers.celery_app import CeleryTaskQueue, make_celery

log = structlog.get_logger(__name__)

TRANSIENT = (DatabaseUnavailable, KeywordIndexUnavailable, RedisConnectionError, ConnectionError)

app = make_celery(get_settings())


@lru_cache(maxsize=1)
def runtime() -> ClusterRuntime:
    """One runtime (pools, model) per worker process, opened on first use."""
    return ClusterRuntime(get_settings(), CeleryTaskQueue(app))


def jobs() -> ClusterJobs:
    return runtime().jobs


def _run(task: Task, job_id: str, task_key: str) -> None:
    structlog.contextvars.bind_contextvars(job_id=job_id, task=task_key)
    try:
        jobs().run(job_id, task_key)
    except TRANSIENT as error:
        max_retries = get_settings().task_max_retries
        if task.request.retries >= max_retries:
            # Celery would re-raise and drop the task: record it so the job can finish.
            jobs().fail(job_id, task_key, f"gave up after {max_retries} retries: {error}")
            return
        countdown = min(2**task.request.retries, 60)
        raise task.retry(exc=error, countdown=countdown, max_retries=max_retries) from error
    except Exception as error:  # a bug or bad data: retrying will not help
        log.exception("task.error")
        jobs().fail(job_id, task_key, f"{type(error).__name__}: {error}")
    finally:
        structlog.contextvars.unbind_contextvars("job_id", "task")


@app.task(name=f"wikifuse.{PLAN}", bind=True)
def plan(self: Task, job_id: str, task_key: str) -> None:
    _run(self, job_id, task_key)


@app.task(name=f"wikifuse.{CONVERT}", bind=True)
def convert(self: Task, job_id: str, task_key: str) -> None:
    _run(self, job_id, task_key)


@app.task(name=f"wikifuse.{EMBED}", bind=True)
def embed(self: Task, job_id: str, task_key: str) -> None:
    _run(self, job_id, task_key)


@app.task(name=f"wikifuse.{INDEX}", bind=True)
def index(self: Task, job_id: str, task_key: str) -> None:
    _run(self, job_id, task_key)
