"""Every agent's graph for LangGraph's own tooling (``langgraph dev``, LangGraph Studio,
agent-chat-ui), named in the repository's ``langgraph.json``.

Each name is a module-level factory that builds the registered agent with its default options and
the configured model (``GRAPHAGENTS_LLM``; offline by default). The LangGraph server brings its own
persistence, so these graphs are compiled without a checkpointer; graphagents' own sessions, locks
and server are not involved. Input is the agent's state (slotfill: ``{"user_input": "안녕하세요"}``);
a question the agent asks is an ``interrupt`` that LangGraph's UI answers with ``Command(resume=...)``.
"""

from __future__ import annotations

from typing import Any

from ._options import validate_options
from .llm import load_chat_model
from .registry import BuildContext, all_specs, get_spec
from .settings import get_settings

__all__ = ["build_graph", "rag", "slotfill", "supervisor", "tableqa", "text2sql"]


def build_graph(name: str) -> Any:
    """The compiled graph of agent ``name`` without a checkpointer (the LangGraph server's own persists)."""
    from .runtime import _embedder_factory

    spec = get_spec(name)
    settings = get_settings()
    options, typed = validate_options(spec.options_model, {}, agent=name, session=False)
    models = {role: load_chat_model(m) for role, m in settings.models.items()}
    ctx = BuildContext(load_chat_model(settings.llm), None, settings, options, agent=name, typed_options=typed,
                       models=models, embedder_factory=_embedder_factory(None, settings))
    return spec.build(ctx)


def rag() -> Any:
    return build_graph("rag")


def slotfill() -> Any:
    return build_graph("slotfill")


def supervisor() -> Any:
    return build_graph("supervisor")


def tableqa() -> Any:
    return build_graph("tableqa")


def text2sql() -> Any:
    return build_graph("text2sql")


def __getattr__(name: str) -> Any:
    """Agents registered later (plugins, new built-ins) get a factory by their name too."""
    if not name.startswith("_") and name in all_specs():
        return lambda: build_graph(name)
    raise AttributeError(name)
