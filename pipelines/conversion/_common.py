"""Shared pieces of the format converters: failures as exceptions, decoding, titles, assembly."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath
from urllib.parse import unquote

from pipelines.analysis.language import detect_language
from pipelines.documents import (
    Document,
    FailureReason,
    Section,
    content_hash,
    document_id,
)
from pipelines.sources.item import SourceItem

MAX_TITLE_CHARS = 120

# C0 controls except tab/newline/carriage return, plus DEL: NUL in particular breaks Postgres text.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BLANK_RUN = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


class ConversionError(Exception):
    """Raised inside a converter; `convert()` turns it into a ConversionFailure."""

    def __init__(self, reason: FailureReason, detail: str = "") -> None:
        super().__init__(detail or reason.value)
        self.reason = reason
        self.detail = detail


def decode_text(data: bytes) -> str:
    """UTF-8 (BOM or not), UTF-16 when it has a BOM, else latin-1, which never fails."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def clean_text(text: str) -> str:
    """Unix newlines, no control characters, no trailing spaces, at most one blank line in a row."""
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_RUN.sub("\n\n", text).strip()


def stem_title(uri: str) -> str:
    path = PurePosixPath(unquote(uri.split("?", 1)[0]))
    return path.stem or path.name or uri


def first_line_title(text: str, uri: str) -> str:
    """The first non-empty line when it is short enough to be a title, else the file stem."""
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= MAX_TITLE_CHARS else stem_title(uri)
    return stem_title(uri)


def string_list(value: object, key: str) -> tuple[str, ...]:
    """A YAML list or a comma-separated string, stripped and de-duplicated in order."""
    if value is None:
        return ()
    if isinstance(value, str):
        items: Iterable[object] = value.split(",")
    elif isinstance(value, list | tuple):
        items = value
    else:
        raise ConversionError(
            FailureReason.CORRUPT,
            f"front matter {key!r} must be a list or a comma-separated string",
        )
    seen: dict[str, None] = {}
    for item in items:
        text = str(item).strip()
        if text:
            seen.setdefault(text, None)
    return tuple(seen)


def build_document(
    item: SourceItem,
    space: str,
    *,
    fmt: str,
    title: str,
    text: str,
    sections: Iterable[Section] = (),
    tags: tuple[str, ...] = (),
    acl_groups: tuple[str, ...] = (),
    metadata: dict[str, str] | None = None,
) -> Document:
    """Assemble the Document; text that is empty after cleaning is a failure, not a document."""
    text = clean_text(text)
    if not text:
        raise ConversionError(FailureReason.EMPTY, "no text after conversion")
    title = clean_text(title).replace("\n", " ") or stem_title(item.uri)
    kept = [
        (clean_text(section.title).replace("\n", " "), clean_text(section.text))
        for section in sections
    ]
    return Document(
        id=document_id(space, item.uri),
        space=space,
        source_uri=item.uri,
        title=title,
        text=text,
        sections=tuple(
            Section(title=s_title, text=s_text, position=position)
            for position, (s_title, s_text) in enumerate((t, x) for t, x in kept if x)
        ),
        tags=tags,
        acl_groups=acl_groups,
        language=detect_language(text),
        content_hash=content_hash(title, text),
        metadata={**(metadata or {}), "format": fmt},
    )
