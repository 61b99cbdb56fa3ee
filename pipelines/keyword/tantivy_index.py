"""BM25 on disk with tantivy. Text is analyzed by `pipelines.analysis.tokenize` (English stemming,
CJK bigrams) and stored pre-tokenized, so the same analysis can be mirrored by OpenSearch."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import tantivy

from pipelines.analysis.tokenize import analyze
from pipelines.documents import Document
from pipelines.fusion import Hit
from pipelines.search.filters import PUBLIC_GROUP, SearchFilters

_WRITER_HEAP = 64_000_000


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("space", stored=False, tokenizer_name="raw")
    builder.add_text_field("tag", stored=False, tokenizer_name="raw")
    builder.add_text_field("acl", stored=False, tokenizer_name="raw")
    # Title and text as one flat field, as Anserini's strongest BEIR BM25 baseline does.
    builder.add_text_field(
        "body", stored=False, tokenizer_name="whitespace", index_option="position"
    )
    return builder.build()


class TantivyKeywordIndex:
    def __init__(self, path: Path) -> None:
        path.mkdir(parents=True, exist_ok=True)
        self._schema = _schema()
        self._index = tantivy.Index(self._schema, path=str(path), reuse=True)
        self._write_lock = threading.Lock()

    def upsert(self, documents: Sequence[Document]) -> None:
        if not documents:
            return
        with self._write_lock, self._index.writer(_WRITER_HEAP, 1) as writer:
            for doc in documents:
                writer.delete_documents_by_term("id", doc.id)
                writer.add_document(self._to_tantivy(doc))
            writer.commit()
        self._index.reload()

    def delete(self, doc_ids: Sequence[str]) -> None:
        if not doc_ids:
            return
        with self._write_lock, self._index.writer(_WRITER_HEAP, 1) as writer:
            for doc_id in doc_ids:
                writer.delete_documents_by_term("id", doc_id)
            writer.commit()
        self._index.reload()

    def search(self, query: str, *, limit: int, filters: SearchFilters) -> list[Hit]:
        terms = list(dict.fromkeys(analyze(query)))
        if not terms or limit <= 0:
            return []
        text_query = tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, self._term("body", term)) for term in terms]
        )
        clauses = [(tantivy.Occur.Must, text_query), *self._filter_clauses(filters)]
        searcher = self._index.searcher()
        result = searcher.search(tantivy.Query.boolean_query(clauses), limit)
        hits = []
        for score, address in result.hits:
            doc_id = searcher.doc(address).get_first("id")
            hits.append(Hit(str(doc_id), float(score)))
        return hits

    def ids(self, space: str) -> set[str]:
        searcher = self._index.searcher()
        total = searcher.num_docs
        if total == 0:
            return set()
        result = searcher.search(self._term("space", space), total)
        return {str(searcher.doc(address).get_first("id")) for _, address in result.hits}

    def refresh(self) -> None:
        """Every upsert and delete already commits and reloads."""

    def _term(self, field: str, value: str) -> tantivy.Query:
        return tantivy.Query.term_query(self._schema, field, value)

    def _filter_clauses(self, filters: SearchFilters) -> list[tuple[tantivy.Occur, tantivy.Query]]:
        # Filters score nothing: wrapped in a zero constant score so BM25 scores stay comparable.
        clauses: list[tantivy.Query] = []
        if filters.space is not None:
            clauses.append(self._term("space", filters.space))
        clauses.extend(self._term("tag", tag) for tag in filters.tags)
        if filters.acl_groups is not None:
            groups = (PUBLIC_GROUP, *filters.acl_groups)
            clauses.append(
                tantivy.Query.boolean_query(
                    [(tantivy.Occur.Should, self._term("acl", group)) for group in groups]
                )
            )
        return [
            (tantivy.Occur.Must, tantivy.Query.const_score_query(clause, 0.0)) for clause in clauses
        ]

    def _to_tantivy(self, doc: Document) -> tantivy.Document:
        tdoc = tantivy.Document()
        tdoc.add_text("id", doc.id)
        tdoc.add_text("space", doc.space)
        for tag in doc.tags:
            tdoc.add_text("tag", tag)
        for group in doc.acl_groups or (PUBLIC_GROUP,):
            tdoc.add_text("acl", group)
        tdoc.add_text("body", " ".join(analyze(f"{doc.title}\n{doc.text}")))
        return tdoc
