"""HTML pages: trafilatura drops navigation and boilerplate and keeps the main text.

trafilatura is asked for Markdown so that h1-h6 survive as `#` headings, which
markdown.parse_markdown turns into sections. When trafilatura finds no main content (very
short pages), a plain lxml walk stands in, so a page is never lost.
"""

from __future__ import annotations

import lxml.html
import trafilatura
from lxml import etree

from pipelines.conversion._common import (
    ConversionError,
    build_document,
    decode_text,
    stem_title,
)
from pipelines.conversion.markdown import parse_markdown
from pipelines.documents import Document, FailureReason
from pipelines.sources.item import SourceItem

_DROP_TAGS = (
    "script", "style", "noscript", "template", "nav", "header", "footer", "aside",
    "form", "svg", "iframe", "button",
)  # fmt: skip
_BLOCK_TAGS = frozenset({
    "p", "div", "section", "article", "main", "li", "ul", "ol", "dl", "dt", "dd", "tr",
    "table", "pre", "blockquote", "br", "hr", "figure", "figcaption", "address",
})  # fmt: skip
_HEADING_TAGS = {f"h{level}": level for level in range(1, 7)}


def _with_trafilatura(data: bytes) -> tuple[str, str] | None:
    """(markdown, title) from trafilatura, or None when it finds no main content."""
    extracted = trafilatura.bare_extraction(
        data, with_metadata=True, include_formatting=True, include_tables=True
    )
    if extracted is None:
        return None
    fields = extracted if isinstance(extracted, dict) else extracted.as_dict()
    text = str(fields.get("text") or "")
    return (text, str(fields.get("title") or "").strip()) if text.strip() else None


def _with_lxml(data: bytes) -> tuple[str, str]:
    """Markdown-ish text of <main>/<article>/<body> minus obvious chrome, and the <title>."""
    try:
        root = lxml.html.document_fromstring(data)
    except (etree.ParserError, ValueError) as exc:
        raise ConversionError(FailureReason.CORRUPT, f"unparseable HTML: {exc}") from exc
    title = " ".join((root.findtext(".//title") or "").split())
    for element in root.xpath("//" + " | //".join(_DROP_TAGS)):
        element.drop_tree()
    content = next(
        (found[0] for tag in ("main", "article", "body") if (found := root.xpath(f"//{tag}"))),
        root,
    )
    for element in content.iter():
        if not isinstance(element.tag, str):
            continue
        level = _HEADING_TAGS.get(element.tag)
        if level is not None:
            element.text = "\n\n" + "#" * level + " " + (element.text or "").lstrip()
            element.tail = "\n\n" + (element.tail or "")
        elif element.tag in _BLOCK_TAGS:
            element.text = "\n" + (element.text or "")
            element.tail = "\n" + (element.tail or "")
    lines = (" ".join(line.split()) for line in content.text_content().splitlines())
    return "\n".join(lines), title


def _without_permalinks(text: str) -> str:
    """Documentation generators (Sphinx, DocBook) end headings with a "¶" permalink."""
    return text.replace("\u00b6", "")


def _page_title(data: bytes) -> str:
    try:
        root = lxml.html.document_fromstring(decode_text(data))
    except (etree.ParserError, ValueError):
        return ""
    return " ".join(_without_permalinks(root.findtext(".//title") or "").split())


def _best_title(extracted: str, page_title: str) -> str:
    """trafilatura's title drops site-name suffixes ("Deploy | Team Wiki" -> "Deploy"), but on
    some pages it takes a callout's heading ("Note"); trust it only when <title> agrees."""
    if not page_title or (extracted and extracted.casefold() in page_title.casefold()):
        return extracted or page_title
    return page_title


def convert_html(item: SourceItem, space: str) -> Document:
    extracted = _with_trafilatura(item.data)
    if extracted is not None:
        extractor, (markdown_text, title) = "trafilatura", extracted
        parsed = parse_markdown(_without_permalinks(markdown_text))
        title = _best_title(_without_permalinks(title).strip(), _page_title(item.data))
    else:
        # <title> often carries a site-name suffix; the page's own h1 is the better title.
        extractor, (markdown_text, page_title) = "lxml", _with_lxml(item.data)
        parsed = parse_markdown(_without_permalinks(markdown_text))
        title = parsed.first_h1 or _without_permalinks(page_title)
    return build_document(
        item,
        space,
        fmt="html",
        title=title or parsed.first_h1 or stem_title(item.uri),
        text=parsed.text,
        sections=parsed.sections,
        metadata={"extractor": extractor},
    )
