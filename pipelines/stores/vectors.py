"""Document vectors in pgvector: an HNSW (cosine) index per embedding model and granularity
(the key; see pipelines/embedding/passages.py)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Protocol

import numpy as np
from psycopg import sql

from pipelines.fusion import Hit
from pipelines.search.filters import SearchFilters
from pipelines.stores.database import Database


class VectorIndex(Protocol):
    def has_vectors(self, fingerprint: str, filters: SearchFilters) -> bool: ...

    def search(
        self,
        vector: np.ndarray,
        fingerprint: str,
        *,
        limit: int,
        filters: SearchFilters,
        passages_per_document: int = 1,
    ) -> list[Hit]: ...

    def similarities(
        self, vector: np.ndarray, fingerprint: str, doc_ids: Sequence[str]
    ) -> dict[str, float]: ...


def _index_name(fingerprint: str) -> str:
    return "embeddings_hnsw_" + hashlib.sha256(fingerprint.encode()).hexdigest()[:12]


class PgVectorIndex:
    """Vectors live beside their documents, so filters are plain joins."""

    def __init__(self, db: Database, ef_search: int = 100) -> None:
        self._db = db
        self._ef_search = ef_search
        self._indexed: set[str] = set()

    def ensure_index(self, fingerprint: str, dimensions: int) -> None:
        """A partial HNSW index per model: typed to its dimension, holding only its vectors."""
        if fingerprint in self._indexed:
            return
        statement = sql.SQL(
            "CREATE INDEX IF NOT EXISTS {name} ON embeddings USING hnsw"
            " ((embedding::vector({dims})) vector_cosine_ops) WHERE model_fingerprint = {fp}"
        ).format(
            name=sql.Identifier(_index_name(fingerprint)),
            dims=sql.Literal(dimensions),
            fp=sql.Literal(fingerprint),
        )
        with self._db.connection() as conn:
            conn.execute(statement)
        self._indexed.add(fingerprint)

    def current(self, doc_hashes: dict[str, str], fingerprint: str) -> set[str]:
        """Ids whose stored vectors were made under this key from this content."""
        if not doc_hashes:
            return set()
        with self._db.connection() as conn:
            rows = conn.execute(
                "SELECT DISTINCT document_id, content_hash FROM embeddings"
                " WHERE model_fingerprint = %s AND document_id = ANY(%s)",
                (fingerprint, list(doc_hashes)),
            ).fetchall()
        return {doc_id for doc_id, chash in rows if doc_hashes.get(doc_id) == chash}

    def upsert(
        self,
        rows: Sequence[tuple[str, str, Sequence[np.ndarray]]],
        fingerprint: str,
        dimensions: int,
    ) -> None:
        """Rows of (document id, content hash, its vectors: one per passage, in order). A
        document's previous vectors under this key are replaced, whatever their number."""
        if not rows:
            return
        self.ensure_index(fingerprint, dimensions)
        with self._db.connection() as conn, conn.transaction(), conn.cursor() as cur:
            cur.execute(
                "DELETE FROM embeddings WHERE model_fingerprint = %s AND document_id = ANY(%s)",
                (fingerprint, [doc_id for doc_id, _, _ in rows]),
            )
            cur.executemany(
                "INSERT INTO embeddings"
                " (document_id, model_fingerprint, passage, content_hash, embedding)"
                " VALUES (%s, %s, %s, %s, %s)",
                [
                    (doc_id, fingerprint, passage, chash, vector)
                    for doc_id, chash, vectors in rows
                    for passage, vector in enumerate(vectors)
                ],
            )

    def delete_for(self, doc_ids: Sequence[str]) -> None:
        """Drop vectors of documents that must not be embedded any more (e.g. now mostly CJK)."""
        if doc_ids:
            with self._db.connection() as conn:
                conn.execute("DELETE FROM embeddings WHERE document_id = ANY(%s)", (list(doc_ids),))

    def has_vectors(self, fingerprint: str, filters: SearchFilters) -> bool:
        where, params = _filter_clause(filters)
        with self._db.connection() as conn:
            row = conn.execute(
                sql.SQL(
                    "SELECT EXISTS (SELECT 1 FROM embeddings e JOIN documents d"
                    " ON d.id = e.document_id WHERE e.model_fingerprint = %s {where})"
                ).format(where=where),
                [fingerprint, *params],
            ).fetchone()
        return bool(row and row[0])

    def search(
        self,
        vector: np.ndarray,
        fingerprint: str,
        *,
        limit: int,
        filters: SearchFilters,
        passages_per_document: int = 1,
    ) -> list[Hit]:
        """The `limit` nearest documents. With several passages per document, more passages
        are read so that enough distinct documents remain; each scores as its best passage."""
        dims = len(vector)
        rows_wanted = limit * passages_per_document
        where, params = _filter_clause(filters)
        query = sql.SQL(
            "SELECT e.document_id, (e.embedding::vector({dims})) <=> %s AS distance"
            " FROM embeddings e JOIN documents d ON d.id = e.document_id"
            " WHERE e.model_fingerprint = %s {where}"
            " ORDER BY (e.embedding::vector({dims})) <=> %s LIMIT %s"
        ).format(dims=sql.Literal(dims), where=where)
        with self._db.connection() as conn, conn.transaction():
            # Filtered HNSW scans keep walking the graph until `limit` rows pass the filter.
            conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            conn.execute(
                sql.SQL("SET LOCAL hnsw.ef_search = {}").format(
                    sql.Literal(min(1000, max(self._ef_search, rows_wanted)))
                )
            )
            rows = conn.execute(
                query, [vector, fingerprint, *params, vector, rows_wanted]
            ).fetchall()
        best: dict[str, float] = {}
        for doc_id, distance in rows:
            best[doc_id] = min(float(distance), best.get(doc_id, 2.0))
        # relaxed_order may return neighbours slightly out of order: sort by the exact distance.
        nearest = sorted(best.items(), key=lambda item: (item[1], item[0]))[:limit]
        return [Hit(doc_id, 1.0 - distance) for doc_id, distance in nearest]

    def similarities(
        self, vector: np.ndarray, fingerprint: str, doc_ids: Sequence[str]
    ) -> dict[str, float]:
        """Cosine similarity of the query to each of these documents (those with a vector): to
        its best passage when it has several."""
        if not doc_ids:
            return {}
        query = sql.SQL(
            "SELECT document_id, max(1 - ((embedding::vector({dims})) <=> %s)) FROM embeddings"
            " WHERE model_fingerprint = %s AND document_id = ANY(%s) GROUP BY document_id"
        ).format(dims=sql.Literal(len(vector)))
        with self._db.connection() as conn:
            rows = conn.execute(query, [vector, fingerprint, list(doc_ids)]).fetchall()
        return {doc_id: float(score) for doc_id, score in rows}


def _filter_clause(filters: SearchFilters) -> tuple[sql.Composable, list[object]]:
    parts: list[sql.Composable] = []
    params: list[object] = []
    if filters.space is not None:
        parts.append(sql.SQL("AND d.space = %s"))
        params.append(filters.space)
    if filters.tags:
        parts.append(sql.SQL("AND d.tags @> %s"))
        params.append(list(filters.tags))
    if filters.acl_groups is not None:
        parts.append(sql.SQL("AND (d.acl_groups = '{}' OR d.acl_groups && %s)"))
        params.append(list(filters.acl_groups))
    return sql.SQL(" ").join(parts), params
