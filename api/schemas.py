"""HTTP request and response bodies (the OpenAPI docs are generated from these)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from pipelines.search.service import Mode


class SearchBody(BaseModel):
    query: str = Field(min_length=1, max_length=2000, examples=["database failover"])
    mode: Mode = "hybrid"
    k: int = Field(default=10, ge=1, le=1000)
    space: str | None = None
    tags: list[str] = Field(default_factory=list, description="Every tag must be on a result.")
    groups: list[str] | None = Field(
        default=None,
        description="The caller's ACL groups; results are public documents plus those shared "
        "with one of these groups. Omit for no access filtering.",
    )


class ResultOut(BaseModel):
    rank: int
    id: str
    title: str
    source: str
    space: str
    snippet: str
    rrf_score: float
    bm25_rank: int | None
    bm25_score: float | None
    vector_rank: int | None
    vector_score: float | None
    pinned: bool


class SearchOut(BaseModel):
    query: str
    mode: Mode
    mode_used: Mode
    notes: list[str]
    timings_ms: dict[str, float]
    results: list[ResultOut]


class SectionOut(BaseModel):
    position: int
    title: str
    text: str


class DocumentOut(BaseModel):
    id: str
    space: str
    source: str
    title: str
    text: str
    tags: list[str]
    acl_groups: list[str]
    language: str
    content_hash: str
    sections: list[SectionOut]


class HealthOut(BaseModel):
    status: str


class JobIn(BaseModel):
    sources: list[str] = Field(
        min_length=1,
        description="Absolute paths (files or folders, as the workers see them) or http(s) URLs.",
        examples=[["/data/wiki"]],
    )
    space: str = Field(default="default", min_length=1, max_length=200)
    sync: bool = Field(
        default=False, description="Delete documents whose files left the given folders."
    )


class JobCreated(BaseModel):
    id: str
    state: str


class JobOut(BaseModel):
    id: str
    state: str
    space: str
    sources: list[str]
    counts: dict[str, int] = Field(
        description="total, queued, added, updated, unchanged, deleted, failed, embedded, indexed"
    )
    failures: list[dict[str, str]]
    tasks: dict[str, int]
    created_at: str
    finished_at: str | None
    error: str | None


class ReadyOut(BaseModel):
    status: str
    checks: dict[str, bool]
