"""Real PDFs built with pypdf, so conversion tests need no binary fixtures in the repo."""

from __future__ import annotations

import io
from pathlib import Path

from pypdf import PdfWriter
from pypdf.generic import ContentStream, DictionaryObject, NameObject

_PAGE_WIDTH = 612
_PAGE_HEIGHT = 792


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _content_stream(text: str) -> bytes:
    """One line of Helvetica text per input line, top-down from the page's top-left margin."""
    ops = ["BT", "/F1 12 Tf", "14 TL", f"72 {_PAGE_HEIGHT - 72} Td"]
    for line in text.splitlines():
        ops.append(f"({_escape(line)}) Tj T*")
    ops.append("ET")
    return "\n".join(ops).encode("latin-1")


def _font_resources() -> DictionaryObject:
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
            NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
        }
    )
    return DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})


def write_text_pdf(
    path: Path | str | None,
    pages: list[str],
    *,
    title: str | None = None,
    password: str | None = None,
) -> bytes:
    """Build a PDF with one page per entry; an empty entry makes a blank (text-free) page.

    Writes the bytes to `path` when given and returns them either way.
    """
    writer = PdfWriter()
    for text in pages:
        page = writer.add_blank_page(width=_PAGE_WIDTH, height=_PAGE_HEIGHT)
        if not text:
            continue
        page[NameObject("/Resources")] = _font_resources()
        stream = ContentStream(None, writer)
        stream.set_data(_content_stream(text))
        page.replace_contents(stream)
    if title is not None:
        writer.add_metadata({"/Title": title})
    if password is not None:
        writer.encrypt(user_password=password, owner_password=password + "-owner")
    buffer = io.BytesIO()
    writer.write(buffer)
    data = buffer.getvalue()
    if path is not None:
        Path(path).write_bytes(data)
    return data


def write_blank_pdf(path: Path | str | None, page_count: int = 2) -> bytes:
    """A PDF whose pages carry no text at all, like a scan without OCR."""
    return write_text_pdf(path, [""] * page_count)
