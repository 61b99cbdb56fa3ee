"""Plain-text conversion: title guess and tolerant decoding."""

from __future__ import annotations

from pipelines.conversion import convert
from pipelines.documents import Document, content_hash, document_id
from pipelines.sources.item import SourceItem


def _convert_txt(data: bytes, uri: str = "file:///notes/standup.txt") -> Document:
    result = convert(SourceItem(uri=uri, data=data), "team")
    assert isinstance(result, Document), result
    return result


def test_short_first_line_is_title() -> None:
    doc = _convert_txt(b"\n\n  Standup notes  \nAlice: fixed the build.\r\nBob: on call.\n")
    assert doc.title == "Standup notes"
    assert doc.text == "Standup notes\nAlice: fixed the build.\nBob: on call."
    assert doc.id == document_id("team", "file:///notes/standup.txt")
    assert doc.source_uri == "file:///notes/standup.txt"
    assert doc.content_hash == content_hash(doc.title, doc.text)
    assert doc.metadata == {"format": "text"}
    assert doc.sections == ()


def test_long_first_line_falls_back_to_stem() -> None:
    doc = _convert_txt(("word " * 40).encode() + b"\nmore")
    assert doc.title == "standup"


def test_latin1_bytes_do_not_fail() -> None:
    doc = _convert_txt("Café crème für Bücher".encode("latin-1"))
    assert doc.text == "Café crème für Bücher"


def test_utf8_bom_and_utf16_are_decoded() -> None:
    assert _convert_txt("\ufeffÜbersicht".encode()).text == "Übersicht"
    assert _convert_txt("Übersicht 概要".encode("utf-16")).text == "Übersicht 概要"


def test_nul_and_control_characters_are_removed() -> None:
    assert _convert_txt(b"a\x00b\x07c\n").text == "abc"


def test_dot_text_suffix_and_query_string() -> None:
    doc = _convert_txt(b"hello", uri="https://host/files/readme.TEXT?version=3")
    assert doc.title == "hello"
    assert doc.metadata["format"] == "text"
