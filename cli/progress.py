"""A progress bar on a terminal; a few plain lines elsewhere (CI logs, pipes)."""

from __future__ import annotations

import sys
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress


class TerminalProgress:
    def __init__(self, console: Console) -> None:
        self._bar = RichProgress(
            TextColumn("{task.description:<8}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self._task: TaskID | None = None

    def stage(self, name: str, total: int) -> None:
        if self._task is not None:
            self._bar.update(self._task, completed=self._bar.tasks[-1].total)
        self._task = self._bar.add_task(name, total=total)

    def advance(self, count: int = 1) -> None:
        if self._task is not None:
            self._bar.advance(self._task, count)

    def __enter__(self) -> TerminalProgress:
        self._bar.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._bar.stop()


class LineProgress:
    """A line per stage, and per 10% step of a long stage, so a job in a log shows it moves."""

    _STEP_FROM = 200  # smaller stages only say when they start

    def __init__(self) -> None:
        self._name = ""
        self._total = 0
        self._done = 0
        self._next_report = 0.0

    def stage(self, name: str, total: int) -> None:
        self._name, self._total, self._done, self._next_report = name, total, 0, 0.1
        print(f"{name}: 0/{total}", file=sys.stderr, flush=True)

    def advance(self, count: int = 1) -> None:
        self._done += count
        if self._total < self._STEP_FROM:
            return
        if self._done / self._total >= self._next_report:
            print(f"{self._name}: {self._done}/{self._total}", file=sys.stderr, flush=True)
            while self._next_report <= self._done / self._total:
                self._next_report += 0.1

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        pass


def progress_for(console: Console) -> TerminalProgress | LineProgress:
    return TerminalProgress(console) if console.is_terminal else LineProgress()
