"""The mechanical checks that accept or reject benchmark questions."""

from __future__ import annotations

from benchmarks.wiki.question_checks import (
    Page,
    check_identifier,
    check_lexical,
    check_paraphrase,
    document_frequencies,
)

PAGES = [
    Page("a", "Restoring a database backup", "Use pg_restore to load a dump. Restore takes time."),
    Page("b", "Creating an index", "CREATE INDEX builds an index on a table column."),
    Page("c", "Vacuum", "VACUUM reclaims storage occupied by dead tuples in a table."),
    *(Page(f"f{i}", f"Filler {i}", "a table of common words used everywhere") for i in range(30)),
]
FREQUENCIES, COUNT = document_frequencies(PAGES)


def test_paraphrase_may_not_share_a_title_word_even_inflected() -> None:
    problems = check_paraphrase("how do I restore my data", PAGES[0], FREQUENCIES, COUNT)
    assert any("title words ['restor']" in p for p in problems)


def test_paraphrase_with_common_words_passes() -> None:
    assert check_paraphrase("load the words of a table", PAGES[0], FREQUENCIES, COUNT) == []


def test_paraphrase_with_three_rare_words_is_rejected() -> None:
    problems = check_paraphrase("reclaims storage occupied", PAGES[0], FREQUENCIES, COUNT)
    assert any("3 rare words" in p for p in problems)


def test_identifier_checks() -> None:
    assert check_identifier("pg_restore options", "pg_restore", PAGES[0]) == []
    assert check_identifier("pg_dumpall flags", "pg_dumpall", PAGES[0]) == [
        "identifier 'pg_dumpall' is not on the page"
    ]
    long_question = "what are all of the many options of pg_restore for me today"
    assert check_identifier(long_question, "pg_restore", PAGES[0])


def test_lexical_needs_two_page_words() -> None:
    assert check_lexical("vacuum dead tuples", PAGES[2]) == []
    assert check_lexical("vacuum cleaner", PAGES[2]) == ["only 1 of its words are on the page"]
