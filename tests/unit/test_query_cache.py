"""CachedQueryEmbedder: hits, misses and clearing."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pipelines.embedding.query_cache import CachedQueryEmbedder


class CountingEmbedder:
    """Embeds a text as [its length], remembering every call."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    @property
    def fingerprint(self) -> str:
        return "fp"

    @property
    def dimensions(self) -> int:
        return 1

    def embed_documents(self, texts: Sequence[str]) -> list[np.ndarray]:
        raise AssertionError("queries only")

    def embed_query(self, text: str) -> np.ndarray:
        self.calls.append(text)
        return np.array([len(text)], dtype=np.float32)


def test_clear_forgets_cached_queries_but_keeps_counts() -> None:
    embedder = CountingEmbedder()
    cache = CachedQueryEmbedder(embedder, size=8)
    cache.embed("signals")
    cache.embed("signals")
    assert (cache.hits, cache.misses, len(cache)) == (1, 1, 1)

    cache.clear()

    assert len(cache) == 0
    assert (cache.hits, cache.misses) == (1, 1)
    cache.embed("signals")
    assert embedder.calls == ["signals", "signals"]
    assert (cache.hits, cache.misses, len(cache)) == (1, 2, 1)


def test_clear_on_an_empty_cache_is_harmless() -> None:
    cache = CachedQueryEmbedder(CountingEmbedder(), size=0)
    cache.clear()
    assert len(cache) == 0
