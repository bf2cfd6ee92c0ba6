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


def test_every_built_in_agent_is_listed_with_its_chat_form() -> None:
    built_in = {ep.name for ep in entry_points(group="graphagents.agents")}
    missing = (built_in | {f"{name}_chat" for name in built_in}) - set(CONFIG["graphs"])
    assert not missing, f"add to langgraph.json: {sorted(missing)} -> graphagents.langgraph_graphs:<name>"
    assert CONFIG["dependencies"] == ["."]


@pytest.mark.parametrize("name", sorted(CONFIG["graphs"]))
def test_each_entry_is_a_graph_built_at_import(name: str) -> None:
    module_name, _, attr = CONFIG["graphs"][name].partition(":")
    # the LangGraph server reads the module's namespace; a function there would be a factory it calls
    # on every run inside its event loop (building text2sql or supervisor blocks it: BlockingError)
    graph = vars(importlib.import_module(module_name))[attr]
    assert isinstance(graph, CompiledStateGraph)
    assert graph.checkpointer is None  # the LangGraph server persists threads itself
    assert graph.get_graph().nodes  # it draws: Studio shows it


def test_the_slotfill_graph_runs_to_its_first_question_under_langgraph_persistence() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from graphagents.langgraph_graphs import slotfill

    graph = slotfill.copy(update={"checkpointer": InMemorySaver()})  # what the LangGraph server does
    config = {"configurable": {"thread_id": "lg-1"}}
    out = graph.invoke({"user_input": "안녕하세요", "session_id": "lg-1"}, config)
    assert out["__interrupt__"] and "입출금통장" in out["__interrupt__"][0].value["text"]


def _doc_ids(out: dict) -> list[str]:
    return [str(d.get("id")) for d in out.get("retrieved_docs") or []]


def test_a_rag_thread_answers_each_question_from_its_own_documents() -> None:
    """LangGraph's server sends only the new question: the graph itself must drop the last question's
    documents and answer (it accumulates ``retrieved_docs`` through an add reducer)."""
    from langgraph.checkpoint.memory import InMemorySaver

    from graphagents.langgraph_graphs import rag

    first, second = "고혈압 약은 언제 먹나요?", "당뇨병 초기 증상은?"
    graph = rag.copy(update={"checkpointer": InMemorySaver()})
    alone = graph.invoke({"user_text": second, "user_id": "lg-fresh"}, {"configurable": {"thread_id": "fresh"}})
    assert _doc_ids(alone)

    thread = {"configurable": {"thread_id": "lg-rag"}}
    one = graph.invoke({"user_text": first, "user_id": "lg-user"}, thread)
    two = graph.invoke({"user_text": second, "user_id": "lg-user"}, thread)
    assert _doc_ids(two) == _doc_ids(alone), "the first question's documents leaked into the second"
    assert two["reply"] != one["reply"]
    again = graph.invoke({"user_text": first, "user_id": "lg-user"}, thread)  # the semantic cache answers
    assert again["cache_hit"] is True
    assert _doc_ids(again) == _doc_ids(one)  # replaced, not appended to the second question's


def test_a_chat_graph_carries_a_slotfill_conversation_per_thread() -> None:
    """``<agent>_chat``: LangGraph's ``messages`` convention (agent-chat-ui). Each run is one turn of
    the graphagents session named after the thread: a resume when the agent waits for an answer."""
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from graphagents.langgraph_graphs import slotfill_chat

    graph = slotfill_chat.copy(update={"checkpointer": InMemorySaver()})
    one, two = ({"configurable": {"thread_id": f"lg-chat-{i}"}} for i in (1, 2))
    out = graph.invoke({"messages": [HumanMessage("계좌 개설하고 싶어요")]}, one)
    assert isinstance(out["messages"][-1], AIMessage) and "이 정보가 맞으신가요" in out["messages"][-1].content
    assert out["state"]["stage"] == "confirm_basic_info"
    graph.invoke({"messages": [HumanMessage("계좌 개설하고 싶어요")]}, two)  # another thread, its own session
    out = graph.invoke({"messages": [{"role": "user", "content": "네 맞아요"}]}, one)
    assert [m.type for m in out["messages"]] == ["human", "ai", "human", "ai"]
    assert out["state"]["stage"] == "ask_lifelong_account"
    out = graph.invoke({"messages": [HumanMessage("아니요, 번호가 010-9999-8888로 바뀌었어요")]}, one)
    assert out["state"]["slots"]["customer_phone"] == "010-9999-8888"
    assert graph.get_state(two).values["state"]["stage"] == "confirm_basic_info"


def test_a_chat_graph_refuses_a_run_without_a_human_message() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from graphagents.langgraph_graphs import tableqa_chat

    graph = tableqa_chat.copy(update={"checkpointer": InMemorySaver()})
    with pytest.raises(ValueError, match="send a human message"):
        graph.invoke({"messages": []}, {"configurable": {"thread_id": "lg-empty"}})


def test_chat_threads_do_not_share_a_health_profile() -> None:
    """Without a signed-in user each thread is its own user: rag's profile of one thread (conditions,
    medicines) never reaches another thread's answers; the server's signed-in user keeps hers across."""
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from graphagents.langgraph_graphs import rag_chat

    graph = rag_chat.copy(update={"checkpointer": InMemorySaver()})

    def profile(thread: str, text: str, **configurable: str) -> dict:
        config = {"configurable": {"thread_id": thread, **configurable}}
        return dict(graph.invoke({"messages": [HumanMessage(text)]}, config)["state"]["profile"])

    told = profile("lg-p1", "저는 당뇨병이 있고 메트포르민을 먹어요. 운동은 어떻게 해야 하나요?")
    assert told["conditions"] == ["diabetes"]
    assert profile("lg-p2", "운동은 어떻게 해야 하나요?")["conditions"] == []
    profile("lg-p3", "저는 당뇨병이 있어요", langgraph_auth_user_id="kim")
    assert profile("lg-p4", "운동은 어떻게 해야 하나요?", langgraph_auth_user_id="kim")["conditions"] == ["diabetes"]
