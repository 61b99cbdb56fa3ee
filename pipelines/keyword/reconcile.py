"""Make the keyword index agree with Postgres, the source of truth: index what is missing or
stale (content hash differs), delete what Postgres no longer has."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from pipelines.documents import Document
from pipelines.stores.documents import DocumentStore


class HashedKeywordIndex(Protocol):
    def hashes(self, space: str) -> dict[str, str]: ...

    def spaces(self) -> set[str]: ...

    def upsert(self, documents: list[Document]) -> None: ...

    def delete(self, doc_ids: list[str]) -> None: ...

    def refresh(self) -> None: ...


@dataclass
class ReconcileReport:
    spaces: list[str] = field(default_factory=list)
    checked: int = 0
    missing: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)

    @property
    def repaired(self) -> int:
        return len(self.missing) + len(self.stale) + len(self.extra)


def reconcile(
    documents: DocumentStore,
    index: HashedKeywordIndex,
    space: str | None = None,
    batch_size: int = 500,
) -> ReconcileReport:
    spaces = [space] if space else sorted(documents.spaces() | index.spaces())
    report = ReconcileReport(spaces=spaces)
    for current in spaces:
        truth = {state.id: state.content_hash for state in documents.states(current).values()}
        indexed = index.hashes(current)
        report.checked += len(truth)
        missing = sorted(set(truth) - set(indexed))
        stale = sorted(i for i in set(truth) & set(indexed) if truth[i] != indexed[i])
        extra = sorted(set(indexed) - set(truth))
        to_index = [*missing, *stale]
        for start in range(0, len(to_index), batch_size):
            loaded = documents.get_many(to_index[start : start + batch_size])
            index.upsert(list(loaded.values()))
        if extra:
            index.delete(extra)
        report.missing += missing
        report.stale += stale
        report.extra += extra
    index.refresh()
    return report
