"""load_dataset() on a tiny BEIR folder written to tmp_path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipelines.documents import content_hash, document_id
from pipelines.evaluation.beir import DatasetError, Query, corpus_uri, load_dataset

CORPUS: list[dict[str, object]] = [
    {"_id": "d1", "title": "Replica lag", "text": "Replica lag is measured in ms."},
    {"_id": "d2", "title": "", "text": "Error NWL-4031 means the ledger is read-only."},
    {"_id": 3, "text": "数据库的索引很慢，需要重建索引。"},
]
QUERIES: list[dict[str, object]] = [
    {"_id": "q1", "text": "what is replica lag", "metadata": {"type": "semantic"}},
    {"_id": "q2", "text": "NWL-4031"},
    {"_id": "q3", "text": "never judged", "metadata": {"type": "keyword"}},
    {"_id": "q4", "text": "索引", "metadata": {}},
]
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t2\nq2\td1\t0\n\nq4\t3\t1\n"


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), "utf-8")


def make_folder(root: Path, name: str = "tinybeir", split: str = "test") -> Path:
    folder = root / name
    (folder / "qrels").mkdir(parents=True)
    write_jsonl(folder / "corpus.jsonl", CORPUS)
    write_jsonl(folder / "queries.jsonl", QUERIES)
    (folder / "qrels" / f"{split}.tsv").write_text(QRELS, "utf-8")
    return folder


def test_loads_corpus_queries_and_qrels(tmp_path: Path) -> None:
    dataset = load_dataset(make_folder(tmp_path), space="bench")

    assert dataset.name == "tinybeir"
    # q3 has no judgements and is skipped; the header row is not a judgement.
    assert dataset.queries == [
        Query("q1", "what is replica lag", "semantic"),
        Query("q2", "NWL-4031", None),
        Query("q4", "索引", None),
    ]
    assert dataset.qrels == {"q1": {"d1": 1}, "q2": {"d2": 2, "d1": 0}, "q4": {"3": 1}}
    assert "query-id" not in dataset.qrels


def test_documents(tmp_path: Path) -> None:
    dataset = load_dataset(make_folder(tmp_path), space="bench")

    assert [doc.metadata["beir_id"] for doc in dataset.corpus] == ["d1", "d2", "3"]
    first = dataset.corpus[0]
    uri = corpus_uri("tinybeir", "d1")
    assert uri == "beir://tinybeir/d1"
    assert first.source_uri == uri
    assert first.id == document_id("bench", uri)
    assert first.space == "bench"
    assert first.title == "Replica lag"
    assert first.text == "Replica lag is measured in ms."
    assert first.content_hash == content_hash("Replica lag", "Replica lag is measured in ms.")
    assert first.metadata == {"beir_id": "d1", "format": "beir"}
    assert first.language == "und"
    # A missing title is an empty string; mostly-Chinese text is labelled cjk.
    assert dataset.corpus[2].title == ""
    assert dataset.corpus[2].language == "cjk"


def test_document_ids_depend_on_space(tmp_path: Path) -> None:
    folder = make_folder(tmp_path)
    one = load_dataset(folder, space="one")
    two = load_dataset(folder, space="two")
    assert {d.id for d in one.corpus}.isdisjoint({d.id for d in two.corpus})


def test_corpus_ids_maps_back_to_beir_ids(tmp_path: Path) -> None:
    dataset = load_dataset(make_folder(tmp_path), space="bench")

    mapping = dataset.corpus_ids
    assert mapping == {doc.id: doc.metadata["beir_id"] for doc in dataset.corpus}
    assert sorted(mapping.values()) == ["3", "d1", "d2"]
    assert mapping[document_id("bench", "beir://tinybeir/d2")] == "d2"
    assert len(mapping) == 3


def test_other_split(tmp_path: Path) -> None:
    folder = make_folder(tmp_path, split="dev")
    dataset = load_dataset(folder, space="bench", split="dev")
    assert [q.id for q in dataset.queries] == ["q1", "q2", "q4"]
    with pytest.raises(DatasetError, match=r"test\.tsv"):
        load_dataset(folder, space="bench")


@pytest.mark.parametrize(
    ("relative", "name"),
    [
        ("corpus.jsonl", "corpus.jsonl"),
        ("queries.jsonl", "queries.jsonl"),
        ("qrels/test.tsv", "test.tsv"),
    ],
)
def test_missing_file_names_it(tmp_path: Path, relative: str, name: str) -> None:
    folder = make_folder(tmp_path)
    (folder / relative).unlink()
    with pytest.raises(DatasetError, match=f"missing {name}"):
        load_dataset(folder, space="bench")


def test_bad_json_line_reports_line_number(tmp_path: Path) -> None:
    folder = make_folder(tmp_path)
    lines = [json.dumps(CORPUS[0]), "", '{"_id": "d2", "text": ', json.dumps(CORPUS[1])]
    (folder / "corpus.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    # The blank line 2 is skipped but still counted: the bad one is line 3.
    with pytest.raises(DatasetError, match=r"^corpus\.jsonl:3: "):
        load_dataset(folder, space="bench")


def test_bad_json_in_queries(tmp_path: Path) -> None:
    folder = make_folder(tmp_path)
    with (folder / "queries.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("not json\n")
    with pytest.raises(DatasetError, match=rf"^queries\.jsonl:{len(QUERIES) + 1}: "):
        load_dataset(folder, space="bench")


def test_no_judged_query_is_an_error(tmp_path: Path) -> None:
    folder = make_folder(tmp_path)
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq9\td1\t1\n", "utf-8")
    with pytest.raises(DatasetError, match="no query"):
        load_dataset(folder, space="bench")


def test_blank_lines_in_corpus_are_skipped(tmp_path: Path) -> None:
    folder = make_folder(tmp_path)
    body = "\n\n".join(json.dumps(row, ensure_ascii=False) for row in CORPUS) + "\n\n"
    (folder / "corpus.jsonl").write_text(body, "utf-8")
    assert len(load_dataset(folder, space="bench").corpus) == 3
