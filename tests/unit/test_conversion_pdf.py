"""PDF conversion against real PDFs made by pdf_factory."""

from __future__ import annotations

from pathlib import Path

from pdf_factory import write_blank_pdf, write_text_pdf

from pipelines.conversion import convert
from pipelines.documents import ConversionFailure, Document, FailureReason
from pipelines.sources.item import SourceItem


def _convert_pdf(data: bytes) -> Document | ConversionFailure:
    return convert(SourceItem(uri="file:///docs/handbook.pdf", data=data), "hr")


def test_two_page_pdf_has_page_sections(tmp_path: Path) -> None:
    path = tmp_path / "handbook.pdf"
    data = write_text_pdf(path, ["Employee Handbook\nVacation (paid) policy", "Expenses C:\\tmp"])
    assert path.read_bytes() == data
    doc = _convert_pdf(data)
    assert isinstance(doc, Document), doc
    assert [(s.title, s.position) for s in doc.sections] == [("Page 1", 0), ("Page 2", 1)]
    assert "Vacation (paid) policy" in doc.sections[0].text
    assert "Expenses C:\\tmp" in doc.sections[1].text
    assert "Expenses" not in doc.sections[0].text
    assert "Vacation (paid) policy" in doc.text and "Expenses" in doc.text
    assert doc.title == "Employee Handbook"
    assert doc.metadata == {"format": "pdf", "pages": "2"}


def test_metadata_title_wins() -> None:
    doc = _convert_pdf(write_text_pdf(None, ["first line"], title="Official Title"))
    assert isinstance(doc, Document)
    assert doc.title == "Official Title"


def test_blank_page_is_skipped_but_numbering_kept() -> None:
    doc = _convert_pdf(write_text_pdf(None, ["", "only on page two"]))
    assert isinstance(doc, Document)
    assert [(s.title, s.position) for s in doc.sections] == [("Page 2", 0)]


def test_encrypted_pdf_is_encrypted_failure() -> None:
    result = _convert_pdf(write_text_pdf(None, ["top secret"], password="hunter2"))
    assert isinstance(result, ConversionFailure)
    assert result.reason is FailureReason.ENCRYPTED
    assert result.source_uri == "file:///docs/handbook.pdf"


def test_pdf_with_empty_user_password_opens() -> None:
    doc = _convert_pdf(write_text_pdf(None, ["readable by all"], password=""))
    assert isinstance(doc, Document), doc
    assert "readable by all" in doc.text


def test_truncated_pdf_is_corrupt() -> None:
    data = write_text_pdf(None, ["some text", "more text"])
    result = _convert_pdf(data[: len(data) // 3])
    assert isinstance(result, ConversionFailure)
    assert result.reason is FailureReason.CORRUPT


def test_garbage_bytes_are_corrupt() -> None:
    result = _convert_pdf(b"this is not a pdf at all \x00\xff" * 10)
    assert isinstance(result, ConversionFailure)
    assert result.reason is FailureReason.CORRUPT
    assert result.detail


def test_image_only_pdf_is_empty() -> None:
    result = _convert_pdf(write_blank_pdf(None, page_count=3))
    assert isinstance(result, ConversionFailure)
    assert result.reason is FailureReason.EMPTY
    assert result.detail == "no extractable text (image-only PDF?)"
