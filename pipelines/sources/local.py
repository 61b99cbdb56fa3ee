"""Files and folders on disk (recursive), in a stable order."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pipelines.sources.item import SourceItem


class SourceNotFound(FileNotFoundError):
    pass


def _visible(path: Path, root: Path) -> bool:
    """Skip dot-files and dot-folders (.git, .obsidian, editor swap files) below a given root."""
    return not any(part.startswith(".") for part in path.relative_to(root).parts)


def list_files(paths: list[Path]) -> list[Path]:
    """Every file named or found under a named folder, resolved, deduplicated, sorted."""
    found: set[Path] = set()
    for given in paths:
        path = given.expanduser().resolve()
        if path.is_file():
            found.add(path)
        elif path.is_dir():
            found.update(
                child for child in path.rglob("*") if child.is_file() and _visible(child, path)
            )
        else:
            raise SourceNotFound(f"no such file or folder: {given}")
    return sorted(found)


def file_uri(path: Path) -> str:
    return path.resolve().as_uri()


def read_file(path: Path) -> SourceItem:
    stat = path.stat()
    return SourceItem(uri=file_uri(path), data=path.read_bytes(), modified=stat.st_mtime)


def under_any(uri: str, folders: list[Path]) -> bool:
    """Whether a stored file URI lies below one of the folders (for --sync deletions)."""
    for folder in folders:
        prefix = file_uri(folder).rstrip("/") + "/"
        if uri.startswith(prefix) or uri == file_uri(folder):
            return True
    return False


def iter_items(paths: list[Path]) -> Iterator[SourceItem]:
    for path in list_files(paths):
        yield read_file(path)
