"""The Celery app: Redis broker, late acknowledgement, one queue per stage."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from celery import Celery
from kombu import Queue

from pipelines.ingest.cluster_jobs import QUEUE_OF
from pipelines.settings import Settings

QUEUES = ("convert", "embed", "index")


def make_celery(settings: Settings) -> Celery:
    app = Celery("wikifuse", broker=settings.redis_url, include=["workers.tasks"])
    app.conf.update(
        # Job state lives in Postgres; no result backend needed.
        task_ignore_result=True,
        # A task is acknowledged only when it finished, and a worker that dies mid-task hands
        # it back: killed workers lose nothing (every task is idempotent).
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_transport_options={"visibility_timeout": settings.task_visibility_timeout_s},
        broker_connection_retry_on_startup=True,
        task_queues=[Queue(name) for name in QUEUES],
        task_default_queue="convert",
        task_routes={f"wikifuse.{kind}": {"queue": queue} for kind, queue in QUEUE_OF.items()},
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
    )
    return app


class CeleryTaskQueue:
    """pipelines' TaskQueue over Celery: sends a task by name to its stage's queue."""

    def __init__(self, app: Celery) -> None:
        self._app = app

    def send(self, kind: str, job_id: str, task_key: str) -> None:
        self._app.send_task(f"wikifuse.{kind}", args=(job_id, task_key), queue=QUEUE_OF[kind])


def queue_depths(redis_url: str) -> dict[str, int]:
    """Waiting messages per queue: kombu keeps each Redis queue as a list of that name."""
    import redis

    client = redis.Redis.from_url(redis_url, socket_timeout=2, socket_connect_timeout=2)
    try:
        return {name: int(client.llen(name)) for name in QUEUES}
    finally:
        client.close()


def redis_reachable(redis_url: str) -> bool:
    import redis

    client = redis.Redis.from_url(redis_url, socket_timeout=2, socket_connect_timeout=2)
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
    finally:
        client.close()


@contextmanager
def redis_lock(redis_url: str, name: str, hold_s: int = 3600) -> Iterator[None]:
    """One holder at a time across processes (e.g. a full reindex), as pypi/warehouse does."""
    import redis

    client = redis.Redis.from_url(redis_url)
    lock = client.lock(name, timeout=hold_s, blocking_timeout=5)
    if not lock.acquire():
        client.close()
        raise TimeoutError(f"{name} is held by another process; try again when it is done")
    try:
        yield
    finally:
        lock.release()
        client.close()
