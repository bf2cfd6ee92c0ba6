"""Every agent's graph for LangGraph's own tooling (``langgraph dev``, LangGraph Studio,
agent-chat-ui), named in the repository's ``langgraph.json``, in two forms:

- ``<agent>``: the agent's own compiled graph, compiled without a checkpointer (the LangGraph server
  persists threads itself). Studio draws its nodes and steps through them. Input is the agent's state
  (what its ``make_input`` makes, e.g. ``{"user_input": "안녕하세요"}``); a question the agent asks is
  an ``interrupt`` that the UI answers with ``Command(resume=...)``.
- ``<agent>_chat``: the agent behind LangGraph's chat convention, for chat clients (agent-chat-ui,
  ``messages`` in and out): each run takes the last human message, runs one turn of a graphagents
  session named after the thread (its state in graphagents' own checkpointer, ``CHECKPOINT_URL``:
  resume or new run decided as the server does) and adds the reply as an AI message, with the
  agent's public state under ``state``.

Both are made for every agent the registry has (built-in or installed from another package, by its
entry point), when this module is imported, with the options ``GRAPHAGENTS_LANGGRAPH_OPTIONS`` gives
it (JSON, by agent; the repository's langgraph.json gives some agents example data) and the
configured model (``GRAPHAGENTS_LLM``; offline by default). ``build_graph`` and ``chat_graph``
build one on demand.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from ._options import validate_options
from .llm import load_chat_model
from .registry import BuildContext, all_specs, get_spec
from .settings import get_settings


def build_graph(name: str) -> Any:
    """The compiled graph of agent ``name`` without a checkpointer (the LangGraph server's own persists)."""
    from .runtime import _embedder_factory

    spec = get_spec(name)
    settings = get_settings()
    options, typed = validate_options(spec.options_model, settings.langgraph_options.get(name, {}), agent=name,
                                      session=False)
    models = {role: load_chat_model(m, settings=settings) for role, m in settings.models.items()}
    llm = load_chat_model(settings.llm, settings=settings)
    ctx = BuildContext(llm, None, settings, options, agent=name, typed_options=typed,
                       models=models, embedder_factory=_embedder_factory(None, settings))
    return spec.build(ctx)


class ChatState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    state: dict[str, Any]  # the agent's public state after the last turn (what graphagents' web page shows)


def _text_of(message: AnyMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(part if isinstance(part, str) else str(part.get("text", "")) for part in content
                   if isinstance(part, str) or part.get("type") == "text")


def chat_graph(name: str) -> Any:
    """Agent ``name`` as a one-node ``messages`` graph: a turn of the graphagents session named after
    the LangGraph thread per run (see the module's docstring)."""
    from .runtime import load

    settings = get_settings()
    agent = load(name, settings=settings, **settings.langgraph_options.get(name, {}))

    def turn(state: ChatState, config: RunnableConfig) -> dict[str, Any]:
        asked = next((m for m in reversed(state.get("messages") or []) if isinstance(m, HumanMessage)), None)
        if asked is None:
            raise ValueError(f"{name}_chat: send a human message (messages: [{{type: human, content: ...}}])")
        configurable = config.get("configurable") or {}
        thread = str(configurable.get("thread_id") or "")
        if not thread:
            raise ValueError(f"{name}_chat: run it on a thread (its session is named after the thread)")
        # whose data (a health profile, an application): the LangGraph server's signed-in
        # user, else the thread alone; never one "anonymous" shared by every thread of the server
        user = str(configurable.get("langgraph_auth_user_id") or f"thread:{thread}")
        session = agent.session(thread, user_id=user)
        reply = session.send(_text_of(asked))  # sync: the server runs it in a worker thread
        return {"messages": [AIMessage(reply.text)], "state": reply.state}

    g: StateGraph[Any] = StateGraph(ChatState)
    g.add_node("turn", turn)
    g.add_edge(START, "turn")
    g.add_edge("turn", END)
    return g.compile(name=f"{name}_chat")


# The LangGraph server takes each name from this module's namespace (``module.__dict__``, not
# ``getattr``). A function there is a graph factory that it calls on every run, inside its event loop,
# where building an agent (a demo database, datasets: seconds) would stall every other run
# (``langgraph dev`` refuses it: BlockingError). So each graph is built once, here, when the server
# imports this module at start-up (in a worker thread), and shared by the runs, as graphagents' own
# server shares one graph per agent between its sessions.
def _build_all() -> list[str]:
    names: list[str] = []
    for name in sorted(all_specs()):
        if not name.isidentifier():
            continue  # langgraph.json names a graph as module:attribute
        globals()[name] = build_graph(name)
        globals()[f"{name}_chat"] = chat_graph(name)
        names += [name, f"{name}_chat"]
    return names


__all__ = ["ChatState", "build_graph", "chat_graph", *_build_all()]
