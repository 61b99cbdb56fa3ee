"""PDF files via pypdf: one section per page, so hits can point at a page number.

Encrypted, broken and image-only PDFs are told apart, since each needs a different fix
from the person who owns the file (a password, a re-export, OCR).
"""

from __future__ import annotations

import io

from pypdf import PasswordType, PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError, PyPdfError

from pipelines.conversion._common import ConversionError, build_document, first_line_title
from pipelines.documents import Document, FailureReason, Section
from pipelines.sources.item import SourceItem


def _open(data: bytes) -> PdfReader:
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
            raise ConversionError(FailureReason.ENCRYPTED, "needs a password")
        return reader
    except DependencyError as exc:  # AES without the cryptography package
        raise ConversionError(FailureReason.ENCRYPTED, str(exc)) from exc
    except FileNotDecryptedError as exc:
        raise ConversionError(FailureReason.ENCRYPTED, str(exc)) from exc
    except PyPdfError as exc:
        raise ConversionError(FailureReason.CORRUPT, str(exc)) from exc


def _metadata_title(reader: PdfReader) -> str:
    try:
        info = reader.metadata
        return (info.title or "").strip() if info is not None else ""
    except Exception:  # a damaged /Info dictionary must not cost us the text
        return ""


def convert_pdf(item: SourceItem, space: str) -> Document:
    reader = _open(item.data)
    try:
        pages = list(reader.pages)
    except FileNotDecryptedError as exc:
        raise ConversionError(FailureReason.ENCRYPTED, str(exc)) from exc
    except PyPdfError as exc:
        raise ConversionError(FailureReason.CORRUPT, f"cannot read pages: {exc}") from exc
    sections: list[Section] = []
    errors: list[str] = []
    for number, page in enumerate(pages, start=1):
        try:
            text = (page.extract_text() or "").strip()
        except Exception as exc:  # malformed content streams raise all sorts of errors
            errors.append(f"page {number}: {type(exc).__name__}: {exc}")
            continue
        if text:
            sections.append(Section(title=f"Page {number}", text=text, position=len(sections)))
    if not sections:
        if errors:
            raise ConversionError(FailureReason.CORRUPT, errors[0])
        raise ConversionError(FailureReason.EMPTY, "no extractable text (image-only PDF?)")
    text = "\n\n".join(section.text for section in sections)
    metadata = {"pages": str(len(pages))}
    if errors:
        metadata["unreadable_pages"] = str(len(errors))
    return build_document(
        item,
        space,
        fmt="pdf",
        title=_metadata_title(reader) or first_line_title(text, item.uri),
        text=text,
        sections=sections,
        metadata=metadata,
    )
