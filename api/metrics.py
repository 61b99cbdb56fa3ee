"""Prometheus metrics: request latency per search mode and errors (counted here), tasks
processed and queue depth (read from Postgres and Redis when scraped, so every replica agrees)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from pipelines.stores.database import Database, DatabaseUnavailable


class ApiMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.search_seconds = Histogram(
            "wikifuse_search_seconds",
            "Search request latency by requested mode",
            ["mode"],
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
            registry=self.registry,
        )
        self.http_errors = Counter(
            "wikifuse_http_errors_total",
            "HTTP responses with status >= 500 (or 4xx from bad requests) by route and status",
            ["route", "status"],
            registry=self.registry,
        )

    def watch(self, collector: Collector) -> None:
        self.registry.register(collector)


class JobTaskCollector(Collector):
    """Tasks processed so far, by kind and final state (done, failed)."""

    def __init__(self, database: Database) -> None:
        self._database = database

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily(
            "wikifuse_tasks_processed",
            "Ingest tasks finished, by kind and state",
            labels=["kind", "state"],
        )
        try:
            with self._database.connection() as conn:
                rows = conn.execute(
                    "SELECT kind, state, count(*) FROM job_tasks WHERE state <> 'queued'"
                    " GROUP BY kind, state"
                ).fetchall()
        except DatabaseUnavailable:
            rows = []
        for kind, state, count in rows:
            family.add_metric([kind, state], float(count))
        yield family


class QueueDepthCollector(Collector):
    """Messages waiting in each worker queue (Redis list length)."""

    def __init__(self, depth: Callable[[], dict[str, int]]) -> None:
        self._depth = depth

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily(
            "wikifuse_queue_depth", "Tasks waiting in each queue", labels=["queue"]
        )
        try:
            depths = self._depth()
        except Exception:  # Redis down: the gauge is simply absent this scrape
            depths = {}
        for queue, depth in depths.items():
            family.add_metric([queue], float(depth))
        yield family
