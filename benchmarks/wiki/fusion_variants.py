"""An experiment beyond the product's settings: fusing BM25 with page AND section vectors.

    WIKIFUSE_HOME=$PWD/.wikibench/home .venv/bin/python -m benchmarks.wiki.fusion_variants \\
        --corpus .wikibench/corpus --size wiki-all

Needs both kinds of vectors in the size's space (`benchmarks.wiki.run` makes them). For every
question it reads the three candidate lists once (BM25, page vectors, section vectors; top 20
each, as hybrid search does), then fuses them in several ways and prints Recall@5 per question
type. Every variant sees the same lists, so the differences are the fusion's alone:

- bm25, page, sections: one list alone;
- page+bm25: the product's hybrid (RRF k=60), at pin ratios none / 1.05 / 1.1;
- sections+bm25: the same with section vectors;
- 3-way: RRF over BM25, page vectors and section vectors, with the same pin rule.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path

from pipelines.evaluation.beir import load_dataset
from pipelines.evaluation.metrics import recall_at
from pipelines.fusion import PIN_DEPTH, RRF_K, Hit, fuse, should_pin
from pipelines.logging import configure_logging
from pipelines.runtime import EmbeddedRuntime, Runtime
from pipelines.search.filters import SearchFilters
from pipelines.settings import Settings

DEPTH = 20
PASSAGES_READ_PER_DOCUMENT = 8
Lists = tuple[list[Hit], list[Hit], list[Hit]]  # bm25, page vectors, section vectors
Variant = Callable[[Lists], list[str]]


def rrf_many(
    lists: Sequence[Sequence[Hit]], bm25: Sequence[Hit], pin_ratio: float | None
) -> list[str]:
    """RRF over any number of lists, with the BM25 pin applied as in the product."""
    scores: dict[str, float] = {}
    for hits in lists:
        for rank, hit in enumerate(hits, 1):
            scores[hit.doc_id] = scores.get(hit.doc_id, 0.0) + 1 / (RRF_K + rank)
    order = sorted(scores, key=lambda doc_id: (-scores[doc_id], doc_id))
    if pin_ratio is not None and should_pin(bm25, pin_ratio):
        pinned = [hit.doc_id for hit in bm25[:PIN_DEPTH]]
        order = pinned + [doc_id for doc_id in order if doc_id not in pinned]
    return order


def two_way(vectors: int, pin_ratio: float | None) -> Variant:
    """The product's fusion of BM25 with one vector list (1: page, 2: sections)."""
    return lambda ls: [hit.doc_id for hit in fuse(ls[0], ls[vectors], pin_ratio=pin_ratio)]


def three_way(pin_ratio: float | None) -> Variant:
    return lambda ls: rrf_many(ls, ls[0], pin_ratio)


def alone(position: int) -> Variant:
    return lambda ls: [hit.doc_id for hit in ls[position]]


def variants() -> dict[str, Variant]:
    found = {"bm25": alone(0), "page vectors": alone(1), "section vectors": alone(2)}
    for ratio in (None, 1.05, 1.1):
        label = "no pin" if ratio is None else f"pin {ratio}"
        found[f"page+bm25, {label}"] = two_way(1, ratio)
        found[f"sections+bm25, {label}"] = two_way(2, ratio)
        found[f"3-way, {label}"] = three_way(ratio)
    return found


def read_lists(runtime: Runtime, size: str, queries: list[tuple[str, str]]) -> dict[str, Lists]:
    """The three candidate lists of every question, read once."""
    filters = SearchFilters(space=f"eval-{size}")
    embedder = runtime.query_embedder()
    page_key = runtime.settings.vector_key(embedder.fingerprint)
    section_key = runtime.settings.model_copy(update={"embed_granularity": "section"}).vector_key(
        embedder.fingerprint
    )
    lists: dict[str, Lists] = {}
    for query_id, text in queries:
        vector = embedder.embed(text)
        lists[query_id] = (
            runtime.keyword.search(text, limit=DEPTH, filters=filters),
            runtime.vectors.search(vector, page_key, limit=DEPTH, filters=filters),
            runtime.vectors.search(
                vector,
                section_key,
                limit=DEPTH,
                filters=filters,
                passages_per_document=PASSAGES_READ_PER_DOCUMENT,
            ),
        )
    return lists


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path(".wikibench/corpus"))
    parser.add_argument("--size", default="wiki-all")
    parser.add_argument("--out", type=Path, help="Also write the table as JSON here.")
    args = parser.parse_args()
    configure_logging("ERROR", "console")
    dataset = load_dataset(args.corpus / args.size, f"eval-{args.size}")
    to_beir = dataset.corpus_ids
    with EmbeddedRuntime(Settings()) as runtime:
        lists = read_lists(runtime, args.size, [(q.id, q.text) for q in dataset.queries])
    types = sorted({q.type or "untyped" for q in dataset.queries})
    table: dict[str, dict[str, float]] = {}
    for name, variant in variants().items():
        per_type: dict[str, list[float]] = {}
        for query in dataset.queries:
            ranked = [to_beir[doc_id] for doc_id in variant(lists[query.id])[:10]]
            per_type.setdefault(query.type or "untyped", []).append(
                recall_at(ranked, dataset.qrels[query.id], 5)
            )
        table[name] = {kind: round(sum(v) / len(v), 4) for kind, v in per_type.items()}
    print(f"{args.size}: Recall@5 per question type ({len(dataset.queries)} questions)")
    print(f"| variant | {' | '.join(types)} |\n|---|{'---|' * len(types)}")
    for name, row in table.items():
        print(f"| {name} | {' | '.join(f'{row[kind]:.3f}' for kind in types)} |")
    if args.out:
        args.out.write_text(json.dumps({"size": args.size, "recall@5": table}, indent=1) + "\n")


if __name__ == "__main__":
    main()
