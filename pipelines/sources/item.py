"""What a source hands to conversion: raw bytes plus where they came from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath


@dataclass(frozen=True)
class SourceItem:
    uri: str
    data: bytes
    modified: float | None = None
    etag: str | None = None

    @property
    def suffix(self) -> str:
        path, _, fragment = self.uri.partition("#")
        if fragment.startswith("."):  # a fetched URL whose type came from its content type
            return fragment.lower()
        return PurePosixPath(path.split("?", 1)[0]).suffix.lower()
