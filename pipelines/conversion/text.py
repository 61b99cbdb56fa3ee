"""Plain text files: no structure to recover, only a title guess and a tolerant decode."""

from __future__ import annotations

from pipelines.conversion._common import build_document, clean_text, decode_text, first_line_title
from pipelines.documents import Document
from pipelines.sources.item import SourceItem


def convert_text(item: SourceItem, space: str) -> Document:
    text = clean_text(decode_text(item.data))
    return build_document(
        item, space, fmt="text", title=first_line_title(text, item.uri), text=text
    )
