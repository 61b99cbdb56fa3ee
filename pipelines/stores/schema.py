"""Versioned schema migrations; each runs once, in order, inside one transaction."""

from __future__ import annotations

import psycopg

MIGRATIONS: tuple[str, ...] = (
    # 1: documents, sections, embeddings, jobs
    """
    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE TABLE documents (
        id text PRIMARY KEY,
        space text NOT NULL,
        source_uri text NOT NULL,
        title text NOT NULL,
        body text NOT NULL,
        tags text[] NOT NULL DEFAULT '{}',
        acl_groups text[] NOT NULL DEFAULT '{}',
        language text NOT NULL,
        content_hash text NOT NULL,
        source_hash text,
        metadata jsonb NOT NULL DEFAULT '{}',
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (space, source_uri)
    );
    CREATE TABLE sections (
        document_id text NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        position int NOT NULL,
        title text NOT NULL,
        body text NOT NULL,
        PRIMARY KEY (document_id, position)
    );
    -- One row per document and model: switching models keeps the old vectors until re-embedded,
    -- and a query only ever compares vectors of its own model.
    CREATE TABLE embeddings (
        document_id text NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        model_fingerprint text NOT NULL,
        content_hash text NOT NULL,
        embedding vector NOT NULL,
        PRIMARY KEY (document_id, model_fingerprint)
    );
    CREATE TABLE jobs (
        id text PRIMARY KEY,
        kind text NOT NULL,
        space text NOT NULL,
        state text NOT NULL,
        counts jsonb NOT NULL DEFAULT '{}',
        failures jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
    );
    """,
    # 2: cluster jobs: what a job ingests, its tasks (the unit of retry and of accounting), and
    # which job last wrote each document (so a retried task still counts it as added/updated).
    """
    ALTER TABLE jobs
        ADD COLUMN sources jsonb NOT NULL DEFAULT '[]',
        ADD COLUMN options jsonb NOT NULL DEFAULT '{}',
        ADD COLUMN error text;
    CREATE TABLE job_tasks (
        job_id text NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
        task_key text NOT NULL,
        kind text NOT NULL,
        state text NOT NULL DEFAULT 'queued',
        payload jsonb NOT NULL DEFAULT '{}',
        attempts int NOT NULL DEFAULT 0,
        error text,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (job_id, task_key)
    );
    CREATE INDEX job_tasks_open ON job_tasks (job_id) WHERE state = 'queued';
    ALTER TABLE documents
        ADD COLUMN created_job_id text,
        ADD COLUMN updated_job_id text;
    """,
    # 3: section-level embeddings: several passages per document and key (page level keeps
    # passage 0, its one vector).
    """
    ALTER TABLE embeddings ADD COLUMN passage int NOT NULL DEFAULT 0;
    ALTER TABLE embeddings DROP CONSTRAINT embeddings_pkey;
    ALTER TABLE embeddings ADD PRIMARY KEY (document_id, model_fingerprint, passage);
    """,
)


def migrate(conn: psycopg.Connection) -> int:
    """Apply pending migrations; returns the schema version. Safe to run from many processes."""
    with conn.transaction():
        # Serialize concurrent starters (CLI + serve) on one advisory lock.
        conn.execute("SELECT pg_advisory_xact_lock(727274)")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        row = conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()
        current = int(row[0]) if row else 0
        for version, sql in enumerate(MIGRATIONS, start=1):
            if version > current:
                conn.execute(sql)
                conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
        return len(MIGRATIONS)
