"""Run the server as a separate process on a free port; used by the restart and browser tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    def __init__(self, data_dir: Path, port: int | None = None, *, builtin: bool = False) -> None:
        """``builtin=True`` runs plain ``python -m graphagents serve`` (the installed agents only);
        otherwise the example agent is registered too."""
        self.data_dir = data_dir
        self.port = port or free_port()
        self.command = ["-m", "graphagents", "serve"] if builtin else [str(HERE / "serve_example.py")]
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60) -> LiveServer:
        env = {**os.environ, "GRAPHAGENTS_DATA_DIR": str(self.data_dir)}
        self.proc = subprocess.Popen(
            [sys.executable, *self.command, "--port", str(self.port)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise RuntimeError(f"server exited early: {err[-2000:]}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.2)
        self.kill()
        raise RuntimeError("server did not start in time")

    def kill(self) -> None:
        """SIGKILL: nothing gets a chance to flush, as in a crash."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.kill()
