"""Text -> vector with fastembed, loading the model from a local folder once per process."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from pipelines.embedding.model_files import (
    ModelAssemblyError,
    assemble_model,
    is_assembled,
    model_fingerprint,
)
from pipelines.settings import DEFAULT_MODEL, Settings


class Embedder(Protocol):
    @property
    def fingerprint(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> list[np.ndarray]: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class FastEmbedEmbedder:
    """fastembed's ONNX runtime over a local model folder; never touches a model hub."""

    def __init__(self, model_name: str, model_dir: Path, batch_size: int = 32) -> None:
        from fastembed import TextEmbedding

        self._fingerprint = model_fingerprint(model_dir)
        self._model = TextEmbedding(
            model_name, specific_model_path=str(model_dir), local_files_only=True
        )
        self._batch_size = batch_size
        self._dimensions = len(self.embed_query("dimension probe"))

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def embed_documents(self, texts: Sequence[str]) -> list[np.ndarray]:
        if not texts:
            return []
        vectors: Iterable[np.ndarray] = self._model.embed(list(texts), batch_size=self._batch_size)
        return [np.asarray(vector, dtype=np.float32) for vector in vectors]

    def embed_query(self, text: str) -> np.ndarray:
        # all-MiniLM-L6-v2 is symmetric: queries are embedded like passages.
        return np.asarray(next(iter(self._model.embed([text]))), dtype=np.float32)


def resolve_model_dir(settings: Settings) -> Path:
    """The default model is assembled on first use if `make install` has not done it already."""
    if is_assembled(settings.model_dir):
        return settings.model_dir
    if settings.embedding_model == DEFAULT_MODEL:
        return assemble_model(settings.model_dir, settings.embedding_model)
    raise ModelAssemblyError(
        f"model folder {settings.model_dir} for {settings.embedding_model!r} is missing or has no "
        f"wikifuse-model.json; set WIKIFUSE_MODEL_DIR to a prepared folder"
    )


_loaded: dict[tuple[str, Path], FastEmbedEmbedder] = {}
_load_lock = threading.Lock()


def load_embedder(settings: Settings) -> FastEmbedEmbedder:
    """One model per process, however many services ask for it."""
    model_dir = resolve_model_dir(settings)
    key = (settings.embedding_model, model_dir)
    with _load_lock:
        if key not in _loaded:
            _loaded[key] = FastEmbedEmbedder(
                settings.embedding_model, model_dir, settings.embed_batch_size
            )
        return _loaded[key]
