"""Conversion stage: turn a SourceItem's bytes into a Document, or say why not.

`convert` never raises for a bad file: one broken source must not stop an ingest job.
"""

from __future__ import annotations

from collections.abc import Callable

from pipelines.conversion._common import ConversionError
from pipelines.conversion.html import convert_html
from pipelines.conversion.markdown import convert_markdown
from pipelines.conversion.pdf import convert_pdf
from pipelines.conversion.text import convert_text
from pipelines.documents import ConversionFailure, Document, FailureReason
from pipelines.sources.item import SourceItem

__all__ = ["SUPPORTED_SUFFIXES", "convert"]

_CONVERTERS: dict[str, Callable[[SourceItem, str], Document]] = {
    ".pdf": convert_pdf,
    ".html": convert_html,
    ".htm": convert_html,
    ".md": convert_markdown,
    ".markdown": convert_markdown,
    ".txt": convert_text,
    ".text": convert_text,
}
SUPPORTED_SUFFIXES = frozenset(_CONVERTERS)


def convert(
    item: SourceItem, space: str, *, max_bytes: int = 50_000_000
) -> Document | ConversionFailure:
    converter = _CONVERTERS.get(item.suffix)
    if converter is None:
        shown = item.suffix or "(no suffix)"
        return ConversionFailure(
            item.uri, FailureReason.UNSUPPORTED, f"no converter for {shown} files"
        )
    size = len(item.data)
    if size > max_bytes:
        return ConversionFailure(
            item.uri, FailureReason.TOO_LARGE, f"{size} bytes, limit is {max_bytes}"
        )
    if size == 0:
        return ConversionFailure(item.uri, FailureReason.EMPTY, "empty file")
    try:
        return converter(item, space)
    except ConversionError as exc:
        return ConversionFailure(item.uri, exc.reason, exc.detail)
    except Exception as exc:  # last resort: one bad file must never stop a job
        return ConversionFailure(item.uri, FailureReason.CORRUPT, f"{type(exc).__name__}: {exc}")
