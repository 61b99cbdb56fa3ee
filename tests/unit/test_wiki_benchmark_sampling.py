"""The wiki benchmark's question pages and nested sizes: nesting, independence, determinism."""

from __future__ import annotations

import itertools
import random

import pytest

from benchmarks.wiki.sampling import nested_sizes, page_order, pick_question_pages

PAGES_BY_SOURCE = {
    "py": [f"py:page{n:03d}.html" for n in range(230)],
    "pg": [f"pg:page{n:03d}.html" for n in range(590)],
    "debref": [f"debref:ch{n // 20:02d}.en.html#_s{n}" for n in range(130)],
    "man": [f"man:page{n}.7" for n in range(150)],
}
ALL_PAGES = [page for pages in PAGES_BY_SOURCE.values() for page in pages]
SIZES = [200, 500, 1000]


def build(seed_pages: int = 1, seed_questions: int = 2) -> tuple[list[str], dict[int, list[str]]]:
    questions = pick_question_pages(PAGES_BY_SOURCE, 150, seed_questions)
    return questions, nested_sizes(ALL_PAGES, questions, [*SIZES, len(ALL_PAGES)], seed_pages)


def test_sizes_are_exact_and_nested() -> None:
    questions, sizes = build()
    assert sorted(sizes) == [200, 500, 1000, len(ALL_PAGES)]
    for size, pages in sizes.items():
        assert len(pages) == size
        assert len(set(pages)) == size
    ordered = sorted(sizes)
    for smaller, larger in itertools.pairwise(ordered):
        assert set(sizes[smaller]) < set(sizes[larger])
        assert sizes[larger][:smaller] == sizes[smaller]  # a prefix, so one order + cut points
    assert set(sizes[len(ALL_PAGES)]) == set(ALL_PAGES)
    assert set(questions) <= set(sizes[200])


def test_question_pages_are_stratified_by_source() -> None:
    questions = pick_question_pages(PAGES_BY_SOURCE, 150, seed=2)
    assert len(questions) == len(set(questions)) == 150
    per_source = {
        source: sum(q in set(pages) for q in questions) for source, pages in PAGES_BY_SOURCE.items()
    }
    # 1100 pages: 150 x 230/1100 = 31.4, 590/1100 = 80.5, 130/1100 = 17.7, 150/1100 = 20.5
    assert sum(per_source.values()) == 150
    for source, pages in PAGES_BY_SOURCE.items():
        assert abs(per_source[source] - 150 * len(pages) / len(ALL_PAGES)) < 1


def test_fixed_seeds_give_the_same_result_whatever_the_input_order() -> None:
    questions, sizes = build()
    shuffled = {
        source: list(reversed(pages)) for source, pages in reversed(PAGES_BY_SOURCE.items())
    }
    assert pick_question_pages(shuffled, 150, 2) == questions
    scrambled = ALL_PAGES[:]
    random.Random(99).shuffle(scrambled)
    assert nested_sizes(scrambled, list(reversed(questions)), [*SIZES, len(ALL_PAGES)], 1) == sizes
    assert build() == (questions, sizes)


def test_other_seeds_give_other_draws() -> None:
    questions, sizes = build()
    other_questions, other_sizes = build(seed_pages=7, seed_questions=8)
    assert other_questions != questions
    assert other_sizes[200] != sizes[200]


def test_page_seed_does_not_move_the_question_pages() -> None:
    questions, sizes = build(seed_pages=1)
    same_questions, other_sizes = build(seed_pages=7)
    assert same_questions == questions
    assert other_sizes[len(ALL_PAGES)] != sizes[len(ALL_PAGES)]
    assert set(questions) <= set(other_sizes[200])


def test_question_seed_does_not_reorder_the_other_pages() -> None:
    questions, sizes = build(seed_questions=2)
    other_questions, other_sizes = build(seed_questions=3)
    assert other_questions != questions
    untouched = set(ALL_PAGES) - set(questions) - set(other_questions)
    order = [page for page in sizes[len(ALL_PAGES)] if page in untouched]
    other_order = [page for page in other_sizes[len(ALL_PAGES)] if page in untouched]
    assert order == other_order
    # and the page order itself is the page stream's alone
    assert [p for p in page_order(ALL_PAGES, [], 1) if p in untouched] == order


def test_bad_inputs_are_errors() -> None:
    questions = pick_question_pages(PAGES_BY_SOURCE, 150, 2)
    with pytest.raises(ValueError, match="cannot hold"):
        nested_sizes(ALL_PAGES, questions, [100], 1)
    with pytest.raises(ValueError, match="larger than the corpus"):
        nested_sizes(ALL_PAGES, questions, [len(ALL_PAGES) + 1], 1)
    with pytest.raises(ValueError, match="not in the corpus"):
        nested_sizes(ALL_PAGES, ["nope"], [200], 1)
    with pytest.raises(ValueError, match="twice"):
        nested_sizes([*ALL_PAGES, ALL_PAGES[0]], [], [200], 1)
    with pytest.raises(ValueError, match="cannot pick"):
        pick_question_pages({"py": ["a", "b"]}, 3, 1)
    assert pick_question_pages(PAGES_BY_SOURCE, 0, 1) == []
