"""A short passage of a document that shows why it matched."""

from __future__ import annotations

import re

from pipelines.analysis.tokenize import analyze

# A sentence ends at . ! ? followed by white space (so `ledger.replica` and `v1.2.3` stay whole),
# at a CJK full stop, or at a line break.
_SENTENCE = re.compile(r".+?(?:[.!?](?=\s)|[。！？]|\n|$)", re.DOTALL)


def snippet(text: str, query: str, max_chars: int = 240) -> str:
    """The run of consecutive sentences that shares most query terms; the opening otherwise."""
    spans = [m.span() for m in _SENTENCE.finditer(text) if m.group().strip()]
    if not spans:
        return ""
    terms = set(analyze(query))
    best_index, best_score = 0, 0
    if terms:
        for index, (start, end) in enumerate(spans[:400]):
            score = len(terms & set(analyze(text[start:end])))
            if score > best_score:
                best_index, best_score = index, score
    start, end = spans[best_index]
    for _, next_end in spans[best_index + 1 :]:
        if next_end - start > max_chars:
            break
        end = next_end
    window = " ".join(text[start:end].split())
    return window if len(window) <= max_chars else window[: max_chars - 1].rstrip() + "…"
