"""The BM25 keyword index seam: tantivy (embedded) and OpenSearch (cluster) implement it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pipelines.documents import Document
from pipelines.fusion import Hit
from pipelines.search.filters import SearchFilters


class KeywordIndexUnavailable(RuntimeError):
    """The keyword index cannot be reached; search may still answer from vectors."""


class KeywordIndex(Protocol):
    def upsert(self, documents: Sequence[Document]) -> None: ...

    def delete(self, doc_ids: Sequence[str]) -> None: ...

    def search(self, query: str, *, limit: int, filters: SearchFilters) -> list[Hit]: ...

    def ids(self, space: str) -> set[str]: ...

    def refresh(self) -> None:
        """Make every write so far visible to search (writes may be batched until then)."""
        ...
