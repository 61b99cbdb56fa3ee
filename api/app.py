"""The HTTP API: a thin layer over the pipelines' search and document services."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import structlog
from fastapi import FastAPI, HTTPException, Request, Response
from fastapi.responses import JSONResponse

from api.schemas import DocumentOut, HealthOut, ResultOut, SearchBody, SearchOut, SectionOut
from pipelines.runtime import EmbeddedRuntime
from pipelines.search.filters import SearchFilters
from pipelines.search.service import EmptyQuery, SearchRequest
from pipelines.settings import Settings
from pipelines.stores.database import DatabaseUnavailable

log = structlog.get_logger(__name__)


def create_app(
    settings: Settings, runtime_factory: Callable[[Settings], EmbeddedRuntime] = EmbeddedRuntime
) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.runtime = runtime_factory(settings)
        try:
            yield
        finally:
            app.state.runtime.close()

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
        response.headers["x-request-id"] = rid
        return response

    @app.exception_handler(DatabaseUnavailable)
    async def database_down(request: Request, error: DatabaseUnavailable) -> JSONResponse:
        log.error("database.unavailable", error=str(error))
        return JSONResponse(status_code=503, content={"detail": str(error)})

    def runtime(request: Request) -> EmbeddedRuntime:
        runtime: EmbeddedRuntime = request.app.state.runtime
        return runtime

    @app.get("/healthz", response_model=HealthOut, summary="Liveness")
    def healthz() -> HealthOut:
        return HealthOut(status="ok")

    @app.post("/search", response_model=SearchOut, summary="Hybrid, BM25 or vector search")
    def search(body: SearchBody, request: Request) -> SearchOut:
        filters = SearchFilters(
            space=body.space,
            tags=tuple(body.tags),
            acl_groups=tuple(body.groups) if body.groups is not None else None,
        )
        try:
            response = runtime(request).search.search(
                SearchRequest(body.query, mode=body.mode, k=body.k, filters=filters)
            )
        except EmptyQuery as error:
            raise HTTPException(status_code=422, detail=str(error)) from error
        return SearchOut(
            query=response.query,
            mode=response.mode,
            mode_used=response.mode_used,
            notes=response.notes,
            timings_ms={key: round(value, 3) for key, value in response.timings_ms.items()},
            results=[
                ResultOut(
                    rank=r.rank,
                    id=r.doc_id,
                    title=r.title,
                    source=r.source_uri,
                    space=r.space,
                    snippet=r.snippet,
                    rrf_score=r.rrf_score,
                    bm25_rank=r.bm25_rank,
                    bm25_score=r.bm25_score,
                    vector_rank=r.vector_rank,
                    vector_score=r.vector_score,
                    pinned=r.pinned,
                )
                for r in response.results
            ],
        )

    @app.get("/documents/{doc_id}", response_model=DocumentOut, summary="One stored document")
    def document(doc_id: str, request: Request) -> DocumentOut:
        doc = runtime(request).documents.get(doc_id)
        if doc is None:
            raise HTTPException(status_code=404, detail=f"no document with id {doc_id!r}")
        return DocumentOut(
            id=doc.id,
            space=doc.space,
            source=doc.source_uri,
            title=doc.title,
            text=doc.text,
            tags=list(doc.tags),
            acl_groups=list(doc.acl_groups),
            language=doc.language,
            content_hash=doc.content_hash,
            sections=[
                SectionOut(position=s.position, title=s.title, text=s.text) for s in doc.sections
            ],
        )

    return app
