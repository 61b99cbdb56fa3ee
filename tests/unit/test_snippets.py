"""snippet(): the passage of a document shown under a search result."""

from __future__ import annotations

from pipelines.search.snippets import snippet

TEXT = (
    "The ledger service stores balances. "
    "Replication keeps followers close. "
    "Replica lag is reported in milliseconds and replica health is checked. "
    "Alerts fire when lag exceeds the limit."
)


def test_starts_at_the_sentence_sharing_most_query_terms() -> None:
    # Sentence 3 shares replica, lag and health; sentence 4 only lag.
    result = snippet(TEXT, "replica lag health")
    assert result == (
        "Replica lag is reported in milliseconds and replica health is checked. "
        "Alerts fire when lag exceeds the limit."
    )


def test_counts_distinct_terms_not_repetitions() -> None:
    text = "Lag lag lag lag. Replica lag here. Nothing else."
    # Sentence 1 has one distinct term (lag) four times; sentence 2 has two distinct terms.
    assert snippet(text, "replica lag", max_chars=20) == "Replica lag here."


def test_matches_through_the_analyzer() -> None:
    # "indexing" and "indexes" both stem to "index"; "the" is a stop word and matches nothing.
    text = "The opening sentence. Nothing relevant here. The service indexes documents nightly."
    assert snippet(text, "the indexing", max_chars=60) == ("The service indexes documents nightly.")


def test_earliest_sentence_wins_a_tie() -> None:
    text = "Opening. Replica one. Replica two."
    assert snippet(text, "replica", max_chars=14) == "Replica one."


def test_window_grows_while_it_fits() -> None:
    text = "Alpha replica. Beta one. Gamma two. Delta three."
    # "Alpha replica." 14, + " Beta one." = 24, + " Gamma two." = 35, + " Delta three." = 48.
    assert snippet(text, "replica", max_chars=40) == "Alpha replica. Beta one. Gamma two."
    assert snippet(text, "replica", max_chars=48) == (
        "Alpha replica. Beta one. Gamma two. Delta three."
    )
    assert snippet(text, "replica", max_chars=47) == "Alpha replica. Beta one. Gamma two."


def test_window_never_includes_earlier_sentences() -> None:
    text = "First sentence. Second sentence. Replica at the end."
    assert snippet(text, "replica") == "Replica at the end."


def test_a_long_sentence_is_cut_with_an_ellipsis() -> None:
    long_sentence = "replica " + "word " * 100
    result = snippet(long_sentence, "replica", max_chars=50)
    assert len(result) == 50
    assert result.endswith("…")
    assert result.startswith("replica word")
    # Trailing whitespace is trimmed before the ellipsis.
    assert not result[:-1].endswith(" ")


def test_default_cap_is_240_characters() -> None:
    result = snippet("replica " + "x" * 1000, "replica")
    assert len(result) == 240
    assert result.endswith("…")


def test_short_text_is_returned_whole() -> None:
    assert snippet("Just one sentence.", "replica") == "Just one sentence."
    assert not snippet("Just one sentence.", "sentence").endswith("…")


def test_falls_back_to_the_opening() -> None:
    text = "The opening line. Something else. More text."
    assert snippet(text, "kubernetes", max_chars=17) == "The opening line."
    assert snippet(text, "kubernetes") == text


def test_query_without_terms_gives_the_opening() -> None:
    text = "The opening line. Replica lag."
    # Only stop words and punctuation: no terms at all.
    assert snippet(text, "the of ...", max_chars=20) == "The opening line."


def test_empty_or_blank_text() -> None:
    assert snippet("", "replica") == ""
    assert snippet("  \n\n  ", "replica") == ""


def test_newlines_separate_sentences() -> None:
    text = "Heading\nFirst paragraph without the term\nReplica lag paragraph"
    assert snippet(text, "replica lag", max_chars=25) == "Replica lag paragraph"


def test_chinese_sentences() -> None:
    text = "数据库很快。索引很慢！查询很好。"
    # 索引 is one bigram term, found only in the second sentence.
    assert snippet(text, "索引", max_chars=5) == "索引很慢！"
    assert snippet(text, "索引").startswith("索引很慢！")
    assert "数据库" not in snippet(text, "索引")


def test_chinese_falls_back_to_the_opening() -> None:
    text = "数据库很快。索引很慢。"
    assert snippet(text, "网络", max_chars=6) == "数据库很快。"


def test_chinese_long_text_is_capped() -> None:
    text = "索引" + "很" * 500 + "。"
    result = snippet(text, "索引", max_chars=30)
    assert len(result) == 30
    assert result.startswith("索引很")
    assert result.endswith("…")


def test_finds_terms_the_stemmer_rewrites() -> None:
    # "happiness" and "happy" both stem to "happi", which is not a substring of "happy".
    text = "Opening line. Nothing here. They were happy about the replica."
    assert snippet(text, "happiness replica", max_chars=60) == (
        "They were happy about the replica."
    )


def test_the_best_sentence_wins_even_when_a_weaker_one_comes_first() -> None:
    sentences = [f"Filler sentence number {i} about replica." for i in range(300)]
    sentences.append("Replica lag health is the answer.")
    assert snippet(" ".join(sentences), "replica lag health", max_chars=40) == (
        "Replica lag health is the answer."
    )


def test_overlapping_cjk_terms_both_count() -> None:
    # 数据库 gives the bigrams 数据 and 据库, which overlap in the text: the second sentence
    # shares both and wins over the first, which shares only 数据.
    assert snippet("数据很多。数据库很大。", "数据库", max_chars=6) == "数据库很大。"
