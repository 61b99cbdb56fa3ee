"""Section-level embeddings: every passage of a page is embedded, the page scores as its best."""

from __future__ import annotations

from pipelines.documents import Document, content_hash, document_id
from pipelines.runtime import EmbeddedRuntime, Runtime
from pipelines.search.filters import SearchFilters
from pipelines.search.service import SearchRequest

SPACE = "sections"
FILLER = "\n\n".join(
    f"Chapter {i}. The cafeteria menu lists soups, salads and sandwiches for the week, and the "
    "kitchen staff rotate between the morning and the afternoon shifts."
    for i in range(30)
)
DEEP = (
    "To rotate the backup encryption keys, generate a new key pair, re-encrypt the archive "
    "manifests and revoke the old key in the vault."
)


def _doc(title: str, text: str, space: str = SPACE) -> Document:
    uri = f"mem://{title}"
    return Document(
        id=document_id(space, uri),
        space=space,
        source_uri=uri,
        title=title,
        text=text,
        language="en",
        content_hash=content_hash(title, text),
    )


DOCS = [
    _doc("Office handbook", f"{FILLER}\n\n{DEEP}"),  # the answer sits far past the page vector
    _doc("Parking", "Visitors park in the north garage and register at the front desk."),
    _doc("Printers", "The third floor printer needs a badge; toner is in the supply room."),
    _doc("Laptops", "New laptops are imaged by IT and shipped with the standard tools."),
]
QUERY = "how do I replace the keys that protect our backups"


def _rank_of_handbook(runtime: Runtime) -> int | None:
    response = runtime.search.search(
        SearchRequest(QUERY, mode="vector", k=4, filters=SearchFilters(space=SPACE))
    )
    ranks = {r.title: r.rank for r in response.results}
    return ranks.get("Office handbook")


def _section_runtime(runtime: EmbeddedRuntime) -> Runtime:
    """Section-level settings over the same stores (not closed: the session owns them)."""
    settings = runtime.settings.model_copy(update={"embed_granularity": "section"})
    return Runtime(settings, runtime.database, runtime.keyword)


def test_section_vectors_find_text_a_page_vector_never_saw(runtime: EmbeddedRuntime) -> None:
    by_page = runtime
    by_section = _section_runtime(runtime)
    assert by_page.ingest.ingest_documents(DOCS, SPACE).embedded == len(DOCS)
    assert by_section.ingest.ingest_documents(DOCS, SPACE).embedded == len(DOCS)
    # Nothing changed: neither granularity embeds again.
    assert by_section.ingest.ingest_documents(DOCS, SPACE).embedded == 0
    assert by_page.ingest.ingest_documents(DOCS, SPACE).embedded == 0

    assert _rank_of_handbook(by_section) == 1
    assert _rank_of_handbook(by_page) != 1  # its one vector stops long before the answer

    fingerprint = runtime.query_embedder().fingerprint
    with runtime.database.connection() as conn:
        counts = dict(
            conn.execute(
                "SELECT model_fingerprint, count(*) FROM embeddings e JOIN documents d"
                " ON d.id = e.document_id WHERE d.space = %s GROUP BY model_fingerprint",
                (SPACE,),
            ).fetchall()
        )
    # One vector per page under the model; many passages under the section key.
    assert counts[fingerprint] == len(DOCS)
    assert counts[f"{fingerprint}#section"] > len(DOCS) + 3


def test_changing_a_page_replaces_all_its_passages(runtime: EmbeddedRuntime) -> None:
    by_section = _section_runtime(runtime)
    long = _doc("Shrinking page", FILLER, space="shrink")
    assert by_section.ingest.ingest_documents([long], "shrink").embedded == 1
    assert _section_vectors(runtime, long.id) > 1
    shorter = _doc("Shrinking page", "Only one line now.", space="shrink")
    assert by_section.ingest.ingest_documents([shorter], "shrink").embedded == 1
    assert _section_vectors(runtime, long.id) == 1


def _section_vectors(runtime: EmbeddedRuntime, doc_id: str) -> int:
    with runtime.database.connection() as conn:
        row = conn.execute(
            "SELECT count(*) FROM embeddings WHERE document_id = %s AND model_fingerprint LIKE %s",
            (doc_id, "%#section"),
        ).fetchone()
    assert row is not None
    return int(row[0])
