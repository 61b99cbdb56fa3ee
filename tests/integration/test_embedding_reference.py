"""The assembled model reproduces sentence-transformers' vectors for all-MiniLM-L6-v2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pipelines.embedding.embedder import load_embedder
from pipelines.settings import Settings

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "minilm_reference.json"


@pytest.fixture(scope="module")
def reference() -> dict[str, list]:
    return json.loads(FIXTURE.read_text())


def test_vectors_match_sentence_transformers(reference: dict[str, list]) -> None:
    embedder = load_embedder(Settings())
    sentences, expected = reference["sentences"], np.array(reference["vectors"])
    assert len(sentences) >= 20
    produced = np.array(embedder.embed_documents(sentences))
    assert produced.shape == expected.shape == (len(sentences), 384)
    cosines = (produced * expected).sum(axis=1) / (
        np.linalg.norm(produced, axis=1) * np.linalg.norm(expected, axis=1)
    )
    worst = int(np.argmin(cosines))
    assert cosines.min() >= 0.999, f"sentence {worst} ({sentences[worst][:40]!r}): {cosines[worst]}"


def test_long_text_is_cut_at_256_tokens() -> None:
    embedder = load_embedder(Settings())
    base = " ".join(f"word{i}" for i in range(400))
    changed_tail = base + " completely different ending about volcanoes"
    first, second = embedder.embed_documents([base, changed_tail])
    assert float(np.dot(first, second)) == pytest.approx(1.0, abs=1e-6)


def test_model_is_loaded_once_per_process() -> None:
    assert load_embedder(Settings()) is load_embedder(Settings())


def test_query_and_document_vectors_agree() -> None:
    embedder = load_embedder(Settings())
    text = "promote the replica when the primary fails"
    assert np.allclose(embedder.embed_query(text), embedder.embed_documents([text])[0], atol=1e-6)
