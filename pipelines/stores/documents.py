"""Documents and their sections in Postgres, the source of truth for every index."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from psycopg import sql
from psycopg.types.json import Jsonb

from pipelines.documents import Document, Section
from pipelines.stores.database import Database


@dataclass(frozen=True)
class StoredState:
    """What change detection needs, without loading the text."""

    id: str
    source_uri: str
    content_hash: str
    source_hash: str | None
    language: str
    created_job_id: str | None = None
    updated_job_id: str | None = None


class DocumentStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def states(self, space: str) -> dict[str, StoredState]:
        """By source URI, every document of a space."""
        with self._db.connection() as conn:
            rows = conn.execute(
                "SELECT id, source_uri, content_hash, source_hash, language, created_job_id,"
                " updated_job_id FROM documents"
                " WHERE space = %s",
                (space,),
            ).fetchall()
        return {row[1]: StoredState(*row) for row in rows}

    def upsert(
        self, documents: Sequence[tuple[Document, str | None]], job_id: str | None = None
    ) -> None:
        """Insert or replace documents (with the hash of their source bytes) and their sections,
        noting the job that wrote them."""
        if not documents:
            return
        with self._db.connection() as conn, conn.transaction(), conn.cursor() as cur:
            cur.executemany(
                """
                INSERT INTO documents (id, space, source_uri, title, body, tags, acl_groups,
                                       language, content_hash, source_hash, metadata, updated_at,
                                       created_job_id, updated_job_id)
                VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, now(), %s, %s)
                ON CONFLICT (id) DO UPDATE SET
                    title = excluded.title, body = excluded.body, tags = excluded.tags,
                    acl_groups = excluded.acl_groups, language = excluded.language,
                    content_hash = excluded.content_hash, source_hash = excluded.source_hash,
                    metadata = excluded.metadata, updated_at = now(),
                    updated_job_id = excluded.updated_job_id
                """,
                [
                    (
                        doc.id,
                        doc.space,
                        doc.source_uri,
                        doc.title,
                        doc.text,
                        list(doc.tags),
                        list(doc.acl_groups),
                        doc.language,
                        doc.content_hash,
                        source_hash,
                        Jsonb(doc.metadata),
                        job_id,
                        job_id,
                    )
                    for doc, source_hash in documents
                ],
            )
            ids = [doc.id for doc, _ in documents]
            cur.execute("DELETE FROM sections WHERE document_id = ANY(%s)", (ids,))
            cur.executemany(
                "INSERT INTO sections (document_id, position, title, body) VALUES (%s, %s, %s, %s)",
                [
                    (doc.id, section.position, section.title, section.text)
                    for doc, _ in documents
                    for section in doc.sections
                ],
            )

    def set_source_hash(self, doc_id: str, source_hash: str) -> None:
        with self._db.connection() as conn:
            conn.execute(
                "UPDATE documents SET source_hash = %s WHERE id = %s", (source_hash, doc_id)
            )

    def delete(self, doc_ids: Iterable[str]) -> int:
        ids = list(doc_ids)
        if not ids:
            return 0
        with self._db.connection() as conn:
            return conn.execute("DELETE FROM documents WHERE id = ANY(%s)", (ids,)).rowcount

    def get(self, doc_id: str) -> Document | None:
        found = self.get_many([doc_id], with_sections=True)
        return found.get(doc_id)

    def get_many(
        self,
        doc_ids: Sequence[str],
        *,
        with_sections: bool = False,
        text_chars: int | None = None,
    ) -> dict[str, Document]:
        """Documents by id. `text_chars` reads only the start of each text (for snippets: a
        long page's body need not cross the wire to show one passage of it)."""
        if not doc_ids:
            return {}
        body = sql.SQL("left(body, {})").format(sql.Literal(text_chars)) if text_chars else None
        with self._db.connection() as conn:
            rows = conn.execute(
                sql.SQL(
                    "SELECT id, space, source_uri, title, {body}, tags, acl_groups, language,"
                    " content_hash, metadata FROM documents WHERE id = ANY(%s)"
                ).format(body=body or sql.Identifier("body")),
                (list(doc_ids),),
            ).fetchall()
            sections: dict[str, list[Section]] = {}
            if with_sections:
                for doc_id, position, title, body in conn.execute(
                    "SELECT document_id, position, title, body FROM sections"
                    " WHERE document_id = ANY(%s) ORDER BY document_id, position",
                    (list(doc_ids),),
                ):
                    sections.setdefault(doc_id, []).append(Section(title, body, position))
        return {row[0]: _document(row, sections.get(row[0], [])) for row in rows}

    def iter_space(self, space: str, batch_size: int = 500) -> Iterable[list[Document]]:
        """All documents of a space, in batches, for reindexing."""
        with self._db.connection() as conn:
            ids = [
                row[0]
                for row in conn.execute(
                    "SELECT id FROM documents WHERE space = %s ORDER BY id", (space,)
                )
            ]
        for start in range(0, len(ids), batch_size):
            batch = self.get_many(ids[start : start + batch_size])
            yield [batch[doc_id] for doc_id in ids[start : start + batch_size] if doc_id in batch]

    def spaces(self) -> set[str]:
        with self._db.connection() as conn:
            return {row[0] for row in conn.execute("SELECT DISTINCT space FROM documents")}


def _document(row: tuple[Any, ...], sections: list[Section]) -> Document:
    doc_id, space, uri, title, body, tags, acl, language, chash, metadata = row
    return Document(
        id=doc_id,
        space=space,
        source_uri=uri,
        title=title,
        text=body,
        sections=tuple(sections),
        tags=tuple(tags),
        acl_groups=tuple(acl),
        language=language,
        content_hash=chash,
        metadata=dict(metadata or {}),
    )
