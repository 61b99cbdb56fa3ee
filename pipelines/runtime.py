"""Wires the embedded default: Postgres from the wheel + tantivy under WIKIFUSE_HOME, tasks
in-process. The cluster mode swaps the keyword index and the task runner, nothing else."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType

from pipelines.embedding.embedder import Embedder, load_embedder
from pipelines.embedding.query_cache import CachedQueryEmbedder
from pipelines.ingest.service import IngestService
from pipelines.ingest.stages import IngestStages
from pipelines.keyword.tantivy_index import TantivyKeywordIndex
from pipelines.search.service import SearchService
from pipelines.settings import Settings
from pipelines.stores.database import Database
from pipelines.stores.documents import DocumentStore
from pipelines.stores.embedded_postgres import EmbeddedPostgres
from pipelines.stores.jobs import JobStore
from pipelines.stores.vectors import PgVectorIndex


class EmbeddedRuntime:
    """Everything one process needs; open it once, share it, close it on exit."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        settings.home.mkdir(parents=True, exist_ok=True)
        self.postgres = EmbeddedPostgres(settings.postgres_dir)
        self.database = Database(self.postgres.uri)
        self.documents = DocumentStore(self.database)
        self.vectors = PgVectorIndex(self.database, settings.hnsw_ef_search)
        self.jobs = JobStore(self.database)
        self.keyword = TantivyKeywordIndex(settings.keyword_index_dir)
        self._executor = ThreadPoolExecutor(max_workers=8, thread_name_prefix="wikifuse-search")
        self._query_embedder: CachedQueryEmbedder | None = None
        self._lock = threading.Lock()
        self.stages = IngestStages(
            documents=self.documents,
            vectors=self.vectors,
            keyword=self.keyword,
            embedder=self.embedder,
            settings=settings,
        )
        self.ingest = IngestService(
            stages=self.stages, jobs=self.jobs, max_file_bytes=settings.max_file_bytes
        )
        self.search = SearchService(
            keyword=self.keyword,
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
        self.postgres.stop()

    def __enter__(self) -> EmbeddedRuntime:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
