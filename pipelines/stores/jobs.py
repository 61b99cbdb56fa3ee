"""Ingest jobs: state, counts and failure reasons, kept in Postgres."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from psycopg.types.json import Jsonb

from pipelines.stores.database import Database


@dataclass
class JobRecord:
    id: str
    kind: str
    space: str
    state: str
    counts: dict[str, int] = field(default_factory=dict)
    failures: list[dict[str, str]] = field(default_factory=list)


class JobStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def create(self, kind: str, space: str) -> str:
        job_id = uuid.uuid4().hex
        with self._db.connection() as conn:
            conn.execute(
                "INSERT INTO jobs (id, kind, space, state) VALUES (%s, %s, %s, 'running')",
                (job_id, kind, space),
            )
        return job_id

    def finish(
        self, job_id: str, state: str, counts: dict[str, int], failures: list[dict[str, str]]
    ) -> None:
        with self._db.connection() as conn:
            conn.execute(
                "UPDATE jobs SET state = %s, counts = %s, failures = %s, finished_at = now()"
                " WHERE id = %s",
                (state, Jsonb(counts), Jsonb(failures), job_id),
            )

    def get(self, job_id: str) -> JobRecord | None:
        with self._db.connection() as conn:
            row: tuple[Any, ...] | None = conn.execute(
                "SELECT id, kind, space, state, counts, failures FROM jobs WHERE id = %s",
                (job_id,),
            ).fetchone()
        return JobRecord(*row) if row else None
