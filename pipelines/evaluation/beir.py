"""Read a BEIR-format folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

from pipelines.analysis.language import detect_language
from pipelines.documents import Document, content_hash, document_id


class DatasetError(ValueError):
    pass


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    type: str | None = None


@dataclass
class Dataset:
    name: str
    corpus: list[Document]
    queries: list[Query]
    qrels: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def corpus_ids(self) -> dict[str, str]:
        """wikifuse document id -> BEIR corpus id."""
        return {doc.id: doc.metadata["beir_id"] for doc in self.corpus}


def corpus_uri(dataset: str, beir_id: str) -> str:
    return f"beir://{dataset}/{beir_id}"


def load_dataset(folder: Path, space: str, split: str = "test") -> Dataset:
    corpus_path, queries_path = folder / "corpus.jsonl", folder / "queries.jsonl"
    qrels_path = folder / "qrels" / f"{split}.tsv"
    for required in (corpus_path, queries_path, qrels_path):
        if not required.exists():
            raise DatasetError(f"{folder} is not a BEIR folder: missing {required.name}")
    name = folder.resolve().name
    corpus = [_document(row, name, space) for row in _jsonl(corpus_path)]
    qrels = _qrels(qrels_path)
    queries = [
        Query(str(row["_id"]), str(row["text"]), _query_type(row))
        for row in _jsonl(queries_path)
        if str(row["_id"]) in qrels
    ]
    if not queries:
        raise DatasetError(f"no query in {queries_path.name} has judgements in {qrels_path}")
    return Dataset(name, corpus, queries, qrels)


def _query_type(row: dict[str, object]) -> str | None:
    metadata = row.get("metadata")
    kind = metadata.get("type") if isinstance(metadata, dict) else None
    return str(kind) if kind else None


def _document(row: dict[str, object], dataset: str, space: str) -> Document:
    beir_id = str(row["_id"])
    title, text = str(row.get("title") or ""), str(row.get("text") or "")
    uri = corpus_uri(dataset, beir_id)
    return Document(
        id=document_id(space, uri),
        space=space,
        source_uri=uri,
        title=title,
        text=text,
        language=detect_language(f"{title} {text}"),
        content_hash=content_hash(title, text),
        metadata={"beir_id": beir_id, "format": "beir"},
    )


def _jsonl(path: Path) -> list[dict[str, object]]:
    rows = []
    with path.open(encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as error:
                    raise DatasetError(f"{path.name}:{line_number}: {error.msg}") from error
    return rows


def _qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t")
        for row in reader:
            if len(row) < 3 or not row[2].strip().lstrip("-").isdigit():
                continue  # the header row, or a blank line
            qrels.setdefault(row[0], {})[row[1]] = int(row[2])
    return qrels
