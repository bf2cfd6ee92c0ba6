"""A tiny two-question agent used to test the core before and beside the real agents."""

from __future__ import annotations

from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from graphagents import AgentSpec, BuildContext, DecisionEvent, StateUpdateEvent, TokenEvent, emit


class State(TypedDict, total=False):
    user_input: str
    name: str
    color: str
    reply: str
    loops: int


def ask_name(state: State) -> dict[str, Any]:
    name = state.get("user_input", "").strip()
    if not name.startswith("name:"):
        name = interrupt({"text": "What is your name?"})
    else:
        name = name.removeprefix("name:")
    emit(StateUpdateEvent({"name": name}))
    return {"name": name}


def ask_color(state: State) -> dict[str, Any]:
    color = interrupt(f"Hello {state['name']}! Favourite colour?")
    emit(DecisionEvent("route", "finish", "colour received"))
    return {"color": color}


def finish(state: State) -> dict[str, Any]:
    reply = f"{state['name']} likes {state['color']}."
    for word in reply.split(" "):
        emit(TokenEvent(word + " "))
    return {"reply": reply}


def spin(state: State) -> dict[str, Any]:
    return {"loops": state.get("loops", 0) + 1}


def build(ctx: BuildContext) -> Any:
    g = StateGraph(State)
    if ctx.options.get("loop"):
        g.add_node("spin", spin)
        g.add_edge(START, "spin")
        g.add_edge("spin", "spin")
    else:
        g.add_node("ask_name", ask_name)
        g.add_node("ask_color", ask_color)
        g.add_node("finish", finish)
        g.add_edge(START, "ask_name")
        g.add_edge("ask_name", "ask_color")
        g.add_edge("ask_color", "finish")
        g.add_edge("finish", END)
    return g.compile(checkpointer=ctx.checkpointer)


SPEC = AgentSpec(
    name="example",
    title="Example",
    description="Asks a name and a colour.",
    build=build,
    samples=[["hi", "Ada", "blue"]],
    options_help={"loop": "spin forever (to test the step cap)"},
    step_cap=20,
    chat_fields=("name",),
)
