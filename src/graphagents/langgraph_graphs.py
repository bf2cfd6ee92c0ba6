"""Every agent's graph for LangGraph's own tooling (``langgraph dev``, LangGraph Studio,
agent-chat-ui), named in the repository's ``langgraph.json``.

Each name is the registered agent's compiled graph, built when this module is imported, with the
options ``GRAPHAGENTS_LANGGRAPH_OPTIONS`` gives it (JSON, by agent; langgraph.json gives tableqa the
example tables) and the configured model (``GRAPHAGENTS_LLM``; offline by default); ``build_graph``
builds one for any registered agent (plugins included). The LangGraph server brings its own
persistence, so these graphs are compiled without a checkpointer; graphagents' own sessions, locks
and server are not involved. Input is the agent's state (slotfill: ``{"user_input": "안녕하세요"}``);
a question the agent asks is an ``interrupt`` that LangGraph's UI answers with ``Command(resume=...)``.
"""

from __future__ import annotations

from typing import Any

from ._options import validate_options
from .llm import load_chat_model
from .registry import BuildContext, get_spec
from .settings import get_settings

__all__ = ["build_graph", "rag", "slotfill", "supervisor", "tableqa", "text2sql"]


def build_graph(name: str) -> Any:
    """The compiled graph of agent ``name`` without a checkpointer (the LangGraph server's own persists)."""
    from .runtime import _embedder_factory

    spec = get_spec(name)
    settings = get_settings()
    options, typed = validate_options(spec.options_model, settings.langgraph_options.get(name, {}), agent=name,
                                      session=False)
    models = {role: load_chat_model(m) for role, m in settings.models.items()}
    ctx = BuildContext(load_chat_model(settings.llm), None, settings, options, agent=name, typed_options=typed,
                       models=models, embedder_factory=_embedder_factory(None, settings))
    return spec.build(ctx)


# The LangGraph server takes each name from this module's namespace (``module.__dict__``, not
# ``getattr``). A function there is a graph factory that it calls on every run, inside its event loop,
# where building an agent (text2sql's demo database, supervisor's datasets: seconds) would stall
# every other run (``langgraph dev`` refuses it: BlockingError). So each graph is built once, here,
# when the server imports this module at start-up (in a worker thread), and shared by the runs, as
# graphagents' own server shares one graph per agent between its sessions.
rag = build_graph("rag")
slotfill = build_graph("slotfill")
supervisor = build_graph("supervisor")
tableqa = build_graph("tableqa")
text2sql = build_graph("text2sql")
