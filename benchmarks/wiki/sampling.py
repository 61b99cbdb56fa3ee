"""Which pages the wiki benchmark's questions come from, and the nested wiki sizes.

Two random streams, each seeded on its own, so that one can change without moving the other:

- the *question* stream (`pick_question_pages`) picks the pages that will get questions,
  stratified by source;
- the *page* stream (`nested_sizes`) orders every page of the corpus; the question pages are
  taken out of that order and put in front, so every wiki size contains all of them.

Both functions are pure: they sort their inputs before drawing, so the result depends only on
the sets of ids and the seeds, never on the order the caller found the pages in.
"""

from __future__ import annotations

import random


def _proportional_quotas(sizes: dict[str, int], count: int) -> dict[str, int]:
    """Split `count` across the keys in proportion to `sizes` (largest remainder, ties by key)."""
    total = sum(sizes.values())
    exact = {key: count * size / total for key, size in sizes.items()}
    quotas = {key: int(value) for key, value in exact.items()}
    left = count - sum(quotas.values())
    by_remainder = sorted(sizes, key=lambda key: (-(exact[key] - quotas[key]), key))
    for key in by_remainder[:left]:
        quotas[key] += 1
    return quotas


def pick_question_pages(pages_by_source: dict[str, list[str]], count: int, seed: int) -> list[str]:
    """`count` page ids drawn with `random.Random(seed)`, stratified by source.

    Each source gets a share of `count` proportional to its number of pages (largest remainder
    method, so the shares add up to `count` exactly). Sources are visited in sorted order and each
    source's pages are sorted before sampling, so the draw is reproducible. The result is sorted.
    """
    if count < 0:
        raise ValueError("count must not be negative")
    all_pages = [page for pages in pages_by_source.values() for page in pages]
    if len(set(all_pages)) != len(all_pages):
        raise ValueError("a page id appears twice")
    if count > len(all_pages):
        raise ValueError(f"cannot pick {count} question pages from {len(all_pages)} pages")
    if count == 0:
        return []
    quotas = _proportional_quotas(
        {source: len(pages) for source, pages in pages_by_source.items()}, count
    )
    rng = random.Random(seed)
    picked: list[str] = []
    for source in sorted(pages_by_source):
        picked.extend(rng.sample(sorted(pages_by_source[source]), quotas[source]))
    return sorted(picked)


def page_order(page_ids: list[str], question_pages: list[str], seed: int) -> list[str]:
    """All pages in wiki order: the question pages (sorted), then the rest in page-stream order.

    The page stream shuffles *every* page (sorted first) with `random.Random(seed)` and only then
    removes the question pages, so the relative order of the other pages does not depend on which
    pages were picked for questions.
    """
    if len(set(page_ids)) != len(page_ids):
        raise ValueError("a page id appears twice")
    questions = set(question_pages)
    if len(questions) != len(question_pages):
        raise ValueError("a question page appears twice")
    missing = questions.difference(page_ids)
    if missing:
        raise ValueError(f"question pages not in the corpus: {sorted(missing)[:5]}")
    shuffled = sorted(page_ids)
    random.Random(seed).shuffle(shuffled)
    return sorted(questions) + [page for page in shuffled if page not in questions]


def nested_sizes(
    page_ids: list[str], question_pages: list[str], sizes: list[int], seed: int
) -> dict[int, list[str]]:
    """The page ids of each wiki size; every size is a prefix of `page_order`, so of the next size.

    The smallest wiki holds all question pages plus the first pages of the page stream; each
    larger size adds the next pages of the same stream. A size smaller than the number of
    question pages, or larger than the corpus, is an error (pass `len(page_ids)` for "all").
    """
    order = page_order(page_ids, question_pages, seed)
    result: dict[int, list[str]] = {}
    for size in sorted(set(sizes)):
        if size < len(question_pages):
            raise ValueError(f"size {size} cannot hold the {len(question_pages)} question pages")
        if size > len(order):
            raise ValueError(f"size {size} is larger than the corpus ({len(order)} pages)")
        result[size] = order[:size]
    return result
