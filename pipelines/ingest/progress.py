"""How long work reports progress without knowing whether a terminal is watching."""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    def stage(self, name: str, total: int) -> None: ...

    def advance(self, count: int = 1) -> None: ...


class NoProgress:
    def stage(self, name: str, total: int) -> None:
        pass

    def advance(self, count: int = 1) -> None:
        pass
