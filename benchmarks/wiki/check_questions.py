"""Check a questions file against the corpus; the mechanical checks decide what counts.

    .venv/bin/python -m benchmarks.wiki.check_questions benchmarks/wiki/questions-paraphrase.jsonl

Each line: {"_id": ..., "text": ..., "metadata": {"type": "lexical" | "paraphrase" |
"identifier", "page": <corpus _id>, "identifier": <exact name, identifier questions only>}}.
Prints every rejected question with its reasons and a summary; exits 1 when any is rejected or a
question's page is not among the question pages of the 200-page wiki.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.wiki.question_checks import (
    Page,
    check_identifier,
    check_lexical,
    check_paraphrase,
    document_frequencies,
)

HERE = Path(__file__).resolve().parent


def load_pages(corpus: Path) -> dict[str, Page]:
    pages = {}
    with corpus.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            pages[row["_id"]] = Page(row["_id"], row["title"], row["text"])
    return pages


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path, nargs="+")
    parser.add_argument(
        "--corpus", type=Path, default=Path(".wikibench/corpus/wiki-all/corpus.jsonl")
    )
    args = parser.parse_args()
    pages = load_pages(args.corpus)
    frequencies, count = document_frequencies(pages.values())
    allowed = set(json.loads((HERE / "manifest.json").read_text())["question_pages"])
    accepted = rejected = 0
    seen: set[str] = set()
    for path in args.questions:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            row = json.loads(line)
            meta = row.get("metadata", {})
            kind, page_id = meta.get("type"), meta.get("page")
            problems: list[str] = []
            if row.get("_id") in seen:
                problems.append("duplicate _id")
            seen.add(row.get("_id"))
            if page_id not in pages:
                problems.append(f"page {page_id!r} is not in the corpus")
            elif page_id not in allowed:
                problems.append(f"page {page_id!r} is not a question page")
            else:
                page = pages[page_id]
                if kind == "paraphrase":
                    problems += check_paraphrase(row["text"], page, frequencies, count)
                elif kind == "identifier":
                    problems += check_identifier(row["text"], meta.get("identifier", ""), page)
                elif kind == "lexical":
                    problems += check_lexical(row["text"], page)
                else:
                    problems.append(f"unknown type {kind!r}")
            if problems:
                rejected += 1
                print(f"{path.name}:{number} {row.get('_id')}: {'; '.join(problems)}")
            else:
                accepted += 1
    print(f"{accepted} accepted, {rejected} rejected")
    return 1 if rejected else 0


if __name__ == "__main__":
    sys.exit(main())
