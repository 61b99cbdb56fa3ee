"""The Celery task wrapper: transient errors retry with backoff, then the failure is recorded;
other errors are recorded at once. Run eagerly, with a fake job service at the seam."""

from __future__ import annotations

from typing import Any

import pytest

from pipelines.stores.database import DatabaseUnavailable
from workers import tasks


class FakeJobs:
    def __init__(self, errors: list[Exception]) -> None:
        self.errors = errors
        self.runs = 0
        self.failed: list[tuple[str, str, str]] = []

    def run(self, job_id: str, task_key: str) -> None:
        self.runs += 1
        if self.errors:
            raise self.errors.pop(0)

    def fail(self, job_id: str, task_key: str, reason: str) -> None:
        self.failed.append((job_id, task_key, reason))


@pytest.fixture()
def fake(monkeypatch: pytest.MonkeyPatch) -> Any:
    def install(errors: list[Exception]) -> FakeJobs:
        jobs = FakeJobs(errors)
        monkeypatch.setattr(tasks, "jobs", lambda: jobs)
        return jobs

    return install


def test_transient_error_is_retried_then_succeeds(fake: Any) -> None:
    jobs = fake([DatabaseUnavailable("down"), DatabaseUnavailable("still down")])
    tasks.embed.apply(args=("job", "embed:0"), throw=False)
    assert jobs.runs == 3 and jobs.failed == []


def test_transient_error_that_persists_is_recorded_on_the_job(
    fake: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WIKIFUSE_TASK_MAX_RETRIES", "2")
    tasks.get_settings.cache_clear()
    try:
        jobs = fake([DatabaseUnavailable("down")] * 10)
        tasks.index.apply(args=("job", "index:3"), throw=False)
    finally:
        tasks.get_settings.cache_clear()
    assert jobs.runs == 3
    assert len(jobs.failed) == 1
    job_id, key, reason = jobs.failed[0]
    assert (job_id, key) == ("job", "index:3") and "gave up after 2 retries" in reason


def test_a_bug_is_recorded_without_retrying(fake: Any) -> None:
    jobs = fake([KeyError("payload")])
    tasks.convert.apply(args=("job", "convert:1"), throw=False)
    assert jobs.runs == 1
    assert jobs.failed == [("job", "convert:1", "KeyError: 'payload'")]
