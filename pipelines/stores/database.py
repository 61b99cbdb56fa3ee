"""A connection pool to the Postgres that holds documents, vectors and jobs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import ConnectionPool, PoolTimeout

from pipelines.stores.schema import migrate


class DatabaseUnavailable(RuntimeError):
    pass


class Database:
    def __init__(self, uri: str, *, max_size: int = 8, timeout_s: float = 5.0) -> None:
        try:
            with psycopg.connect(uri, autocommit=True, connect_timeout=int(timeout_s)) as conn:
                migrate(conn)
        except psycopg.OperationalError as error:
            raise DatabaseUnavailable(f"cannot reach Postgres: {error}".strip()) from error
        self._pool = ConnectionPool(
            uri,
            min_size=1,
            max_size=max_size,
            configure=register_vector,
            timeout=timeout_s,
            # A connection that died with the server is dropped, not handed out again.
            check=ConnectionPool.check_connection,
            kwargs={"connect_timeout": int(timeout_s)},
            open=True,
        )

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        try:
            with self._pool.connection() as conn:
                yield conn
        except (psycopg.OperationalError, PoolTimeout) as error:
            raise DatabaseUnavailable(f"cannot reach Postgres: {error}".strip()) from error

    def ping(self) -> bool:
        try:
            with self.connection() as conn:
                conn.execute("SELECT 1")
            return True
        except DatabaseUnavailable:
            return False

    def close(self) -> None:
        self._pool.close()
