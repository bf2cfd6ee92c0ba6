"""Chaos: kill -9 the server at random moments while scripted customers talk to it, restart it, go on.

Each customer is a slotfill conversation with its own phone number and transfer limits. A customer
whose request died with the server does what a careful client does: once the server is back it
reads the session; if the state moved, the message was taken, otherwise it sends it again. Every
session must end with exactly the slots its customer meant, on SQLite and on Postgres.
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from reliability_servers import Server
from sse_client import parse_sse

from graphagents.agents.slotfill.generated import account_opening


class Customer(threading.Thread):
    def __init__(self, base: str, i: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.base, self.i, self.stop = base, i, stop
        self.turns, self.expected = account_opening(i, phone_base=5100)
        self.sid = ""
        self.retries = 0
        self.error: str | None = None

    def _wait_for_server(self) -> None:
        while not self.stop.is_set():
            try:
                if httpx.get(f"{self.base}/readyz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)

    def _state(self) -> dict[str, Any]:
        while True:
            self._wait_for_server()
            try:
                res = httpx.get(f"{self.base}/api/agents/slotfill/sessions/{self.sid}", timeout=30)
                res.raise_for_status()
                return dict(res.json()["state"])
            except httpx.HTTPError:
                continue

    def _create(self) -> None:
        while True:
            self._wait_for_server()
            try:
                res = httpx.post(f"{self.base}/api/agents/slotfill/sessions", json={"session_id": self.sid},
                                 timeout=30)
                assert res.status_code in (201, 409), res.text  # 409: created before the server died
                return
            except httpx.HTTPError:
                continue

    def run(self) -> None:
        try:
            self.sid = f"chaos-{self.i}"
            self._create()
            before = self._state()
            k = 0
            while k < len(self.turns) and not self.stop.is_set():
                try:
                    res = httpx.post(f"{self.base}/api/agents/slotfill/sessions/{self.sid}/messages",
                                     json={"text": self.turns[k]}, timeout=60)
                    frames = parse_sse(res.text) if res.status_code == 200 else []
                    if frames and frames[-1][0] == "final" and not any(kind == "error" for kind, _ in frames):
                        before, k = frames[-1][1]["state"], k + 1
                        continue
                    if res.status_code in (409, 429, 503):
                        time.sleep(float(res.headers.get("retry-after", "1")))
                        continue
                except httpx.HTTPError:
                    pass
                # The server died (or the stream broke) under this message: was it taken?
                self.retries += 1
                now = self._state()
                if now != before:
                    before, k = now, k + 1
        except Exception as exc:  # reported by the test
            self.error = f"{type(exc).__name__}: {exc}"


def run_chaos(tmp_path: Path, env: dict[str, str], customers: int, kills: int, seed: int) -> None:
    rng = random.Random(seed)
    server = Server(tmp_path, env=env).start()
    stop = threading.Event()
    people = [Customer(server.url, i, stop) for i in range(customers)]
    try:
        for person in people:
            person.start()
        for _ in range(kills):
            time.sleep(rng.uniform(0.3, 2.0))
            server.kill()
            server.start()
        deadline = time.monotonic() + 90
        for person in people:
            person.join(max(deadline - time.monotonic(), 0.1))
        assert not any(p.is_alive() for p in people), "customers did not finish in time"
        assert [p.error for p in people if p.error] == []
        wrong = {}
        for person in people:
            res = httpx.get(f"{server.url}/api/agents/slotfill/sessions/{person.sid}", timeout=30)
            slots = res.json()["state"]["slots"]
            if slots != person.expected:
                wrong[person.sid] = {k: (slots.get(k), v) for k, v in person.expected.items() if slots.get(k) != v}
        assert wrong == {}
        print(f"{kills} kills, {sum(p.retries for p in people)} messages cut off and reconciled")
    finally:
        stop.set()
        server.kill()


@pytest.mark.slow
def test_chaos_kill_9_sqlite(tmp_path: Path) -> None:
    run_chaos(tmp_path, {}, customers=6, kills=3, seed=8)


@pytest.mark.slow
def test_chaos_kill_9_postgres(tmp_path: Path, pg_database: str) -> None:
    run_chaos(tmp_path, {"GRAPHAGENTS_CHECKPOINT_URL": pg_database}, customers=6, kills=3, seed=9)
