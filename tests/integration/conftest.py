"""Integration fixtures: the real embedded stores (Postgres + pgvector from the wheel, tantivy on
disk) under a temporary WIKIFUSE_HOME, and the real embedding model."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from integration_paths import SAMPLE_WIKI

from pipelines.runtime import EmbeddedRuntime
from pipelines.settings import Settings


@pytest.fixture(scope="session")
def settings() -> Iterator[Settings]:
    # Not under pytest's tmp folder: that one is private to root, and the embedded server runs
    # as its own OS user.
    home = Path(tempfile.mkdtemp(prefix="wikifuse-test-"))
    yield Settings(home=home)
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def runtime(settings: Settings) -> Iterator[EmbeddedRuntime]:
    with EmbeddedRuntime(settings) as opened:
        yield opened


@pytest.fixture()
def wiki_copy(tmp_path: Path) -> Path:
    """A private copy of the sample wiki that a test may change."""
    target = tmp_path / "wiki"
    shutil.copytree(SAMPLE_WIKI, target)
    return target


@pytest.fixture(scope="session")
def sample_space(runtime: EmbeddedRuntime) -> str:
    """The sample wiki, ingested once for the read-only tests."""
    runtime.ingest.ingest_paths([SAMPLE_WIKI], "samples")
    return "samples"
