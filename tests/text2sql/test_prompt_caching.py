"""The text2sql model step asks providers that can cache its long system prompt to do so."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import SystemMessage

from graphagents.agents.text2sql.demo import demo_sqlite_path
from graphagents.agents.text2sql.spec import SPEC
from graphagents.llm import ScriptedChatModel, render_response
from graphagents.runtime import Agent
from graphagents.settings import get_settings

SQL = "SELECT COUNT(*) AS n FROM customers"


class ChatAnthropic(ScriptedChatModel):
    """A scripted model that the caching layer takes for Anthropic's (matched by class name)."""


def test_anthropic_models_get_cache_control_on_the_system_prompt() -> None:
    steps = [("search_tables", {"query": "고객"}), ("explain", {"sql": SQL}), ("execute_sql_preview", {"sql": SQL}),
             ("submit_sql", {"sql": SQL})]
    llm = ChatAnthropic(responses=[render_response(reasoning="r", user_facing="u", tool=t, parameters=p)
                                   for t, p in steps])
    url = f"sqlite:///{demo_sqlite_path(get_settings().data_dir)}"
    reply = Agent(SPEC, llm=llm, checkpoint_url="memory", db=url, cache=False).session().send("고객 수")
    assert reply.state["status"] == "submitted"
    assert len(llm.prompts) == 4
    for prompt in llm.prompts:
        system = [m for m in prompt if isinstance(m, SystemMessage)]
        assert system, "the system prompt is sent on every step"
        blocks: Any = system[-1].content
        assert isinstance(blocks, list) and blocks[-1]["cache_control"] == {"type": "ephemeral"}
        assert "<tools>" in blocks[-1]["text"]


def test_other_models_get_the_plain_system_prompt() -> None:
    llm = ScriptedChatModel(responses=[render_response(user_facing="SQL로 답할 수 없는 질문이에요.")])
    url = f"sqlite:///{demo_sqlite_path(get_settings().data_dir)}"
    Agent(SPEC, llm=llm, checkpoint_url="memory", db=url, cache=False).session().send("안녕")
    system = [m for m in llm.prompts[0] if isinstance(m, SystemMessage)]
    assert isinstance(system[-1].content, str)
