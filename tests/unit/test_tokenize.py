"""The BM25 analyzer shared by indexing and querying."""

from __future__ import annotations

import pytest

from pipelines.analysis.language import is_cjk_char
from pipelines.analysis.tokenize import _TOKEN, ENGLISH_STOP_WORDS, analyze, analyzed_text


def test_english_stemming_and_stopwords() -> None:
    assert analyze("The running dogs") == ["run", "dog"]
    assert analyze("Replicas are failing over to the standby") == [
        "replica",
        "fail",
        "over",
        "standbi",
    ]


def test_all_lucene_english_stopwords_dropped() -> None:
    assert len(ENGLISH_STOP_WORDS) == 33
    assert analyze(" ".join(sorted(ENGLISH_STOP_WORDS))) == []
    assert analyze("THE And Of") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ledger.replica_lag_max_ms", ["ledger", "replica", "lag", "max", "ms"]),
        ("NWL-4031", ["nwl", "4031"]),
        ("ERR_CONN_RESET", ["err", "conn", "reset"]),
        ("/var/log/nginx/error.log", ["var", "log", "nginx", "error", "log"]),
        ("snake_case __init__", ["snake", "case", "init"]),
        ("v2 ipv6 k8s", ["v2", "ipv6", "k8s"]),
    ],
)
def test_identifiers_split_on_punctuation_and_underscore(text: str, expected: list[str]) -> None:
    assert analyze(text) == expected


def test_digits_not_stemmed() -> None:
    # Pure digits bypass the stemmer; leading zeros stay.
    assert analyze("4031 0007 2024") == ["4031", "0007", "2024"]


def test_possessive_stripped_before_stemming() -> None:
    assert analyze("John's database's") == ["john", "databas"]
    assert analyze("the operator’s runbook") == ["oper", "runbook"]
    assert analyze("JAMES'S") == ["jame"]
    # An apostrophe that is not a possessive splits the word.
    assert analyze("o'neil") == ["o", "neil"]


def test_accents_folded() -> None:
    assert analyze("Café naïve Ångström") == ["cafe", "naiv", "angstrom"]
    # Decomposed input (e + combining acute) folds the same way.
    assert analyze("cafe\u0301") == analyze("café") == ["cafe"]


def test_nfkc_width_normalization() -> None:
    assert analyze("ＡＢＣ－１２３") == ["abc", "123"]
    # Half-width katakana becomes ordinary katakana, then bigrams.
    assert analyze("ｶﾀｶﾅ") == ["カタ", "タカ", "カナ"]


def test_other_scripts_keep_their_marks() -> None:
    # Devanagari vowel signs and virama are combining marks; the word must not be cut there
    # nor lose them.
    assert analyze("हिन्दी") == ["हिन्दी"]


def test_chinese_bigrams() -> None:
    assert analyze("数据库") == ["数据", "据库"]
    assert analyze("分布式数据库，复制延迟") == [
        "分布",
        "布式",
        "式数",
        "数据",
        "据库",
        "复制",
        "制延",
        "延迟",
    ]


def test_mixed_chinese_and_english() -> None:
    assert analyze("PostgreSQL数据库的replica_lag监控") == [
        "postgresql",
        "数据",
        "据库",
        "库的",
        "replica",
        "lag",
        "监控",
    ]
    assert analyze("错误码 NWL-4031 表示超时") == [
        "错误",
        "误码",
        "nwl",
        "4031",
        "表示",
        "示超",
        "超时",
    ]


def test_lone_cjk_character_is_a_unigram() -> None:
    assert analyze("猫") == ["猫"]
    assert analyze("a 猫 runs 犬") == ["猫", "run", "犬"]
    assert analyze("v2版") == ["v2", "版"]


def test_empty_and_blank() -> None:
    assert analyze("") == []
    assert analyze("   \n\t ... --- ___") == []
    assert analyzed_text("") == ""


def test_japanese_kana_bigrams() -> None:
    assert analyze("ひらがな") == ["ひら", "らが", "がな"]
    assert analyze("カタカナ") == ["カタ", "タカ", "カナ"]
    # Kanji and kana in one run bigram across the script change, like Lucene's CJKBigramFilter.
    assert analyze("東京タワー") == ["東京", "京タ", "タワ", "ワー"]


def test_korean_hangul_bigrams() -> None:
    assert analyze("데이터베이스") == ["데이", "이터", "터베", "베이", "이스"]
    assert analyze("한국어 텍스트") == ["한국", "국어", "텍스", "스트"]


def test_analyzed_text_joins_with_spaces() -> None:
    assert analyzed_text("The running dogs 数据库") == "run dog 数据 据库"


def test_query_and_document_analyze_alike() -> None:
    doc = "Set ledger.replica_lag_max_ms when NWL-4031 errors appear in 数据库 logs."
    query = "replica lag NWL-4031 数据库 error"
    assert set(analyze(query)) <= set(analyze(doc))


def test_cjk_runs_agree_with_is_cjk_char() -> None:
    # Every BMP character is CJK for the tokenizer exactly when language.is_cjk_char says so.
    for code in range(0x10000):
        char = chr(code)
        if 0xD800 <= code <= 0xDFFF:
            continue
        match = _TOKEN.fullmatch(char)
        is_cjk_run = match is not None and match.group("cjk") is not None
        assert is_cjk_run == is_cjk_char(char), hex(code)
