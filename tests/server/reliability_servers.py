"""Real `graphagents serve` processes for the reliability tests, the chaos test and the load bench.

Each server runs in its own process group, so ``kill()`` (SIGKILL) also kills its worker processes,
as a crash of the machine's service would.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, data_dir: Path, *, port: int | None = None, workers: int = 1,
                 env: dict[str, str] | None = None, warm: bool = False) -> None:
        self.data_dir = data_dir
        self.port = port or free_port()
        self.workers = workers
        self.env = {**os.environ, "GRAPHAGENTS_DATA_DIR": str(data_dir),
                    "GRAPHAGENTS_WARM_ON_START": "true" if warm else "false", **(env or {})}
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = data_dir / f"server-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 120) -> Server:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "graphagents", "serve", "--port", str(self.port)]
        if self.workers > 1:
            cmd += ["--workers", str(self.workers)]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(cmd, env=self.env, stdout=log, stderr=log, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited early: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/readyz", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.kill()
        raise RuntimeError(f"server not ready in time: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL to the whole process group: nothing gets a chance to flush."""
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.kill()
