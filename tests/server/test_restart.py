from __future__ import annotations

from pathlib import Path

import httpx
from live_server import LiveServer
from sse_client import parse_sse


def send(base: str, sid: str, text: str) -> str:
    res = httpx.post(f"{base}/api/agents/example/sessions/{sid}/messages", json={"text": text}, timeout=30)
    res.raise_for_status()
    return str(parse_sse(res.text)[-1][1]["text"])


def test_session_survives_a_killed_server(tmp_path: Path) -> None:
    server = LiveServer(tmp_path).start()
    try:
        sid = httpx.post(f"{server.url}/api/agents/example/sessions", json={}).json()["session_id"]
        assert send(server.url, sid, "hi") == "What is your name?"
        assert send(server.url, sid, "Ada") == "Hello Ada! Favourite colour?"
    finally:
        server.kill()
    with LiveServer(tmp_path, port=server.port) as again:
        state = httpx.get(f"{again.url}/api/agents/example/sessions/{sid}").json()
        assert state["pending"] == "Hello Ada! Favourite colour?"
        assert [q["text"] for q in state["questions"]] == ["Hello Ada! Favourite colour?"]
        assert state["state"]["name"] == "Ada"
        assert send(again.url, sid, "red") == "Ada likes red."
