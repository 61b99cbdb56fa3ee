"""Wiring for the two modes. Only the keyword index and the task runner differ between them:
documents and vectors always live in Postgres/pgvector.

- embedded: Postgres from the wheel + tantivy under WIKIFUSE_HOME, stages run in-process;
- cluster: a Postgres server, OpenSearch, stages run by Celery workers through a TaskQueue.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType

from pipelines.embedding.embedder import Embedder, load_embedder
from pipelines.embedding.query_cache import CachedQueryEmbedder
from pipelines.ingest.cluster_jobs import ClusterJobs, TaskQueue
from pipelines.ingest.service import IngestService
from pipelines.ingest.stages import IngestStages
from pipelines.keyword.base import KeywordIndex
from pipelines.search.service import SearchService
from pipelines.settings import Settings
from pipelines.stores.database import Database
from pipelines.stores.documents import DocumentStore
from pipelines.stores.jobs import JobStore
from pipelines.stores.vectors import PgVectorIndex


class Runtime:
    """Everything one process needs; open it once, share it, close it on exit."""

    def __init__(self, settings: Settings, database: Database, keyword: KeywordIndex) -> None:
        self.settings = settings
        self.database = database
        self.keyword = keyword
        self.documents = DocumentStore(database)
        self.vectors = PgVectorIndex(database, settings.hnsw_ef_search)
        self.jobs_store = JobStore(database)
        self._executor = ThreadPoolExecutor(max_workers=8, thread_name_prefix="wikifuse-search")
        self._query_embedder: CachedQueryEmbedder | None = None
        self._lock = threading.Lock()
        self.stages = IngestStages(
            documents=self.documents,
            vectors=self.vectors,
            keyword=keyword,
            embedder=self.embedder,
            settings=settings,
        )
        # In-process ingest: the embedded default, and `wikifuse eval` in either mode.
        self.ingest = IngestService(
            stages=self.stages, jobs=self.jobs_store, max_file_bytes=settings.max_file_bytes
        )
        self.search = SearchService(
            keyword=keyword,
            vectors=self.vectors,
            documents=self.documents,
            query_embedder=self.query_embedder,
            executor=self._executor,
            settings=settings,
        )

    def embedder(self) -> Embedder:
        return load_embedder(self.settings)

    def query_embedder(self) -> CachedQueryEmbedder:
        with self._lock:
            if self._query_embedder is None:
                self._query_embedder = CachedQueryEmbedder(
                    self.embedder(), self.settings.query_cache_size
                )
            return self._query_embedder

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
        self.database.close()

    def __enter__(self) -> Runtime:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class EmbeddedRuntime(Runtime):
    def __init__(self, settings: Settings) -> None:
        from pipelines.keyword.tantivy_index import TantivyKeywordIndex
        from pipelines.stores.embedded_postgres import EmbeddedPostgres

        settings.home.mkdir(parents=True, exist_ok=True)
        self.postgres = EmbeddedPostgres(settings.postgres_dir)
        try:
            database = Database(self.postgres.uri)
        except Exception:
            self.postgres.stop()
            raise
        super().__init__(settings, database, TantivyKeywordIndex(settings.keyword_index_dir))

    def close(self) -> None:
        super().close()
        self.postgres.stop()


class ClusterRuntime(Runtime):
    def __init__(self, settings: Settings, queue: TaskQueue | None = None) -> None:
        from pipelines.keyword.opensearch_index import OpenSearchKeywordIndex

        if not settings.database_url:
            raise ValueError("cluster mode needs WIKIFUSE_DATABASE_URL")
        self.opensearch = OpenSearchKeywordIndex(
            settings.opensearch_url,
            settings.opensearch_index,
            timeout_s=settings.opensearch_timeout_s,
        )
        super().__init__(settings, Database(settings.database_url), self.opensearch)
        self._queue = queue

    @property
    def jobs(self) -> ClusterJobs:
        if self._queue is None:
            raise RuntimeError("this process was opened without a task queue")
        return ClusterJobs(
            db=self.database, stages=self.stages, queue=self._queue, settings=self.settings
        )


def open_runtime(settings: Settings, queue: TaskQueue | None = None) -> Runtime:
    """The runtime for the configured mode."""
    if settings.mode == "cluster":
        return ClusterRuntime(settings, queue)
    return EmbeddedRuntime(settings)
