"""Ingest throughput of the cluster against the raw embedding throughput of the same model.

    python benchmarks/ingest_throughput.py --corpus ../shared/eval/scifact/corpus.jsonl --docs 1000

Writes the first N corpus documents as text files, embeds the same texts directly with the model
(raw: the ceiling on this machine), then submits them as a cluster job through the API
(WIKIFUSE_* settings from the environment, workers already running) and times it to the end.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import httpx

from pipelines.embedding.embedder import load_embedder
from pipelines.settings import Settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--url", default="http://127.0.0.1:8765")
    parser.add_argument("--space", default="bench-ingest")
    args = parser.parse_args()

    rows: list[dict[str, str]] = []
    with args.corpus.open(encoding="utf-8") as handle:
        for line in handle:
            if len(rows) == args.docs:
                break
            rows.append(json.loads(line))
    folder = Path(tempfile.mkdtemp(prefix="wikifuse-bench-"))
    texts = []
    for row in rows:
        text = f"{row['title']}\n\n{row['text']}\n"
        (folder / f"{row['_id']}.txt").write_text(text, encoding="utf-8")
        texts.append(text[:2000])

    embedder = load_embedder(Settings())
    embedder.embed_documents(texts[:32])  # warm up
    started = time.perf_counter()
    embedder.embed_documents(texts)
    raw = time.perf_counter() - started
    print(f"raw embedding: {len(texts)} docs in {raw:.1f} s = {len(texts) / raw:.1f} docs/s")

    with httpx.Client(base_url=args.url, timeout=60) as http:
        started = time.perf_counter()
        job = http.post("/jobs", json={"sources": [str(folder)], "space": args.space}).json()
        while True:
            status = http.get(f"/jobs/{job['id']}").json()
            if status["state"] in ("done", "failed"):
                break
            time.sleep(0.5)
        took = time.perf_counter() - started
    counts = status["counts"]
    print(
        f"cluster ingest: state={status['state']} added={counts['added']} "
        f"embedded={counts['embedded']} indexed={counts['indexed']} in {took:.1f} s = "
        f"{counts['total'] / took:.1f} docs/s ({counts['total'] / took / (len(texts) / raw):.0%} "
        f"of raw embedding)"
    )


if __name__ == "__main__":
    main()
