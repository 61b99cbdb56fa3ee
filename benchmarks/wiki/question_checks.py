"""Mechanical checks that decide which written questions count, so the benchmark does not rest on
trust. Words are compared as wikifuse's BM25 analyzer sees them (lowercased, stop words dropped,
Snowball-stemmed), the strictest reading: "restoring" and "restore" are the same word.

- paraphrase: shares no word with its page's title, and has at most two words that are rare in
  the corpus (on at most 10% of pages);
- identifier: short (at most 8 words) and names something exact that appears verbatim on its page;
- lexical: at least two of its words appear on its page.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from pipelines.analysis.tokenize import analyze

RARE_PAGE_SHARE = 0.10
MAX_RARE_WORDS = 2
MAX_IDENTIFIER_WORDS = 8
MIN_LEXICAL_OVERLAP = 2


@dataclass(frozen=True)
class Page:
    id: str
    title: str
    text: str


def document_frequencies(pages: Iterable[Page]) -> tuple[Counter[str], int]:
    """On how many pages each analyzed word occurs, and the number of pages."""
    frequencies: Counter[str] = Counter()
    count = 0
    for page in pages:
        frequencies.update(set(analyze(f"{page.title}\n{page.text}")))
        count += 1
    return frequencies, count


def check_paraphrase(question: str, page: Page, frequencies: Counter[str], pages: int) -> list[str]:
    """Reasons the question does not count as a paraphrase (empty: it counts)."""
    words = set(analyze(question))
    problems = []
    shared = sorted(words & set(analyze(page.title)))
    if shared:
        problems.append(f"shares title words {shared}")
    rare = sorted(w for w in words if frequencies[w] <= RARE_PAGE_SHARE * pages)
    if len(rare) > MAX_RARE_WORDS:
        problems.append(f"{len(rare)} rare words {rare} (at most {MAX_RARE_WORDS})")
    if not words:
        problems.append("no content words")
    return problems


def check_identifier(question: str, identifier: str, page: Page) -> list[str]:
    problems = []
    if len(question.split()) > MAX_IDENTIFIER_WORDS:
        problems.append(f"longer than {MAX_IDENTIFIER_WORDS} words")
    if not identifier or identifier not in question:
        problems.append("the question does not contain its identifier")
    if identifier and identifier not in page.text and identifier not in page.title:
        problems.append(f"identifier {identifier!r} is not on the page")
    return problems


def check_lexical(question: str, page: Page) -> list[str]:
    overlap = set(analyze(question)) & set(analyze(f"{page.title}\n{page.text}"))
    if len(overlap) < MIN_LEXICAL_OVERLAP:
        return [f"only {len(overlap)} of its words are on the page"]
    return []
