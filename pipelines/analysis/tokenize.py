"""The BM25 analyzer: one function turns text into index terms, for documents and queries alike.

The terms are joined by spaces and fed to a tantivy field that uses the whitespace tokenizer, so
everything that decides matching happens here (and must later be mirrored by the OpenSearch
analyzer).

Pipeline, in order:

1. NFKC-normalize and lowercase the whole text (full-width Latin becomes ASCII, half-width
   katakana becomes ordinary katakana, compatibility ideographs become unified ones).
2. Strip English possessives: a trailing ``'s`` / ``’s`` on a word (Lucene's
   EnglishPossessiveFilter).
3. Split into runs: a run of CJK characters (Han, kana, Hangul — exactly the characters
   :func:`pipelines.analysis.language.is_cjk_char` accepts) or a word token, i.e. a run of letters
   and digits (``[^\\W_]``, combining marks allowed after the first character). Everything else,
   underscores, dots, hyphens and apostrophes included, separates tokens:
   ``ledger.replica_lag_max_ms`` -> ledger, replica, lag, max, ms; ``NWL-4031`` -> nwl, 4031.
4. Word tokens: fold accents (NFKD, drop the Combining Diacritical Marks U+0300-U+036F, NFC),
   drop Lucene's English stop words, stem with the Snowball English stemmer. Pure-digit tokens
   are kept as they are.
5. CJK runs: overlapping character bigrams (Lucene's CJKBigramFilter): 数据库 -> 数据, 据库;
   a run of a single character is emitted as a unigram.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from py_rust_stemmers import SnowballStemmer

from pipelines.analysis import language

# Lucene's EnglishAnalyzer default stop set (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET).
ENGLISH_STOP_WORDS: frozenset[str] = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into",
        "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then",
        "there", "these", "they", "this", "to", "was", "will", "with",
    }
)  # fmt: skip

_STEMMER = SnowballStemmer("english")


def _cjk_class_body() -> str:
    """The inside of language.py's CJK character class, so both modules agree on what is CJK."""
    pattern: str = language._CJK_CHAR.pattern
    if not (pattern.startswith("[") and pattern.endswith("]") and "[" not in pattern[1:]):
        raise RuntimeError("language._CJK_CHAR is no longer a single character class")
    return pattern[1:-1]


def _mark_class_body() -> str:
    """Ranges of combining marks (Mn, Mc, Me) in the BMP that are not CJK.

    Python's ``\\w`` does not match combining marks, so without them words in scripts that need
    marks (Devanagari, Thai, decomposed Latin) would be cut apart.
    """
    ranges: list[tuple[int, int]] = []
    for code in range(0x10000):
        char = chr(code)
        if unicodedata.category(char) in ("Mn", "Mc", "Me") and not language.is_cjk_char(char):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return "".join(f"\\u{lo:04x}" if lo == hi else f"\\u{lo:04x}-\\u{hi:04x}" for lo, hi in ranges)


_CJK = _cjk_class_body()
_MARKS = _mark_class_body()

# A CJK run, or a word token: a letter/digit that is not CJK, then letters/digits/marks.
_TOKEN = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>[^\W_{_CJK}](?:[^\W_{_CJK}]|[{_MARKS}])*)")
# Accents are the Combining Diacritical Marks block; marks of other scripts (Devanagari virama,
# Thai vowels, ...) are part of the spelling and stay.
_ACCENTS = re.compile("[\u0300-\u036f]+")
# Trailing 's after a letter/digit, not followed by more word characters (text is lowercased).
_POSSESSIVE = re.compile(r"(?<=[^\W_])['\u2019]s(?![^\W_])")


@lru_cache(maxsize=200_000)
def _word_term(word: str) -> str | None:
    """Index term for one lowercased word token, or None when it is a stop word."""
    if not word.isascii():
        word = unicodedata.normalize("NFC", _ACCENTS.sub("", unicodedata.normalize("NFKD", word)))
        if not word:
            return None
    if word in ENGLISH_STOP_WORDS:
        return None
    if word.isdigit():
        return word
    return _STEMMER.stem_word(word)


def analyze(text: str) -> list[str]:
    """Terms for BM25 indexing and querying, in text order (duplicates kept)."""
    if not text:
        return []
    normalized = _POSSESSIVE.sub("", unicodedata.normalize("NFKC", text).lower())
    terms: list[str] = []
    append = terms.append
    word_term = _word_term
    # findall yields (cjk_run, word) pairs with exactly one side non-empty.
    for cjk, word in _TOKEN.findall(normalized):
        if word:
            term = word_term(word)
            if term:
                append(term)
        elif len(cjk) == 1:
            append(cjk)
        else:
            terms.extend([cjk[i : i + 2] for i in range(len(cjk) - 1)])
    return terms


def analyzed_text(text: str) -> str:
    """The terms joined by single spaces, for a field using tantivy's whitespace tokenizer."""
    return " ".join(analyze(text))
