"""Typed settings from WIKIFUSE_* environment variables."""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from pipelines.embedding.passages import Granularity, vector_key

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def _default_home() -> Path:
    return Path(platformdirs.user_data_dir("wikifuse"))


def _default_model_dir() -> Path:
    # Assembled at install time next to the interpreter, so every WIKIFUSE_HOME shares one copy.
    return Path(sys.prefix) / "share" / "wikifuse" / "models" / "all-MiniLM-L6-v2"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="WIKIFUSE_", extra="ignore")

    home: Path = Field(default_factory=_default_home)
    embedding_model: str = DEFAULT_MODEL
    model_dir: Path = Field(default_factory=_default_model_dir)
    embed_batch_size: int = Field(default=32, ge=1)
    # Characters of title + leading text handed to the model; it keeps 256 tokens anyway.
    embed_max_chars: int = Field(default=2000, ge=100)
    # page: one vector per document (title + leading text); section: one per passage of each
    # section, a document scoring as its best passage (see pipelines/embedding/passages.py).
    embed_granularity: Granularity = "page"
    embed_passage_chars: int = Field(default=1000, ge=100)
    embed_max_passages: int = Field(default=64, ge=1)
    candidates: int = Field(default=20, ge=1, le=1000)
    rrf_k: int = Field(default=60, ge=1)
    pin_ratio: float | None = Field(default=1.05, gt=1.0)
    hnsw_ef_search: int = Field(default=100, ge=1, le=1000)
    query_cache_size: int = Field(default=256, ge=0)
    max_file_bytes: int = Field(default=50_000_000, ge=1)
    log_format: Literal["auto", "console", "json"] = "auto"
    log_level: str = "WARNING"

    # Cluster mode: Postgres/pgvector server, OpenSearch BM25, Celery workers on Redis.
    mode: Literal["embedded", "cluster"] = "embedded"
    database_url: str | None = None
    redis_url: str = "redis://127.0.0.1:6379/0"
    opensearch_url: str = "http://127.0.0.1:9200"
    opensearch_index: str = "wikifuse"
    opensearch_timeout_s: float = Field(default=10.0, gt=0)
    # How long an unacknowledged task waits before Redis hands it to another worker (a worker
    # killed mid-task). Longer than the slowest task, or that task runs twice (harmlessly).
    task_visibility_timeout_s: int = Field(default=3600, ge=5)
    task_max_retries: int = Field(default=5, ge=0)

    def vector_key(self, fingerprint: str) -> str:
        """Vectors of this model at the configured granularity are stored under this key."""
        return vector_key(fingerprint, self.embed_granularity)

    @property
    def postgres_dir(self) -> Path:
        return self.home / "postgres"

    @property
    def keyword_index_dir(self) -> Path:
        return self.home / "bm25"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
