"""Processes and polling helpers for the cluster tests."""

from __future__ import annotations

import contextlib
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


class TcpProxy:
    """A loopback TCP forwarder that can be cut, to take a service away from one process."""

    def __init__(self, target_host: str, target_port: int) -> None:
        import threading

        self._target = (target_host, target_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._sockets: list[socket.socket] = []
        self._open = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import threading

        while self._open:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self._target)
            self._sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        """Close the listener and every forwarded connection: the service is gone."""
        self._open = False
        # shutdown wakes the thread blocked in accept(); close alone would leave it listening.
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        for sock in self._sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
                sock.close()
