"""The last N query embeddings, keyed by model fingerprint + text."""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from pipelines.embedding.embedder import Embedder


class CachedQueryEmbedder:
    def __init__(self, embedder: Embedder, size: int = 256) -> None:
        self._embedder = embedder
        self._size = size
        self._entries: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @property
    def fingerprint(self) -> str:
        return self._embedder.fingerprint

    def embed(self, text: str) -> np.ndarray:
        key = (self._embedder.fingerprint, text)
        with self._lock:
            cached = self._entries.get(key)
            if cached is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return cached
        vector = self._embedder.embed_query(text)
        with self._lock:
            self.misses += 1
            if self._size > 0:
                self._entries[key] = vector
                self._entries.move_to_end(key)
                while len(self._entries) > self._size:
                    self._entries.popitem(last=False)
        return vector

    def clear(self) -> None:
        """Forget every cached embedding (hit and miss counts are kept)."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
