"""Issue 24, defects 8 and 11 for tableqa: HTTP 500 on every call -> the offline brain answers, with a
``degraded`` event; the provider's error text reaches neither events, tool results nor prompts."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

import graphagents as ga
from graphagents.events import DegradedEvent, FinalEvent
from graphagents.sandbox import get_store
from graphagents.testing.openai_server import Reply

from .conftest import fast_settings

PLAYERS = pd.DataFrame({"Player": ["Ann Lee", "Bo Kim", "Cy Park"], "Team": ["Reds", "Blues", "Reds"],
                        "Points": [10, 25, 7]})
PROVIDER_TEXT = "upstream exploded: secret-request-id-4711"


def test_tableqa_falls_back_to_the_offline_brain_when_every_call_fails(openai_server: Any, tmp_path: Any) -> None:
    server = openai_server(lambda body: Reply(status=500, text=PROVIDER_TEXT))
    agent = ga.load("tableqa", server.model_spec, settings=fast_settings(tmp_path, llm_max_retries=0),
                    tables=[f"players={get_store().put(PLAYERS)}"])
    events = list(agent.session().stream("which player has the least points?"))
    final = events[-1]
    assert isinstance(final, FinalEvent)
    assert final.state.get("answer") == ["Cy Park"], final.text  # before: "The planner's output could not be used"
    degraded = [e for e in events if isinstance(e, DegradedEvent)]
    assert [(e.step, e.reason) for e in degraded] == [("planner", "http_error")]
    assert len(server.requests) == 1  # the rest of the turn is the brain's: the model is not asked again
    wire = json.dumps([e.to_dict() for e in events], ensure_ascii=False)
    assert PROVIDER_TEXT not in wire and "Error code" not in wire


def test_a_coder_failure_reaches_the_planner_without_provider_text(openai_server: Any, tmp_path: Any) -> None:
    plans = iter(["Thought: the lowest points.\nAction: Operate[sort by Points ascending, keep the first row]",
                  "Thought: done.\nAction: Finish[Cy Park]"])

    def script(body: dict[str, Any]) -> Reply | str:
        if body["messages"][0]["role"] == "system":  # the coder
            return Reply(status=500, text=PROVIDER_TEXT)
        return next(plans, "Thought: done.\nAction: Finish[Cy Park]")

    server = openai_server(script)
    agent = ga.load("tableqa", server.model_spec, settings=fast_settings(tmp_path, llm_max_retries=0),
                    tables=[f"players={get_store().put(PLAYERS)}"], plan_samples=1, code_samples=1)
    events = list(agent.session().stream("which player has the least points?"))
    assert any(isinstance(e, DegradedEvent) and e.step == "coder" for e in events)
    wire = json.dumps([e.to_dict() for e in events], ensure_ascii=False)
    prompts = json.dumps(server.requests, ensure_ascii=False)
    assert PROVIDER_TEXT not in wire and PROVIDER_TEXT not in prompts
    assert "Error code" not in wire and "Error code" not in prompts


def test_sampling_asks_once_with_n_choices(openai_server: Any, tmp_path: Any) -> None:
    """Issue 24, 12: N planner or coder samples were N identical requests; now one request with ``n``."""
    plans = ["Thought: the lowest points.\nAction: Operate[sort by Points ascending, keep the first row]",
             "Thought: done.\nAction: Finish[Cy Park]"]
    code = "```python\nnew_table = df_orig_1.sort_values('Points').head(1)\n```"

    def script(body: dict[str, Any]) -> Reply | str:
        if body["messages"][0]["role"] == "system":
            return Reply(choices=[code] * int(body.get("n") or 1))
        turn = plans[0] if "Observation 1" not in body["messages"][-1]["content"] else plans[1]
        return Reply(choices=[turn] * int(body.get("n") or 1))

    server = openai_server(script)
    agent = ga.load("tableqa", server.model_spec, settings=fast_settings(tmp_path),
                    tables=[f"players={get_store().put(PLAYERS)}"], plan_samples=3, code_samples=2)
    reply = agent.session().send("which player has the least points?")
    assert reply.state.get("answer") == ["Cy Park"], reply.text
    planner = [b for b in server.requests if b["messages"][0]["role"] != "system"]
    coder = [b for b in server.requests if b["messages"][0]["role"] == "system"]
    assert [b.get("n") for b in planner] == [3, 3] and [b.get("n") for b in coder] == [2]
    assert reply.usage.model_calls == 3  # two planner turns and one coder turn, not 3 + 3 + 2


def test_a_single_planner_turn_streams(openai_server: Any, tmp_path: Any) -> None:
    """Issue 24, defect 9: tableqa's planner turn (its Finish answer included) streams as tokens."""
    turn = "Thought: Cy Park has the fewest points.\nAction: Finish[Cy Park]"
    server = openai_server(lambda body: Reply(text=turn, chunk_chars=5))
    agent = ga.load("tableqa", server.model_spec, settings=fast_settings(tmp_path),
                    tables=[f"players={get_store().put(PLAYERS)}"], plan_samples=1)
    events = list(agent.session().stream("which player has the least points?"))
    from graphagents.events import TokenEvent

    tokens = [e.text for e in events if isinstance(e, TokenEvent) and e.section == "reasoning"]
    assert len(tokens) > 3 and "".join(tokens) == turn
    assert server.requests[0]["stream"] is True
    final = events[-1]
    assert isinstance(final, FinalEvent) and final.state.get("answer") == ["Cy Park"]


def test_the_planner_uses_the_providers_tool_calling(openai_server: Any, tmp_path: Any, monkeypatch: Any) -> None:
    """Issue 24: tool calling where the provider has it: the actions go as tools and a tool call is
    the planner's action (the text protocol stays for offline and scripted models)."""
    from graphagents.settings import get_settings

    calls = iter([Reply(text="the lowest points first.",
                        tool_calls=[{"name": "Calculate", "arguments": {"input": "7 + 0"}}]),
                  Reply(text="", tool_calls=[{"name": "Finish", "arguments": {"input": "Cy Park"}}])])
    server = openai_server(lambda body: next(calls))
    monkeypatch.setenv("GRAPHAGENTS_LLM_STRUCTURED_OUTPUT", "on")
    get_settings.cache_clear()
    try:
        agent = ga.load("tableqa", server.model_spec, settings=fast_settings(tmp_path),
                        tables=[f"players={get_store().put(PLAYERS)}"], plan_samples=1)
        reply = agent.session().send("which player has the least points?")
    finally:
        monkeypatch.delenv("GRAPHAGENTS_LLM_STRUCTURED_OUTPUT")
        get_settings.cache_clear()
    assert reply.state.get("answer") == ["Cy Park"], reply.text
    assert [s["action"] for s in reply.state["steps"]] == ["Calculate", "Finish"]
    tools = [t["function"]["name"] for t in server.requests[0]["tools"]]
    assert tools == ["Retrieve", "Operate", "Calculate", "Finish"]
