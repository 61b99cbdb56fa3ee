"""What an ingest run did, per document, for the CLI summary, the job record and tests."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class IngestSummary:
    job_id: str
    space: str
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (source URI, reason)
    embedded: int = 0
    indexed: int = 0
    seconds: float = 0.0

    def counts(self) -> dict[str, int]:
        return {
            "added": len(self.added),
            "updated": len(self.updated),
            "unchanged": len(self.unchanged),
            "deleted": len(self.deleted),
            "failed": len(self.failed),
            "embedded": self.embedded,
            "indexed": self.indexed,
        }

    def failures(self) -> list[dict[str, str]]:
        return [{"source": uri, "reason": reason} for uri, reason in self.failed]
