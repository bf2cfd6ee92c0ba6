"""A slow upload runs in the upload pool's own child process: turns and /healthz answer meanwhile,
and SIGTERM stops the server at once (the child is killed) instead of waiting for the parse."""

from __future__ import annotations

import signal
import sqlite3
import threading
import time
from pathlib import Path

import httpx
import pytest
from live_server import LiveServer
from sse_client import parse_sse

from graphagents.testing.hostile import descendants


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
def test_sigterm_kills_a_running_upload_and_turns_run_meanwhile(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHAGENTS_UPLOAD_SECONDS", "900")
    monkeypatch.setenv("GRAPHAGENTS_UPLOAD_CPU_SECONDS", "900")
    slow = tmp_path / "slow.sqlite"
    with sqlite3.connect(slow) as conn:  # no plan to refuse: it just counts for a very long time
        conn.execute("CREATE VIEW slow AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
                     "WHERE x < 100000000000) SELECT count(*) AS n FROM c")
    server = LiveServer(tmp_path / "data").start()
    assert server.proc is not None
    before = descendants(server.proc.pid)
    answers: list[httpx.Response | BaseException] = []

    def send_upload() -> None:
        try:
            answers.append(httpx.post(f"{server.url}/api/agents/tableqa/uploads", timeout=600,
                                      files={"file": ("slow.sqlite", slow.read_bytes())}))
        except BaseException as exc:
            answers.append(exc)

    thread = threading.Thread(target=send_upload)
    try:
        thread.start()
        readers: set[int] = set()
        for _ in range(600):  # until the fork server has forked the reader
            readers = {p for p in descendants(server.proc.pid) - before if not descendants(p)}
            if readers and len(descendants(server.proc.pid)) >= 2:
                break
            time.sleep(0.1)
        assert readers, "no reader process started"
        # the upload holds a reader of its own: the server and a turn answer meanwhile
        assert httpx.get(f"{server.url}/healthz", timeout=30).status_code == 200
        sid = httpx.post(f"{server.url}/api/agents/example/sessions", json={}, timeout=30).json()["session_id"]
        res = httpx.post(f"{server.url}/api/agents/example/sessions/{sid}/messages", json={"text": "hi"}, timeout=60)
        assert parse_sse(res.text)[-1][1]["text"] == "What is your name?"
        assert not answers and thread.is_alive()  # the upload is still being read

        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(120)  # the parse would run for 900 s: the server stopped without waiting for it
        thread.join(60)
        assert not thread.is_alive() and answers
        answer = answers[0]
        if isinstance(answer, httpx.Response):
            assert answer.status_code == 503 and "shutting down" in answer.json()["error"]
        for _ in range(100):
            if not any(_alive(p) for p in readers):
                break
            time.sleep(0.1)
        assert not any(_alive(p) for p in readers)
    finally:
        server.kill()
