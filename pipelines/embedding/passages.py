"""What gets embedded for a document: one page vector (the default) or one vector per passage.

Page level embeds the title and the leading text; DESIGN.md's default, since coarse page vectors
fused best with BM25 in the seeds. Section level embeds every section (headings in Markdown and
HTML, pages in PDF; the whole text when a document has none), cut into passages about as long
as the model reads (all-MiniLM-L6-v2 keeps 256 tokens), each prefixed with the page and section
titles so a passage still says what it is about. A document's score is its best passage's.
"""

from __future__ import annotations

import re
from typing import Literal

from pipelines.documents import Document

Granularity = Literal["page", "section"]

# Passage breaks are preferred at a paragraph, then a line, then a sentence, then a space.
_BREAKS = (
    re.compile(r"\n\s*\n"),
    re.compile(r"\n"),
    re.compile(r"[.!?。！？]\s"),
    re.compile(r"\s"),
)


def vector_key(fingerprint: str, granularity: Granularity) -> str:
    """The key vectors are stored and searched under: the model, and the granularity when it is
    not the page. Switching granularity therefore re-embeds, and never mixes the two."""
    return fingerprint if granularity == "page" else f"{fingerprint}#{granularity}"


def embedding_texts(
    doc: Document,
    granularity: Granularity,
    *,
    max_chars: int,
    passage_chars: int,
    max_passages: int,
) -> list[str]:
    """The texts to embed for this document, in order (one for page level)."""
    if granularity == "page":
        return [f"{doc.title}\n{doc.text}"[:max_chars]]
    sections = [(s.title, s.text) for s in doc.sections if s.text.strip()] or [("", doc.text)]
    texts: list[str] = []
    for section_title, body in sections:
        heading = doc.title
        if section_title and section_title != doc.title:
            heading = f"{doc.title} — {section_title}" if doc.title else section_title
        for passage in split_passages(body, passage_chars):
            texts.append(f"{heading}\n{passage}" if heading else passage)
            if len(texts) == max_passages:  # a bound on the cost of one huge page
                return texts
    return texts or [doc.title]


def split_passages(text: str, size: int) -> list[str]:
    """Consecutive pieces of at most `size` characters, cut at the strongest break available."""
    passages: list[str] = []
    rest = text.strip()
    while len(rest) > size:
        cut = _cut(rest, size)
        passages.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        passages.append(rest)
    return [p for p in passages if p]


def _cut(text: str, size: int) -> int:
    """Where to end a passage: the last strong break in its second half, else at `size`."""
    for pattern in _BREAKS:
        ends = [m.end() for m in pattern.finditer(text, size // 2, size)]
        if ends:
            return ends[-1]
    return size
