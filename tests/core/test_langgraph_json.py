"""langgraph.json at the repository root: LangGraph's own tooling (``langgraph dev``, Studio,
agent-chat-ui) loads every agent's graph from it. Each entry must import and build a compiled graph
without a checkpointer (the LangGraph server brings its own), and every built-in agent is listed."""

from __future__ import annotations

import importlib
import json
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from langgraph.graph.state import CompiledStateGraph

ROOT = Path(__file__).resolve().parents[2]
CONFIG = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))


def test_every_built_in_agent_is_listed() -> None:
    built_in = {ep.name for ep in entry_points(group="graphagents.agents")}
    missing = built_in - set(CONFIG["graphs"])
    assert not missing, f"add to langgraph.json: {sorted(missing)} -> graphagents.langgraph_graphs:<name>"
    assert CONFIG["dependencies"] == ["."]


@pytest.mark.parametrize("name", sorted(CONFIG["graphs"]))
def test_each_entry_imports_and_builds_a_graph(name: str) -> None:
    module_name, _, attr = CONFIG["graphs"][name].partition(":")
    factory = getattr(importlib.import_module(module_name), attr)
    graph = factory()
    assert isinstance(graph, CompiledStateGraph)
    assert graph.checkpointer is None  # the LangGraph server persists threads itself
    assert graph.get_graph().nodes  # it draws: Studio shows it


def test_the_slotfill_graph_runs_to_its_first_question_under_langgraph_persistence() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from graphagents.langgraph_graphs import slotfill

    graph = slotfill().copy({"checkpointer": InMemorySaver()})  # what the LangGraph server does
    config = {"configurable": {"thread_id": "lg-1"}}
    out = graph.invoke({"user_input": "안녕하세요", "session_id": "lg-1"}, config)
    assert out["__interrupt__"] and "입출금통장" in out["__interrupt__"][0].value["text"]
