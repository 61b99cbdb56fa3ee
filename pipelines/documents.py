"""The document model every stage passes along: what a source became after conversion."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from enum import StrEnum


@dataclass(frozen=True)
class Section:
    """A heading's text (Markdown/HTML) or a page (PDF), in document order."""

    title: str
    text: str
    position: int


@dataclass(frozen=True)
class Document:
    """A converted source. `id` is stable for the same space and source URI."""

    id: str
    space: str
    source_uri: str
    title: str
    text: str
    sections: tuple[Section, ...] = ()
    tags: tuple[str, ...] = ()
    acl_groups: tuple[str, ...] = ()
    language: str = "und"
    content_hash: str = ""
    metadata: dict[str, str] = field(default_factory=dict)


class FailureReason(StrEnum):
    ENCRYPTED = "encrypted"
    CORRUPT = "corrupt"
    EMPTY = "empty"
    TOO_LARGE = "too large"
    UNSUPPORTED = "unsupported type"
    UNREADABLE = "unreadable"


@dataclass(frozen=True)
class ConversionFailure:
    """Why a source produced no document; recorded, never raised past the job."""

    source_uri: str
    reason: FailureReason
    detail: str = ""

    def describe(self) -> str:
        return f"{self.reason.value}: {self.detail}" if self.detail else self.reason.value


def document_id(space: str, source_uri: str) -> str:
    """Stable id from space + URI, short enough to show and safe in URLs."""
    return hashlib.sha256(f"{space}\x00{source_uri}".encode()).hexdigest()[:24]


_WHITESPACE = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """Whitespace-insensitive form, so reflowed text does not count as a change."""
    return _WHITESPACE.sub(" ", text).strip()


def content_hash(title: str, text: str) -> str:
    normalized = normalize_text(title) + "\n" + normalize_text(text)
    return hashlib.sha256(normalized.encode()).hexdigest()
