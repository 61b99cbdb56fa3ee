"""What gets embedded: one page text, or passages of each section."""

from __future__ import annotations

from pipelines.documents import Document, Section
from pipelines.embedding.passages import embedding_texts, split_passages, vector_key


def _doc(text: str, sections: tuple[Section, ...] = ()) -> Document:
    return Document(
        id="d", space="s", source_uri="mem://d", title="Backups", text=text, sections=sections
    )


def test_page_level_is_title_and_leading_text_cut_to_max_chars() -> None:
    texts = embedding_texts(
        _doc("x" * 500), "page", max_chars=100, passage_chars=50, max_passages=10
    )
    assert texts == ["Backups\n" + "x" * 92]


def test_passages_break_at_paragraphs_and_cover_the_whole_text() -> None:
    paragraphs = [f"Paragraph {i} " + "word " * 30 for i in range(6)]
    text = "\n\n".join(paragraphs)
    passages = split_passages(text, 400)
    assert all(len(p) <= 400 for p in passages)
    assert len(passages) > 1
    # Nothing lost, nothing repeated: the words come back in order.
    assert " ".join(passages).split() == text.split()
    # Each passage starts at a paragraph.
    assert all(p.startswith("Paragraph") for p in passages)


def test_a_text_without_breaks_is_cut_at_the_size() -> None:
    assert split_passages("a" * 250, 100) == ["a" * 100, "a" * 100, "a" * 50]


def test_section_level_prefixes_page_and_section_titles() -> None:
    sections = (
        Section("Backups", "Intro text.", 0),
        Section("Restore", "Run the restore script.", 1),
        Section("Empty", "   ", 2),
    )
    texts = embedding_texts(
        _doc("Intro text. Run the restore script.", sections),
        "section",
        max_chars=2000,
        passage_chars=1000,
        max_passages=10,
    )
    assert texts == ["Backups\nIntro text.", "Backups — Restore\nRun the restore script."]


def test_section_level_without_sections_splits_the_text_and_stops_at_max_passages() -> None:
    text = "\n\n".join("p" * 90 for _ in range(10))
    texts = embedding_texts(
        _doc(text), "section", max_chars=2000, passage_chars=100, max_passages=4
    )
    assert texts == ["Backups\n" + "p" * 90] * 4


def test_vector_key_keeps_page_vectors_under_the_bare_fingerprint() -> None:
    assert vector_key("model@1", "page") == "model@1"
    assert vector_key("model@1", "section") == "model@1#section"
