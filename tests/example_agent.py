"""Two small agents that test the core before and beside the real agents.

``example`` asks a name, then a colour (sequential interrupts); its ``loop`` option spins to test
the step cap: ``guarded`` ends in a finish node through ``RemainingSteps``, ``raw`` hits LangGraph's
recursion limit (the runtime's last resort).

``trip`` is composite: a ``research`` subgraph that emits events, two parallel branches that each
ask the user a question (destination and dates), and an ``async def`` planning node that may call
a model (the ``planner`` role) before it writes the reply and typed artifacts.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt
from pydantic import BaseModel, ConfigDict, Field

from graphagents import (
    AgentSpec,
    BuildContext,
    ChartArtifact,
    CitationArtifact,
    DecisionEvent,
    StateUpdateEvent,
    StepState,
    TableArtifact,
    TokenEvent,
    ToolCallEvent,
    ToolResultEvent,
    add_step_cap_node,
    emit,
    finish_when_low,
)
from graphagents.testing import FunctionChatModel

# -- example: two sequential questions, and a loop for the step cap ------------------------------


class State(StepState, total=False):
    user_input: str
    name: str
    color: str
    reply: str
    loops: int
    trail: Annotated[list[str], operator.add]


def ask_name(state: State) -> dict[str, Any]:
    name = state.get("user_input", "").strip()
    if not name.startswith("name:"):
        name = interrupt({"text": "What is your name?"})
    else:
        name = name.removeprefix("name:")
    emit(StateUpdateEvent({"name": name}))
    return {"name": name, "trail": ["name"]}


def ask_color(state: State) -> dict[str, Any]:
    color = interrupt(f"Hello {state['name']}! Favourite colour?")
    emit(DecisionEvent("route", "finish", "colour received"))
    return {"color": color, "trail": ["color"]}


def finish(state: State) -> dict[str, Any]:
    if state.get("stop_reason"):
        return {"reply": f"Stopped after {state.get('loops', 0)} loops ({state['stop_reason']})."}
    reply = f"{state['name']} likes {state['color']}."
    for word in reply.split(" "):
        emit(TokenEvent(word + " "))
    return {"reply": reply}


def spin(state: State) -> dict[str, Any]:
    return {"loops": state.get("loops", 0) + 1, "trail": ["spin"]}


class ExampleOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    loop: Literal["off", "guarded", "raw"] = Field(
        "off", description="spin instead of asking: guarded = finish through RemainingSteps, raw = hit the cap"
    )


def build(ctx: BuildContext) -> Any:
    g = StateGraph(State)
    loop = ctx.options["loop"]
    if loop == "raw":
        g.add_node("spin", spin)
        g.add_edge(START, "spin")
        g.add_edge("spin", "spin")
    elif loop == "guarded":
        g.add_node("spin", spin)
        g.add_node("finish", finish)
        add_step_cap_node(g, finish="finish")
        g.add_edge(START, "spin")
        g.add_conditional_edges("spin", finish_when_low(lambda s: "spin"), ["spin", "step_cap"])
        g.add_edge("finish", END)
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
    options_model=ExampleOptions,
    step_cap=20,
    chat_fields=("name",),
)

# -- trip: subgraph + parallel questions + async node ----------------------------------------------


class ResearchState(TypedDict, total=False):
    user_input: str
    findings: Annotated[list[str], operator.add]
    research: str


class ResearchOutput(TypedDict, total=False):
    research: str


class TripState(StepState, total=False):
    user_input: str
    research: str
    destination: str
    dates: str
    notes: Annotated[list[str], operator.add]
    reply: str
    artifacts: list[dict[str, Any]]


class TripSessionOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    traveller: str = Field("guest", min_length=1, max_length=40, description="who travels (used in the plan)")
    budget: int = Field(100, ge=0, description="budget per day")


def EchoModel(reply: str = "A calm plan.") -> FunctionChatModel:  # noqa: N802 - reads like a class
    """A deterministic chat model that reports usage: one input token per prompt word, one output
    token per reply word."""

    def answer(messages: list[BaseMessage]) -> AIMessage:
        words_in = sum(len(str(m.content).split()) for m in messages)
        words_out = len(reply.split())
        return AIMessage(content=reply, usage_metadata={
            "input_tokens": words_in, "output_tokens": words_out, "total_tokens": words_in + words_out})

    return FunctionChatModel(function=answer)


def build_research(ctx: BuildContext) -> Any:
    def search(state: ResearchState) -> dict[str, Any]:
        query = state.get("user_input", "")
        emit(ToolCallEvent("search", {"query": query}, call_id="s1"))
        emit(ToolResultEvent("search", True, "2 guides found", call_id="s1"))
        return {"findings": ["guide: quiet season", "guide: pack light"]}

    def summarise(state: ResearchState) -> dict[str, Any]:
        model = ctx.model("researcher")
        if model is not None:
            text = str(model.invoke([HumanMessage("Summarise: " + "; ".join(state["findings"]))]).content)
        else:
            text = " / ".join(state["findings"])
        emit(DecisionEvent("research", "done", f"{len(state['findings'])} findings"))
        return {"research": text}

    g = StateGraph(ResearchState, output_schema=ResearchOutput)
    g.add_node("search", search)
    g.add_node("summarise", summarise)
    g.add_edge(START, "search")
    g.add_edge("search", "summarise")
    g.add_edge("summarise", END)
    return g.compile()


def ask_destination(state: TripState) -> dict[str, Any]:
    where = interrupt({"text": "Where would you like to go?"})
    return {"destination": where, "notes": [f"destination: {where}"]}


def ask_dates(state: TripState) -> dict[str, Any]:
    when = interrupt({"text": "When do you travel?"})
    return {"dates": when, "notes": [f"dates: {when}"]}


def build_trip(ctx: BuildContext) -> Any:
    async def plan(state: TripState, config: RunnableConfig) -> dict[str, Any]:
        await asyncio.sleep(0)  # a real await: this node only runs on the async path
        options = config["configurable"]["session_options"]
        model = ctx.model("planner")
        idea = "Take it slow."
        if model is not None:
            answer = await model.ainvoke([HumanMessage(f"Plan {state['destination']} on {state['dates']}")])
            idea = str(answer.content)
        reply = f"{options['traveller']}: {state['destination']}, {state['dates']}. {idea}"
        for word in reply.split(" "):
            emit(TokenEvent(word + " "))
        budget = options["budget"]
        artifacts = [
            TableArtifact(columns=["day", "activity"], rows=[[1, "arrive"], [2, "explore"]], title="Itinerary"),
            ChartArtifact(spec={"mark": "bar", "data": {"values": [{"day": "1", "cost": budget},
                                                                   {"day": "2", "cost": budget // 2}]},
                                "encoding": {"x": {"field": "day"}, "y": {"field": "cost"}}}, title="Budget"),
            CitationArtifact(source="research", text=state.get("research", ""), ref="[1]"),
        ]
        return {"reply": reply, "artifacts": [a.to_dict() for a in artifacts]}

    g = StateGraph(TripState)
    g.add_node("research", build_research(ctx))
    g.add_node("ask_destination", ask_destination)
    g.add_node("ask_dates", ask_dates)
    g.add_node("plan", plan)
    g.add_edge(START, "research")
    g.add_edge("research", "ask_destination")
    g.add_edge("research", "ask_dates")
    g.add_edge(["ask_destination", "ask_dates"], "plan")
    g.add_edge("plan", END)
    return g.compile(checkpointer=ctx.checkpointer)


def trip_input(text: str, session: Any) -> dict[str, Any]:
    return {"user_input": text, "notes": [f"request: {text}"]}


TRIP = AgentSpec(
    name="trip",
    title="Trip (composite example)",
    description="Researches in a subgraph, asks destination and dates in parallel, plans in an async node.",
    build=build_trip,
    samples=[["plan a trip", "Jeju", "next week"]],
    make_input=trip_input,
    session_options_model=TripSessionOptions,
    step_cap=20,
)
