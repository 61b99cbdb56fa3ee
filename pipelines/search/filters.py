"""Filters both retrievers apply inside their own query, never after fusion."""

from __future__ import annotations

from dataclasses import dataclass

PUBLIC_GROUP = "__public__"


@dataclass(frozen=True)
class SearchFilters:
    space: str | None = None
    # Every listed tag must be on the document.
    tags: tuple[str, ...] = ()
    # None: no access filtering (a trusted local user). A tuple: documents without ACL groups plus
    # those sharing at least one group with it.
    acl_groups: tuple[str, ...] | None = None
