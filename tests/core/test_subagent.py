"""subagent(): a registered agent as a typed handle for another agent, through its own options."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from graphagents.artifacts import SqlArtifact, TableArtifact
from graphagents.errors import ConfigError
from graphagents.registry import AgentSpec, BuildContext, register, subagent, unregister
from graphagents.settings import get_settings


def test_options_are_validated_by_the_sub_agents_model_and_the_graph_has_no_checkpointer() -> None:
    parent = BuildContext(None, None, get_settings(), {}, agent="parent")
    with pytest.raises(ConfigError, match="'text2sql' has no option 'nope'"):
        subagent("text2sql", parent, llm=None, nope=1)
    handle = subagent("text2sql", parent, llm=None, max_calls=4)
    graph: Any = handle.graph
    assert graph.checkpointer is None


def test_invoke_returns_what_a_user_of_the_sub_agent_sees() -> None:
    """The reply, the public state (not the raw state), the typed artifacts and the status."""
    parent = BuildContext(None, None, get_settings(), {}, agent="parent")
    result = subagent("text2sql", parent, llm=None, max_calls=4).invoke("How many customers are there?")
    assert result.status == "submitted"
    sql, table = result.first(SqlArtifact), result.first(TableArtifact)
    assert sql is not None and "count" in sql.sql.lower()
    assert table is not None and table.rows and isinstance(table.rows[0][0], int)
    assert result.reply and str(table.rows[0][0]) in result.reply.replace(",", "")
    assert "react" not in result.state and result.state["status"] == "submitted"  # public_state, not raw keys


class EchoState(TypedDict, total=False):
    said: str
    reply: str


def test_the_handle_runs_make_input_with_the_callers_user() -> None:
    seen: list[dict[str, Any]] = []

    def build(ctx: BuildContext) -> Any:
        from langgraph.graph import END, START, StateGraph

        def node(state: EchoState) -> dict[str, Any]:
            return {"reply": f"echo {state['said']}"}

        g: StateGraph[Any] = StateGraph(EchoState)
        g.add_node("node", node)
        g.add_edge(START, "node")
        g.add_edge("node", END)
        return g.compile()

    def make_input(text: str, session: Any) -> dict[str, Any]:
        seen.append({"text": text, "user": session.user_id})
        return {"said": text.upper()}

    register(AgentSpec(name="echo_sub", title="Echo", description="echo", build=build, make_input=make_input,
                       public_state=lambda values: {"said": values.get("said")}))
    try:
        parent = BuildContext(None, None, get_settings(), {}, agent="parent")
        result = subagent("echo_sub", parent, llm=None).invoke("hi", user_id="u-7")
    finally:
        unregister("echo_sub")
    assert seen == [{"text": "hi", "user": "u-7"}]
    assert result.reply == "echo HI" and result.state == {"said": "HI"} and result.status == "done"
    assert result.artifacts == ()
