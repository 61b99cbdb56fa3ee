"""The HTTP API: a thin, stateless layer over the pipelines' search and job services."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import structlog
from fastapi import FastAPI, HTTPException, Request, Response
from fastapi.responses import JSONResponse, PlainTextResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from api.metrics import ApiMetrics, JobTaskCollector, QueueDepthCollector
from api.schemas import (
    DocumentOut,
    HealthOut,
    JobCreated,
    JobIn,
    JobOut,
    ReadyOut,
    ResultOut,
    SearchBody,
    SearchOut,
    SectionOut,
)
from pipelines.ingest.cluster_jobs import JobError, JobStatus
from pipelines.keyword.base import KeywordIndexUnavailable
from pipelines.runtime import ClusterRuntime, Runtime, open_runtime
from pipelines.search.filters import SearchFilters
from pipelines.search.service import EmptyQuery, SearchRequest
from pipelines.settings import Settings
from pipelines.stores.database import DatabaseUnavailable

log = structlog.get_logger(__name__)


def default_runtime(settings: Settings) -> Runtime:
    if settings.mode == "cluster":
        from workers.celery_app import CeleryTaskQueue, make_celery

        return open_runtime(settings, CeleryTaskQueue(make_celery(settings)))
    return open_runtime(settings)


def create_app(
    settings: Settings, runtime_factory: Callable[[Settings], Runtime] = default_runtime
) -> FastAPI:
    metrics = ApiMetrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = runtime_factory(settings)
        app.state.runtime = runtime
        metrics.watch(JobTaskCollector(runtime.database))
        if settings.mode == "cluster":
            from workers.celery_app import queue_depths

            metrics.watch(QueueDepthCollector(lambda: queue_depths(settings.redis_url)))
        try:
            yield
        finally:
            runtime.close()

    app = FastAPI(
        title="wikifuse",
        summary="Hybrid search over team knowledge: BM25 + embeddings, RRF with the BM25 pin.",
        version="0.1.0",
        lifespan=lifespan,
    )

    @app.middleware("http")
    async def request_id(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        rid = request.headers.get("x-request-id") or uuid.uuid4().hex
        structlog.contextvars.bind_contextvars(request_id=rid)
        try:
            response = await call_next(request)
        finally:
            structlog.contextvars.unbind_contextvars("request_id")
        if response.status_code >= 500 or response.status_code in (400, 422):
            metrics.http_errors.labels(request.url.path, str(response.status_code)).inc()
        response.headers["x-request-id"] = rid
        return response

    @app.exception_handler(DatabaseUnavailable)
    async def database_down(request: Request, error: DatabaseUnavailable) -> JSONResponse:
        log.error("database.unavailable", error=str(error))
        return JSONResponse(status_code=503, content={"detail": str(error)})

    @app.exception_handler(KeywordIndexUnavailable)
    async def keyword_down(request: Request, error: KeywordIndexUnavailable) -> JSONResponse:
        log.error("keyword_index.unavailable", error=str(error))
        return JSONResponse(status_code=503, content={"detail": str(error)})

    def runtime(request: Request) -> Runtime:
        current: Runtime = request.app.state.runtime
        return current

    def cluster(request: Request) -> ClusterRuntime:
        current = runtime(request)
        if not isinstance(current, ClusterRuntime):
            raise HTTPException(
                status_code=409,
                detail="jobs run on cluster workers (WIKIFUSE_MODE=cluster); "
                "in the embedded mode use `wikifuse ingest`",
            )
        return current

    @app.get("/healthz", response_model=HealthOut, summary="Liveness")
    def healthz() -> HealthOut:
        return HealthOut(status="ok")

    @app.get("/readyz", response_model=ReadyOut, summary="Readiness: dependencies reachable")
    def readyz(request: Request, response: Response) -> ReadyOut:
        current = runtime(request)
        checks = {"postgres": current.database.ping()}
        if isinstance(current, ClusterRuntime):
            from workers.celery_app import redis_reachable

            checks["opensearch"] = current.opensearch.ping()
            checks["redis"] = redis_reachable(settings.redis_url)
        ready = all(checks.values())
        response.status_code = 200 if ready else 503
        return ReadyOut(status="ready" if ready else "unavailable", checks=checks)

    @app.get("/metrics", summary="Prometheus metrics", response_class=PlainTextResponse)
    def prometheus() -> Response:
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    @app.post("/search", response_model=SearchOut, summary="Hybrid, BM25 or vector search")
    def search(body: SearchBody, request: Request) -> SearchOut:
        filters = SearchFilters(
            space=body.space,
            tags=tuple(body.tags),
            acl_groups=tuple(body.groups) if body.groups is not None else None,
        )
        started = time.perf_counter()
        try:
            response = runtime(request).search.search(
                SearchRequest(body.query, mode=body.mode, k=body.k, filters=filters)
            )
        except EmptyQuery as error:
            raise HTTPException(status_code=422, detail=str(error)) from error
        finally:
            metrics.search_seconds.labels(body.mode).observe(time.perf_counter() - started)
        return SearchOut(
            query=response.query,
            mode=response.mode,
            mode_used=response.mode_used,
            notes=response.notes,
            timings_ms={key: round(value, 3) for key, value in response.timings_ms.items()},
            results=[
                ResultOut(
                    rank=r.rank, id=r.doc_id, title=r.title, source=r.source_uri, space=r.space,
                    snippet=r.snippet, rrf_score=r.rrf_score, bm25_rank=r.bm25_rank,
                    bm25_score=r.bm25_score, vector_rank=r.vector_rank,
                    vector_score=r.vector_score, pinned=r.pinned,
                )
                for r in response.results
            ],
        )  # fmt: skip

    @app.get("/documents/{doc_id}", response_model=DocumentOut, summary="One stored document")
    def document(doc_id: str, request: Request) -> DocumentOut:
        doc = runtime(request).documents.get(doc_id)
        if doc is None:
            raise HTTPException(status_code=404, detail=f"no document with id {doc_id!r}")
        return DocumentOut(
            id=doc.id, space=doc.space, source=doc.source_uri, title=doc.title, text=doc.text,
            tags=list(doc.tags), acl_groups=list(doc.acl_groups), language=doc.language,
            content_hash=doc.content_hash,
            sections=[
                SectionOut(position=s.position, title=s.title, text=s.text) for s in doc.sections
            ],
        )  # fmt: skip

    @app.post("/jobs", response_model=JobCreated, status_code=202, summary="Submit an ingest job")
    def submit_job(body: JobIn, request: Request) -> JobCreated:
        try:
            job_id = cluster(request).jobs.submit(body.sources, body.space, sync=body.sync)
        except JobError as error:
            raise HTTPException(status_code=422, detail=str(error)) from error
        return JobCreated(id=job_id, state="queued")

    @app.get("/jobs/{job_id}", response_model=JobOut, summary="A job's state and counts")
    def job(job_id: str, request: Request) -> JobOut:
        status = cluster(request).jobs.status(job_id)
        if status is None:
            raise HTTPException(status_code=404, detail=f"no job with id {job_id!r}")
        return job_out(status)

    return app


def job_out(status: JobStatus) -> JobOut:
    counts = {**status.counts, "queued": max(status.counts["total"] - status.processed, 0)}
    return JobOut(
        id=status.id, state=status.state, space=status.space, sources=status.sources,
        counts=counts, failures=status.failures, tasks=status.tasks,
        created_at=status.created_at.isoformat(),
        finished_at=status.finished_at.isoformat() if status.finished_at else None,
        error=status.error,
    )  # fmt: skip
