"""Cluster fixtures: real Redis, Postgres + pgvector and OpenSearch started by infra/ scripts,
real Celery worker and API processes. Each test session gets its own database and OpenSearch
alias, so it never touches a developer's data."""

from __future__ import annotations

import os
import secrets
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
from cluster_support import REPO, Api, Worker


def _read_env(path: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    return {key.strip(): value.strip() for key, value in pairs}


@pytest.fixture(scope="session")
def services() -> dict[str, str]:
    """Start (or reuse) the dev services; their URLs."""
    subprocess.run([str(REPO / "infra" / "services-up.sh")], check=True, timeout=900)
    services_dir = Path(os.environ.get("WIKIFUSE_SERVICES_DIR", REPO / ".services"))
    return _read_env(services_dir / "env")


@pytest.fixture(scope="session")
def cluster_env(services: dict[str, str]) -> Iterator[dict[str, str]]:
    """Environment for every cluster process of this session: a fresh database and alias."""
    suffix = secrets.token_hex(4)
    database = f"wikifuse_test_{suffix}"
    admin_url = services["WIKIFUSE_DATABASE_URL"]
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {database}")
    database_url = admin_url.rsplit("/", 1)[0] + f"/{database}"
    env = {
        **os.environ,
        **services,
        "WIKIFUSE_MODE": "cluster",
        "WIKIFUSE_DATABASE_URL": database_url,
        # Its own Redis database, so no other worker on this Redis takes this session's tasks.
        "WIKIFUSE_REDIS_URL": services["WIKIFUSE_REDIS_URL"].rsplit("/", 1)[0]
        + f"/{secrets.randbelow(15) + 1}",
        "WIKIFUSE_OPENSEARCH_INDEX": f"wikifuse-test-{suffix}",
        # A killed worker's task comes back after this long (production: an hour).
        "WIKIFUSE_TASK_VISIBILITY_TIMEOUT_S": "10",
        "WIKIFUSE_LOG_LEVEL": "INFO",
        "WIKIFUSE_LOG_FORMAT": "json",
        "COLUMNS": "200",
    }
    yield env
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
    httpx.delete(f"{services['WIKIFUSE_OPENSEARCH_URL']}/wikifuse-test-{suffix}-*", timeout=30)


@pytest.fixture(scope="session")
def start_worker(
    cluster_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[..., Worker]]:
    started: list[Worker] = []
    logs = tmp_path_factory.mktemp("worker-logs")

    def start(queues: str = "convert,embed,index", env: dict[str, str] | None = None) -> Worker:
        worker = Worker(env or cluster_env, logs / f"worker-{len(started)}.log", queues)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


@pytest.fixture(scope="session")
def worker(start_worker: Callable[..., Worker]) -> Worker:
    return start_worker()


@pytest.fixture(scope="session")
def start_api(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[[dict[str, str]], Api]]:
    started: list[Api] = []
    logs = tmp_path_factory.mktemp("api-logs")

    def start(env: dict[str, str]) -> Api:
        api = Api(env, logs / f"api-{len(started)}.log")
        started.append(api)
        return api

    yield start
    for api in started:
        api.stop()


@pytest.fixture(scope="session")
def api(start_api: Callable[[dict[str, str]], Api], cluster_env: dict[str, str]) -> Api:
    return start_api(cluster_env)
