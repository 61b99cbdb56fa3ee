"""HTML conversion: main text without boilerplate, title, heading sections."""

from __future__ import annotations

import pytest

from pipelines.conversion import convert, html
from pipelines.documents import Document
from pipelines.sources.item import SourceItem

PAGE = b"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Deploy Guide | Team Wiki</title>
<script>var tracking = "should never be indexed";</script></head>
<body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/teams">All teams directory</a></li></ul></nav>
<header><div class="banner">Welcome to the intranet portal banner</div></header>
<main><article>
<h1>Deploy Guide</h1>
<p>This guide explains how to deploy the payment service to production safely. It covers
the whole rollout from preparation to the final promotion of the canary release.</p>
<h2>Prerequisites</h2>
<p>You need access to the cluster and a valid kubeconfig file for the production
environment before you begin. Ask the platform team for a temporary grant.</p>
<h2>Rollout</h2>
<p>Run the deployment pipeline and watch the canary metrics for at least fifteen minutes
before promoting. Roll back immediately when the error rate doubles.</p>
</article></main>
<footer>Copyright 2024 Example Corp. All rights reserved. Privacy policy.</footer>
</body></html>"""


def _check_page(doc: Document) -> None:
    assert doc.title == "Deploy Guide"
    assert "deploy the payment service to production safely" in doc.text
    assert "Roll back immediately when the error rate doubles." in doc.text
    for boilerplate in ("should never be indexed", "All rights reserved", "portal banner"):
        assert boilerplate not in doc.text
    sections = {section.title: section.text for section in doc.sections}
    assert "Ask the platform team" in sections["Prerequisites"]
    assert "fifteen minutes" in sections["Rollout"]
    assert "fifteen minutes" not in sections["Prerequisites"]
    assert doc.metadata["format"] == "html"


@pytest.mark.parametrize("suffix", [".html", ".htm"])
def test_html_page_main_text_title_and_sections(suffix: str) -> None:
    result = convert(SourceItem(uri=f"https://wiki/deploy{suffix}", data=PAGE), "ops")
    assert isinstance(result, Document), result
    _check_page(result)


def test_lxml_fallback_when_trafilatura_finds_no_main_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(html, "_with_trafilatura", lambda data: None)
    result = convert(SourceItem(uri="https://wiki/deploy.html", data=PAGE), "ops")
    assert isinstance(result, Document), result
    assert result.metadata["extractor"] == "lxml"
    assert "All teams directory" not in result.text
    _check_page(result)


def test_trafilatura_extracts_the_main_text() -> None:
    result = convert(SourceItem(uri="https://wiki/deploy.html", data=PAGE), "ops")
    assert isinstance(result, Document)
    assert result.metadata["extractor"] == "trafilatura"


def test_tiny_page_still_converts() -> None:
    page = b"<html><head><title>Note</title></head><body><p>Short note.</p></body></html>"
    result = convert(SourceItem(uri="https://wiki/note.html", data=page), "ops")
    assert isinstance(result, Document), result
    assert "Short note." in result.text
    assert result.title == "Note"


def test_heading_permalinks_are_dropped() -> None:
    page = (
        b"<html><head><title>os \xe2\x80\x94 Misc\xc2\xb6</title></head><body><article>"
        b"<h1>os \xe2\x80\x94 Misc<a class='headerlink' href='#os'>\xc2\xb6</a></h1>"
        b"<p>This module provides a portable way of using operating system dependent "
        b"functionality, such as reading or writing files and managing processes.</p>"
        b"<h2>Files<a class='headerlink' href='#files'>\xc2\xb6</a></h2>"
        b"<p>Functions that create and remove files and directories on the system.</p>"
        b"</article></body></html>"
    )
    result = convert(SourceItem(uri="https://docs/os.html", data=page), "docs")
    assert isinstance(result, Document), result
    assert "\u00b6" not in result.title and "\u00b6" not in result.text
    assert all("\u00b6" not in section.title for section in result.sections)


def test_title_from_a_callout_heading_is_not_trusted() -> None:
    page = (
        b"<html><head><title>oid2name</title></head><body><div class='refentry'>"
        b"<h2>oid2name</h2><p>oid2name resolves OIDs and file nodes in a data directory.</p>"
        b"<div class='note'><h3>Note</h3><p>oid2name requires a running database server "
        b"with non-corrupt system catalogs, so it is of limited use after corruption.</p></div>"
        b"<h2>Options</h2><p>The options control which objects are listed and how.</p>"
        b"</div></body></html>"
    )
    result = convert(SourceItem(uri="https://docs/oid2name.html", data=page), "docs")
    assert isinstance(result, Document), result
    assert result.title == "oid2name"
