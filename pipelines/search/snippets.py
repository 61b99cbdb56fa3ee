"""A short passage of a document that shows why it matched."""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import islice

from pipelines.analysis.tokenize import analyze

# A sentence ends at . ! ? followed by white space (so `ledger.replica` and `v1.2.3` stay whole),
# at a CJK full stop, or at a line break; group 1 is the end, then the gap to the next sentence.
_SENTENCE_END = re.compile(r"([.!?](?=\s)|[。！？]|\n)\s*")
_MAX_SENTENCES = 400


def snippet(text: str, query: str, max_chars: int = 240) -> str:
    """The run of consecutive sentences that shares most query terms; the opening otherwise."""
    spans = _sentences(text)
    if not spans:
        return ""
    terms = set(analyze(query))
    best_index, best_score = 0, 0
    # Analyzing every sentence of a long page costs more than the search itself. A sentence can
    # share a term only if it contains the term's probe, so the probes found bound its score:
    # sentences are analyzed from the highest bound down, until no bound can beat the best.
    for bound, index in _candidate_sentences(text, spans, terms):
        if bound < best_score or (bound == best_score and index > best_index):
            continue
        start, end = spans[index]
        score = len(terms & set(analyze(text[start:end])))
        if score > best_score or (score == best_score and score and index < best_index):
            best_index, best_score = index, score
    start, end = spans[best_index]
    for _, next_end in spans[best_index + 1 :]:
        if next_end - start > max_chars:
            break
        end = next_end
    window = " ".join(text[start:end].split())
    return window if len(window) <= max_chars else window[: max_chars - 1].rstrip() + "…"


def _sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of the first sentences that are not blank. Only the ends are searched for,
    in one pass of the regex engine: this runs on every result of every search."""
    first = len(text) - len(text.lstrip())
    found = list(islice(_SENTENCE_END.finditer(text, first), _MAX_SENTENCES))
    starts = [first, *(match.end() for match in found)]
    spans = list(zip(starts, [match.end(1) for match in found], strict=False))
    if len(spans) < _MAX_SENTENCES and starts[-1] < len(text):
        spans.append((starts[-1], len(text)))
    return spans


def _candidate_sentences(
    text: str, spans: list[tuple[int, int]], terms: set[str]
) -> list[tuple[int, int]]:
    """(score bound, index) of each sentence containing a probe of some term, highest bound
    first. A term's probe is its stem without the last letter (Snowball may rewrite it: happy
    -> happi), or the whole term when that would leave too little."""
    if not terms:
        return []
    per_probe: dict[str, int] = {}
    for term in terms:
        probe = term[:-1] if len(term) > 3 and term.isascii() else term
        per_probe[probe] = per_probe.get(probe, 0) + 1
    pattern = re.compile("|".join(re.escape(p) for p in sorted(per_probe, key=len, reverse=True)))
    ends = [end for _, end in spans]
    lowered = text[: ends[-1]].lower()
    found = {bisect_right(ends, match.start()) for match in pattern.finditer(lowered)}
    bounds = []
    for index in found:
        if index < len(spans):
            # Counted per sentence, not from the matches: a probe inside a longer one's match
            # (with "lag" in "flagged") is not reported by the alternation.
            sentence = lowered[spans[index][0] : spans[index][1]]
            bounds.append((sum(n for probe, n in per_probe.items() if probe in sentence), index))
    return sorted(bounds, key=lambda pair: (-pair[0], pair[1]))
