"""Search latency under load: C concurrent clients send hybrid queries to a running API.

    python benchmarks/search_load.py --url http://127.0.0.1:8765 --space eval-scifact \
        --queries ../shared/eval/scifact/queries.jsonl --clients 1 8 --requests 600

Prints, per client count, the median and P95 request latency (client side, including HTTP) and
the throughput. Every request is a distinct or repeated SciFact query, round-robin.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

import httpx

from pipelines.evaluation.metrics import percentile


def load_queries(path: Path) -> list[str]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line)["text"] for line in handle if line.strip()]


async def run(
    url: str, space: str, mode: str, queries: list[str], clients: int, total: int
) -> None:
    latencies: list[float] = []
    counter = iter(range(total))

    async def client(http: httpx.AsyncClient) -> None:
        for number in counter:
            body = {"query": queries[number % len(queries)], "space": space, "mode": mode, "k": 10}
            started = time.perf_counter()
            response = await http.post("/search", json=body)
            latencies.append((time.perf_counter() - started) * 1000)
            response.raise_for_status()

    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        await http.post("/search", json={"query": "warm up", "space": space, "mode": mode})
        started = time.perf_counter()
        await asyncio.gather(*(client(http) for _ in range(clients)))
        elapsed = time.perf_counter() - started
    print(
        f"mode={mode} clients={clients} requests={len(latencies)} "
        f"p50_ms={percentile(latencies, 0.5):.1f} p95_ms={percentile(latencies, 0.95):.1f} "
        f"throughput_qps={len(latencies) / elapsed:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8765")
    parser.add_argument("--space", default="eval-scifact")
    parser.add_argument("--mode", default="hybrid")
    parser.add_argument("--queries", type=Path, required=True)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--requests", type=int, default=600)
    args = parser.parse_args()
    queries = load_queries(args.queries)
    for clients in args.clients:
        asyncio.run(run(args.url, args.space, args.mode, queries, clients, args.requests))


if __name__ == "__main__":
    main()
