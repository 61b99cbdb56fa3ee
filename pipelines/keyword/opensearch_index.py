"""BM25 in OpenSearch (cluster mode), behind a versioned alias for zero-downtime reindexing.

The analyzer mirrors `pipelines.analysis.tokenize` (used by the embedded tantivy index), so both
modes match the same terms: identifiers split at dots and underscores, English possessives,
stop words and Snowball stemming for Latin text, overlapping bigrams for CJK text.

Writers and readers use the alias; a full reindex (after an analyzer change, say) builds a fresh,
randomly named index, bulk-loads it, swaps the alias atomically and drops the old index, as
pypi/warehouse does.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any, TypeVar

import structlog
from opensearchpy import OpenSearch, helpers
from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import ConnectionTimeout, NotFoundError, TransportError

from pipelines.documents import Document
from pipelines.fusion import Hit
from pipelines.keyword.base import KeywordIndexUnavailable
from pipelines.search.filters import PUBLIC_GROUP, SearchFilters

log = structlog.get_logger(__name__)
_R = TypeVar("_R")

# Bump when the analysis or mapping changes; `wikifuse reindex` then builds the new layout.
MAPPING_VERSION = "v1"

INDEX_SETTINGS: dict[str, Any] = {
    "index": {"number_of_shards": 1, "number_of_replicas": 0, "refresh_interval": "1s"},
    "analysis": {
        "char_filter": {
            # `ledger.replica_lag_max_ms` -> ledger replica lag max ms, as the embedded analyzer.
            "identifier_split": {"type": "pattern_replace", "pattern": "[._]", "replacement": " "}
        },
        "filter": {
            "english_possessive": {"type": "stemmer", "language": "possessive_english"},
            "english_stop": {"type": "stop", "stopwords": "_english_"},
            "english_snowball": {"type": "snowball", "language": "English"},
        },
        "analyzer": {
            "wikifuse_text": {
                "type": "custom",
                "char_filter": ["identifier_split"],
                "tokenizer": "standard",
                "filter": [
                    "cjk_width",
                    "lowercase",
                    "asciifolding",
                    "english_possessive",
                    "cjk_bigram",
                    "english_stop",
                    "english_snowball",
                ],
            }
        },
    },
}

MAPPINGS: dict[str, Any] = {
    "dynamic": "strict",
    "properties": {
        "space": {"type": "keyword"},
        "tags": {"type": "keyword"},
        "acl": {"type": "keyword"},
        "content_hash": {"type": "keyword"},
        # Title and text as one flat field, as Anserini's strongest BEIR BM25 baseline does.
        "body": {"type": "text", "analyzer": "wikifuse_text", "similarity": "BM25"},
    },
}

_UNREACHABLE = (OSConnectionError, ConnectionTimeout)


def _unavailable(error: Exception) -> KeywordIndexUnavailable:
    return KeywordIndexUnavailable(f"OpenSearch is unreachable: {error}")


class OpenSearchKeywordIndex:
    def __init__(
        self, url: str, alias: str = "wikifuse", *, timeout_s: float = 10.0, replicas: int = 0
    ) -> None:
        self._client = OpenSearch(hosts=[url], timeout=timeout_s, max_retries=1)
        self.alias = alias
        self._replicas = replicas
        self._ready = False

    # -- layout ------------------------------------------------------------------------------

    def ensure_index(self) -> str:
        """Create the first physical index and its alias when neither exists; returns the
        physical index the alias points to."""
        try:
            current = self.physical_index()
            if current is None:
                current = self._create_physical()
                try:
                    self._client.indices.put_alias(index=current, name=self.alias)
                except TransportError:
                    # Another process created the alias first: keep theirs, drop ours.
                    self._client.indices.delete(index=current, ignore_unavailable=True)
                    current = self.physical_index()
                    if current is None:
                        raise
        except _UNREACHABLE as error:
            raise _unavailable(error) from error
        self._ready = True
        return current

    def physical_index(self) -> str | None:
        try:
            aliased = self._client.indices.get_alias(name=self.alias)
        except NotFoundError:
            return None
        return next(iter(aliased), None)

    def _create_physical(self) -> str:
        name = f"{self.alias}-{MAPPING_VERSION}-{secrets.token_hex(4)}"
        settings = {**INDEX_SETTINGS, "index": {**INDEX_SETTINGS["index"]}}
        settings["index"]["number_of_replicas"] = self._replicas
        self._client.indices.create(index=name, body={"settings": settings, "mappings": MAPPINGS})
        return name

    def reindex(
        self,
        batches: Iterable[Sequence[Document]],
        lock: Callable[[], AbstractContextManager[object]] = nullcontext,
    ) -> str:
        """Rebuild everything into a fresh index, then swap the alias: searches never see a
        half-built index. `lock` keeps two reindexes from racing (a Redis lock in cluster mode)."""
        with lock():
            old = self.physical_index()
            new = self._create_physical()
            try:
                for batch in batches:
                    self._bulk(new, batch)
                self._client.indices.refresh(index=new)
            except Exception:
                self._client.indices.delete(index=new, ignore_unavailable=True)
                raise
            actions: list[dict[str, Any]] = [{"add": {"index": new, "alias": self.alias}}]
            if old is not None:
                actions.insert(0, {"remove": {"index": old, "alias": self.alias}})
            self._client.indices.update_aliases(body={"actions": actions})
            if old is not None:
                self._client.indices.delete(index=old, ignore_unavailable=True)
            log.info("opensearch.reindexed", old=old, new=new)
            return new

    # -- KeywordIndex ------------------------------------------------------------------------

    def upsert(self, documents: Sequence[Document]) -> None:
        if documents:
            self._guard(lambda: self._bulk(self.alias, documents))

    def delete(self, doc_ids: Sequence[str]) -> None:
        if not doc_ids:
            return
        actions = (
            {"_op_type": "delete", "_index": self.alias, "_id": doc_id} for doc_id in doc_ids
        )
        self._guard(lambda: helpers.bulk(self._client, actions, raise_on_error=False))

    def search(self, query: str, *, limit: int, filters: SearchFilters) -> list[Hit]:
        if limit <= 0 or not query.strip():
            return []
        body = {
            "size": limit,
            "_source": False,
            "query": {
                "bool": {
                    "must": [{"match": {"body": {"query": query}}}],
                    "filter": _filter_clauses(filters),
                }
            },
        }
        response = self._guard(lambda: self._client.search(index=self.alias, body=body))
        return [Hit(hit["_id"], float(hit["_score"])) for hit in response["hits"]["hits"]]

    def refresh(self) -> None:
        """Writes become searchable within the index's refresh interval (1 s) anyway; this makes
        them so now, once per job rather than once per bulk request."""
        self._guard(lambda: self._client.indices.refresh(index=self.alias))

    def ids(self, space: str) -> set[str]:
        return set(self.hashes(space))

    def hashes(self, space: str) -> dict[str, str]:
        """Document id -> content hash of what is indexed, for reconciliation."""

        def scan() -> dict[str, str]:
            hits: Iterator[dict[str, Any]] = helpers.scan(
                self._client,
                index=self.alias,
                query={"query": {"term": {"space": space}}, "_source": ["content_hash"]},
            )
            return {hit["_id"]: hit["_source"].get("content_hash", "") for hit in hits}

        return self._guard(scan)

    def spaces(self) -> set[str]:
        body = {"size": 0, "aggs": {"spaces": {"terms": {"field": "space", "size": 10000}}}}
        response = self._guard(lambda: self._client.search(index=self.alias, body=body))
        return {bucket["key"] for bucket in response["aggregations"]["spaces"]["buckets"]}

    def ping(self) -> bool:
        try:
            return bool(self._client.ping())
        except Exception:
            return False

    # -- internals ---------------------------------------------------------------------------

    def _guard(self, call: Callable[[], _R]) -> _R:
        try:
            if not self._ready:
                self.ensure_index()
            return call()
        except _UNREACHABLE as error:
            raise _unavailable(error) from error

    def _bulk(self, index: str, documents: Sequence[Document]) -> None:
        actions = (
            {"_op_type": "index", "_index": index, "_id": doc.id, "_source": _source(doc)}
            for doc in documents
        )
        helpers.bulk(self._client, actions, chunk_size=500)


def _source(doc: Document) -> dict[str, Any]:
    return {
        "space": doc.space,
        "tags": list(doc.tags),
        "acl": list(doc.acl_groups) or [PUBLIC_GROUP],
        "content_hash": doc.content_hash,
        "body": f"{doc.title}\n{doc.text}",
    }


def _filter_clauses(filters: SearchFilters) -> list[dict[str, Any]]:
    clauses: list[dict[str, Any]] = []
    if filters.space is not None:
        clauses.append({"term": {"space": filters.space}})
    clauses.extend({"term": {"tags": tag}} for tag in filters.tags)
    if filters.acl_groups is not None:
        clauses.append({"terms": {"acl": [PUBLIC_GROUP, *filters.acl_groups]}})
    return clauses
