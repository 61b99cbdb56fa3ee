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
