"""Freeze the written questions into each wiki size's BEIR folder: queries.jsonl (with
metadata.type) and qrels/test.tsv (one labelled page per question). Only questions that pass the
mechanical checks are kept; the rest are listed and left out.

    .venv/bin/python -m benchmarks.wiki.make_queries --corpus .wikibench/corpus
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from benchmarks.wiki.check_questions import load_pages
from benchmarks.wiki.question_checks import (
    check_identifier,
    check_lexical,
    check_paraphrase,
    document_frequencies,
)

HERE = Path(__file__).resolve().parent
QUESTION_FILES = (
    "questions-lexical.jsonl",
    "questions-paraphrase.jsonl",
    "questions-identifier.jsonl",
)


def accepted_questions(corpus_all: Path) -> tuple[list[dict[str, Any]], list[str]]:
    pages = load_pages(corpus_all)
    frequencies, count = document_frequencies(pages.values())
    kept: list[dict[str, Any]] = []
    dropped: list[str] = []
    for name in QUESTION_FILES:
        path = HERE / name
        if not path.exists():
            dropped.append(f"{name}: missing")
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            meta = row["metadata"]
            page = pages.get(meta["page"])
            if page is None:
                dropped.append(f"{row['_id']}: page {meta['page']} not in the corpus")
                continue
            kind = meta["type"]
            if kind == "paraphrase":
                problems = check_paraphrase(row["text"], page, frequencies, count)
            elif kind == "identifier":
                problems = check_identifier(row["text"], meta.get("identifier", ""), page)
            else:
                problems = check_lexical(row["text"], page)
            if problems:
                dropped.append(f"{row['_id']}: {'; '.join(problems)}")
            else:
                kept.append(row)
    return kept, dropped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path(".wikibench/corpus"))
    args = parser.parse_args()
    kept, dropped = accepted_questions(args.corpus / "wiki-all" / "corpus.jsonl")
    for reason in dropped:
        print(f"left out {reason}")
    for folder in sorted(args.corpus.glob("wiki-*")):
        ids = {json.loads(line)["_id"] for line in (folder / "corpus.jsonl").open()}
        missing = [row["_id"] for row in kept if row["metadata"]["page"] not in ids]
        if missing:
            raise SystemExit(f"{folder.name} lacks the pages of {len(missing)} questions")
        with (folder / "queries.jsonl").open("w", encoding="utf-8") as handle:
            for row in kept:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        (folder / "qrels").mkdir(exist_ok=True)
        with (folder / "qrels" / "test.tsv").open("w", encoding="utf-8") as handle:
            handle.write("query-id\tcorpus-id\tscore\n")
            for row in kept:
                handle.write(f"{row['_id']}\t{row['metadata']['page']}\t1\n")
    kinds: dict[str, int] = {}
    for row in kept:
        kind = str(row["metadata"]["type"])
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"{len(kept)} questions frozen into {args.corpus}: {kinds}")


if __name__ == "__main__":
    main()
