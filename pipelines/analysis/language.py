"""How much of a text is Chinese, Japanese or Korean: decides embedding and query routing."""

from __future__ import annotations

import re

# Han (incl. extension A and compatibility), kana, Hangul syllables and jamo.
_CJK_CHAR = re.compile(
    r"[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    r"\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]"
)

CJK_EMBED_THRESHOLD = 0.30
# Document.language of a mostly-CJK document: it stays on BM25 and is never embedded.
CJK_LANGUAGE = "cjk"


def is_cjk_char(char: str) -> bool:
    return _CJK_CHAR.match(char) is not None


def cjk_ratio(text: str) -> float:
    """Share of CJK characters among letters (digits, punctuation and spaces do not count)."""
    letters = 0
    cjk = 0
    for char in text:
        if char.isalpha():
            letters += 1
            if is_cjk_char(char):
                cjk += 1
    return cjk / letters if letters else 0.0


def contains_cjk(text: str) -> bool:
    return _CJK_CHAR.search(text) is not None


def is_mostly_cjk(text: str) -> bool:
    """A document at or above the threshold stays on BM25 only."""
    return cjk_ratio(text) >= CJK_EMBED_THRESHOLD


def detect_language(text: str) -> str:
    """Coarse label for the Document: 'cjk' when mostly CJK, otherwise 'und'.

    Finer detection is not needed by anything downstream yet.
    """
    return CJK_LANGUAGE if is_mostly_cjk(text) else "und"
