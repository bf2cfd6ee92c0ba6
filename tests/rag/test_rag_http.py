"""The rag agent over HTTP: a session with per-session options, a turn as SSE with decision events,
the final state the page renders, citation artifacts, and the caller's profile route."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "server"))
from sse_client import parse_sse  # noqa: E402

KEYS = {"intent", "dynamic_k", "emergency", "profile", "profile_summary", "token_plan", "retrieved_docs",
        "refine_iteration_logs", "cache_hit", "cache_similarity_score", "answer"}


async def test_a_turn_over_http(rag_options: dict[str, Any], mini_store: Any) -> None:
    from graphagents.server import create_app
    from graphagents.settings import get_settings

    app = create_app(get_settings(), agent_options={"rag": rag_options})
    headers = {"X-User-Id": "http1"}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test", timeout=120) as c:
        bad = await c.post("/api/agents/rag/sessions", json={"options": {"feature_flags": {"nope": 1}}},
                           headers=headers)
        assert bad.status_code == 422
        options = {"feature_flags": {"max_refine_iterations": 1}}
        res = await c.post("/api/agents/rag/sessions", json={"options": options}, headers=headers)
        assert res.status_code == 201, res.text
        sid = res.json()["session_id"]
        text = "65세 남성이고 당뇨가 있어요. 제2형 당뇨병의 증상은 무엇인가요?"
        res = await c.post(f"/api/agents/rag/sessions/{sid}/messages", json={"text": text}, headers=headers)
        events = parse_sse(res.text)
        final = [data for kind, data in events if kind == "final"][-1]
        assert set(final["state"]) == KEYS
        assert final["state"]["profile"]["demographics"]["age"] == 65
        assert any(kind == "decision" and data.get("kind") == "refine" for kind, data in events)
        assert [a["kind"] for a in final["artifacts"]] and {a["kind"] for a in final["artifacts"]} == {"citation"}
        profile = (await c.get("/api/agents/rag/profile", headers=headers)).json()
        assert profile["profile"]["conditions"] == ["diabetes"] and "65세" in profile["summary"]
        # a rag chat can be reopened: its transcript has the question and the answer (rag's input key
        # is user_text, read through AgentSpec.user_text) and the list names it by the question
        transcript = (await c.get(f"/api/agents/rag/sessions/{sid}/transcript", headers=headers)).json()
        assert [m["role"] for m in transcript["messages"]] == ["user", "agent"]
        assert transcript["messages"][0]["text"] == text and transcript["messages"][1]["text"] == final["text"]
        listed = (await c.get("/api/agents/rag/sessions", headers=headers)).json()["sessions"]
        assert [s["title"] for s in listed] == [text[:80]]
