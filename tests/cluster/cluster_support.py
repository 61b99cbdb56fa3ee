"""Processes and polling helpers for the cluster tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[2]
SAMPLE_WIKI = REPO / "samples" / "wiki"
SHARED_EVAL = REPO.parent / "shared" / "eval"
WIKIFUSE = [sys.executable, "-m", "cli.main"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.2)


class Worker:
    """A `wikifuse worker` process (its own process group, so a SIGKILL takes its children)."""

    def __init__(self, env: dict[str, str], log_path: Path, queues: str) -> None:
        self.log_path = log_path
        self._log = log_path.open("ab")
        self.process = subprocess.Popen(
            [*WIKIFUSE, "worker", "--queues", queues],
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for(
            lambda: b"ready." in log_path.read_bytes() or self.process.poll() is not None,
            120,
            "the worker to be ready",
        )
        assert self.process.poll() is None, log_path.read_text()[-3000:]

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log.close()


class Api:
    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        self._log = log_path.open("ab")
        self.process = subprocess.Popen(
            [*WIKIFUSE, "serve", "--port", str(port)],
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

        def up() -> bool:
            assert self.process.poll() is None, log_path.read_text()[-3000:]
            try:
                return httpx.get(f"{self.base}/healthz", timeout=1).status_code == 200
            except httpx.TransportError:
                return False

        wait_for(up, 120, "the API to answer /healthz")
        self.client = httpx.Client(base_url=self.base, timeout=60)

    def stop(self) -> None:
        self.client.close()
        self.process.terminate()
        self.process.wait(timeout=30)
        self._log.close()


def wait_for_job(api: Api, job_id: str, timeout: float = 300) -> dict[str, Any]:
    body: dict[str, Any] = {}

    def finished() -> bool:
        nonlocal body
        body = api.client.get(f"/jobs/{job_id}").json()
        return body["state"] in ("done", "failed")

    wait_for(finished, timeout, f"job {job_id}")
    return body
