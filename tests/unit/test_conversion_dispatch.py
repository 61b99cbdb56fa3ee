"""convert(): dispatch by suffix, size limit, and the never-raise guarantee."""

from __future__ import annotations

import pytest

from pipelines.conversion import SUPPORTED_SUFFIXES, convert, text
from pipelines.documents import ConversionFailure, Document, FailureReason
from pipelines.sources.item import SourceItem


def test_unsupported_suffix() -> None:
    result = convert(SourceItem(uri="file:///a/report.docx", data=b"PK\x03\x04"), "s")
    assert isinstance(result, ConversionFailure)
    assert result.reason is FailureReason.UNSUPPORTED
    assert ".docx" in result.detail


def test_no_suffix_is_unsupported() -> None:
    result = convert(SourceItem(uri="file:///a/Makefile", data=b"all:"), "s")
    assert isinstance(result, ConversionFailure)
    assert result.reason is FailureReason.UNSUPPORTED


def test_too_large() -> None:
    item = SourceItem(uri="file:///a/big.txt", data=b"x" * 101)
    result = convert(item, "s", max_bytes=100)
    assert isinstance(result, ConversionFailure)
    assert result.reason is FailureReason.TOO_LARGE
    assert "101" in result.detail
    assert isinstance(convert(item, "s", max_bytes=101), Document)


@pytest.mark.parametrize("suffix", sorted(SUPPORTED_SUFFIXES))
def test_empty_file_is_empty_for_every_format(suffix: str) -> None:
    result = convert(SourceItem(uri=f"file:///a/empty{suffix}", data=b""), "s")
    assert isinstance(result, ConversionFailure)
    assert result.reason is FailureReason.EMPTY


def test_whitespace_only_text_is_empty() -> None:
    result = convert(SourceItem(uri="file:///a/blank.txt", data=b" \n\t\n"), "s")
    assert isinstance(result, ConversionFailure)
    assert result.reason is FailureReason.EMPTY


def test_unexpected_exception_becomes_corrupt(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(data: bytes) -> str:
        raise RuntimeError("decoder exploded")

    monkeypatch.setattr(text, "decode_text", boom)
    result = convert(SourceItem(uri="file:///a/x.txt", data=b"hi"), "s")
    assert isinstance(result, ConversionFailure)
    assert result.reason is FailureReason.CORRUPT
    assert "decoder exploded" in result.detail


@pytest.mark.parametrize(
    "data",
    [b"<html><body>", b"\x00\x01\x02\xff" * 50, b"<?xml version='1.0'?><a/>", b"<<<>>>"],
)
def test_hostile_html_never_raises(data: bytes) -> None:
    result = convert(SourceItem(uri="file:///a/x.html", data=data), "s")
    assert isinstance(result, Document | ConversionFailure)
