"""http(s) sources: a page or a file fetched by URL."""

from __future__ import annotations

import mimetypes
from pathlib import PurePosixPath
from urllib.parse import urlparse

import httpx

from pipelines.sources.item import SourceItem

_SUFFIX_BY_TYPE = {
    "text/html": ".html",
    "application/xhtml+xml": ".html",
    "application/pdf": ".pdf",
    "text/markdown": ".md",
    "text/plain": ".txt",
}


def is_url(source: str) -> bool:
    return urlparse(source).scheme in ("http", "https")


def fetch_url(url: str, *, max_bytes: int, timeout_s: float = 30.0) -> SourceItem:
    """Fetch a URL; raises httpx.HTTPError (or ValueError when too large) for the caller to
    record. A URL without a telling suffix gets one from its content type."""
    with httpx.stream("GET", url, timeout=timeout_s, follow_redirects=True) as response:
        response.raise_for_status()
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > max_bytes:
                raise ValueError(f"larger than {max_bytes} bytes")
            chunks.append(chunk)
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        etag = response.headers.get("etag")
    uri = url
    path_suffix = PurePosixPath(urlparse(url).path).suffix.lower()
    if path_suffix not in _SUFFIX_BY_TYPE.values():
        suffix = _SUFFIX_BY_TYPE.get(content_type) or mimetypes.guess_extension(content_type) or ""
        # The converter dispatches on the URI's suffix; a fragment keeps the URL itself intact.
        uri = f"{url}#{suffix}" if suffix else url
    return SourceItem(uri=uri, data=b"".join(chunks), etag=etag)
