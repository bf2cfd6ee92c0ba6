"""graphagents.toolloop on an agent that is not text2sql: a MACT-style Action[arg] planner with facts,
arithmetic, a policy, a confirmation, a budget and LangGraph's step cap, driven by function models."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypedDict

import pytest
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.graph import END, START, StateGraph
from langgraph.managed import RemainingSteps
from langgraph.types import interrupt

import graphagents.toolloop as toolloop
from graphagents import AgentSpec, BuildContext
from graphagents.events import DecisionEvent, ErrorEvent, ToolCallEvent, ToolResultEvent
from graphagents.llm import ReactStep, ToolCall
from graphagents.runtime import Agent, Reply
from graphagents.testing import FunctionChatModel, scripted
from graphagents.toolloop import (
    ActionTurnProtocol,
    ActResult,
    Budget,
    Tool,
    ToolError,
    ToolLoop,
    ToolRegistry,
    ToolResult,
    fresh_loop,
    rewrite_call,
)

FACTS = {"seoul": "9400000", "busan": "3300000"}


class CalcState(TypedDict, total=False):
    user_input: str
    question: str
    react: dict[str, Any]
    transcript: list[dict[str, Any]]
    pending: dict[str, Any] | None
    confirmation: dict[str, Any] | None
    status: str
    rewrites: list[dict[str, str]]
    answer: str
    reply: str
    remaining_steps: RemainingSteps


@dataclass
class Ctx:
    question: str


def lookup(params: dict[str, str], ctx: Ctx) -> ToolResult:
    key = params["input"].strip().lower()
    if key not in FACTS:
        raise ToolError(f"no fact about {key!r}", fix=f"look up one of: {', '.join(FACTS)}")
    return ToolResult(True, FACTS[key], f"{key} = {FACTS[key]}", {"key": key})


def add(params: dict[str, str], ctx: Ctx) -> ToolResult:
    total = sum(int(part) for part in params["input"].split("+"))  # a bad number is a tool bug here
    return ToolResult(True, str(total), f"sum {total}")


def submit(params: dict[str, str], ctx: Ctx) -> ToolResult:
    return ToolResult(True, "submitted", "submitted", {"answer": params["input"]})


def policy(step: ReactStep, budget: Budget, state: Any) -> toolloop.Rewrite | None:
    """Nothing is submitted before something was looked up (the design note's rule, generically)."""
    call = step.tool_call
    if call is not None and call.name == "Submit" and "Lookup" not in budget.used_tools:
        return rewrite_call(step, "Lookup", {"input": state["question"].split()[-1]}, "require_lookup_first")
    return None


class AskBeforeAdd:
    def needs(self, call: ToolCall) -> bool:
        return call.name == "Add"

    def __call__(self, state: Any) -> dict[str, Any]:
        answer = str(interrupt({"text": f"Run Add[{state['pending']['parameters']['input']}]? (yes/no)"}))
        if answer == "yes":
            return {"confirmation": {"result": "run"}}
        if answer == "no":
            return {"pending": None, "status": "cancelled", "reply": "Cancelled: nothing was added."}
        return {"confirmation": {"result": "ask"}}


def make_spec(max_calls: int = 5, confirm: bool = False, step_cap: int = 40) -> AgentSpec:
    def build(ctx: BuildContext) -> Any:
        def prepare(state: CalcState) -> dict[str, Any]:
            return {"question": state["user_input"], **fresh_loop(Budget(max_calls=max_calls)), "reply": ""}

        def on_result(done: ActResult[Ctx, Budget]) -> dict[str, Any]:
            if done.call.name == "Submit" and done.result.ok:
                return {"status": "submitted", "answer": done.result.data["answer"]}
            return {}

        def finish(state: CalcState) -> dict[str, Any]:
            status = state.get("status", "")
            if status == "cancelled":
                return {}
            return {"reply": f"{status}: {state.get('answer', '')}".strip()}

        loop: ToolLoop[Ctx, Budget] = ToolLoop(
            tools=ToolRegistry([Tool("Lookup", lookup, ("input",)), Tool("Add", add, ("input",)),
                                Tool("Submit", submit, ("input",))], parameter_hint=PROTOCOL.parameter_hint),
            protocol=PROTOCOL,
            prompt=lambda state, budget: [SystemMessage("Answer with Thought/Action."),
                                          HumanMessage(state["question"])],
            context=lambda state, budget: Ctx(state["question"]),
            budget_type=Budget,
            model=ctx.llm,
            policy=policy,
            confirmation=AskBeforeAdd() if confirm else None,
            on_result=on_result,
            call_id_prefix="calc",
        )
        g = StateGraph(CalcState)
        g.add_node("prepare", prepare)
        loop.add_to(g)
        g.add_node("finish", finish)
        g.add_edge(START, "prepare")
        g.add_edge("prepare", "think")
        g.add_edge("finish", END)
        return g.compile(checkpointer=ctx.checkpointer)

    return AgentSpec(name="calc_loop", title="calc", description="a tool loop test agent", build=build,
                     step_cap=step_cap)


PROTOCOL = ActionTurnProtocol()


def act(tool: str, arg: str, thought: str = "thinking") -> str:
    return f"Thought: {thought}\nAction: {tool}[{arg}]"


def observations(messages: list[BaseMessage]) -> list[str]:
    return [str(m.content) for m in messages if str(m.content).startswith("Observation")]


def planner(messages: list[BaseMessage]) -> str:
    """A function model that reads the observations so far and plans the next action."""
    seen = observations(messages)
    numbers = [int(n) for o in seen for n in re.findall(r": (\d+)\n", o)]
    if len(numbers) < 2:
        return act("Lookup", ["Seoul", "Busan"][len(numbers)], f"I know {len(numbers)} populations")
    if not any("(Add)" in o for o in seen):
        return act("Add", f"{numbers[0]}+{numbers[1]}")
    return act("Finish", f"{numbers[-1]} people")


def run(llm: Any, question: str = "population of seoul and busan", **spec: Any) -> tuple[Agent, Reply]:
    agent = Agent(make_spec(**spec), llm=llm, checkpoint_url="memory")
    return agent, agent.session().send(question)


def of(reply: Reply, kind: type) -> list[Any]:
    return [e for e in reply.events if isinstance(e, kind)]


def test_a_function_model_plans_from_the_observations() -> None:
    model = FunctionChatModel(function=planner)
    _, reply = run(model)
    assert reply.done and reply.text == "answered: 12700000 people"
    assert reply.state["status"] == "answered" and reply.state["react"]["used_tools"] == ["Lookup", "Lookup", "Add"]
    assert [e.tool for e in of(reply, ToolCallEvent)] == ["Lookup", "Lookup", "Add"]
    assert [e.call_id for e in of(reply, ToolCallEvent)] == ["calc-1", "calc-2", "calc-3"]
    last = observations(model.prompts[-1])
    assert last[0].startswith("Observation (Lookup): 9400000") and "(remaining tool calls: 2)" in last[-1]


def test_tool_errors_go_back_to_the_model_with_how_to_fix() -> None:
    model = scripted(act("Lookup", "Daegu"), act("Add", "1+x"), act("Unknown", "?"), act("Lookup", ""),
                     act("Finish", "gave up"))
    _, reply = run(model)
    results = [(e.tool, e.ok) for e in of(reply, ToolResultEvent)]
    assert results == [("Lookup", False), ("Add", False), ("Unknown", False), ("Lookup", False)]
    sent = observations(model.prompts[-1])
    assert "no fact about 'daegu'\nHow to fix: look up one of: seoul, busan" in sent[0]
    assert "Add failed: ValueError" in sent[1] and "How to fix: try a different call" in sent[1]
    assert "unknown tool 'Unknown'" in sent[2] and "Lookup, Add, Submit" in sent[2]
    assert "needs the parameter 'input'" in sent[3] and "inside the brackets" in sent[3]
    assert reply.text == "answered: gave up"


def test_the_policy_rewrites_in_think_and_the_observation_says_so() -> None:
    model = scripted(act("Submit", "42"), act("Submit", "9400000"))
    _, reply = run(model, question="population of seoul")
    rewrites = [(e.details["from"], e.details["to"], e.reason) for e in of(reply, DecisionEvent)
                if e.kind == "policy_rewrite"]
    assert rewrites == [("Submit", "Lookup", "require_lookup_first")]
    assert "[policy] your Submit call was run as Lookup (require_lookup_first)" in model.prompt_texts[1]
    assert reply.text == "submitted: 9400000"


def test_the_budget_ends_the_loop_in_finish() -> None:
    _, reply = run(scripted(default=act("Lookup", "seoul")), max_calls=3)
    assert reply.done and reply.text == "budget:"
    assert len(of(reply, ToolCallEvent)) == 3
    assert [e.kind for e in of(reply, DecisionEvent)] == ["budget"]


def test_the_step_cap_ends_the_loop_in_finish_not_in_a_recursion_error() -> None:
    # 20 tool calls would need ~41 graph steps; the cap of 9 is reached first
    agent, reply = run(scripted(default=act("Lookup", "seoul")), max_calls=20, step_cap=9)
    assert reply.done and reply.text == "steps:"
    assert not of(reply, ErrorEvent)  # the runtime's recursion-error path was never taken
    assert [e.kind for e in of(reply, DecisionEvent)] == ["step_cap"]
    assert 1 <= len(of(reply, ToolCallEvent)) < 5
    assert agent.session().send("again").text == "steps:"  # the next turn starts fresh and works


def test_unparsable_turns_get_the_format_note_then_end_as_an_error() -> None:
    model = scripted("I think the answer is 42.", "Still no action line.")
    _, reply = run(model)
    assert reply.text == "error:"
    assert "Action: Tool[argument]" in model.prompt_texts[1]
    assert [e.choice for e in of(reply, DecisionEvent) if e.kind == "action_repair"] == ["error", "error"]


def test_a_model_failure_ends_the_turn_with_an_error_event() -> None:
    _, reply = run(scripted(ConnectionError("provider down at https://internal-gw.example/v1?key=sk-123")))
    assert reply.text == "error:" and [e.code for e in of(reply, ErrorEvent)] == ["model"]
    message = of(reply, ErrorEvent)[0].message
    assert "the model call failed: connection" in message and "sk-123" not in message and "internal-gw" not in message


@pytest.mark.parametrize(("answers", "expected"), [(["yes"], "answered: 12700000 people"),
                                                   (["maybe", "yes"], "answered: 12700000 people"),
                                                   (["no"], "Cancelled: nothing was added.")])
def test_confirmation_pauses_before_the_call_and_obeys(answers: list[str], expected: str) -> None:
    agent = Agent(make_spec(confirm=True), llm=FunctionChatModel(function=planner), checkpoint_url="memory")
    session = agent.session()
    reply = session.send("population of seoul and busan")
    assert not reply.done and reply.text == "Run Add[9400000+3300000]? (yes/no)"
    assert [e.tool for e in of(reply, ToolCallEvent)] == ["Lookup", "Lookup"]
    for answer in answers:
        reply = session.send(answer)
    assert reply.done and reply.text == expected
    assert [e.tool for e in of(reply, ToolCallEvent)] == (["Add"] if answers[-1] == "yes" else [])


def test_the_transcript_keeps_a_bounded_copy_of_long_turns() -> None:
    thought = ("I keep thinking. " * 2_000)[:30_000]  # under the output cap, far over what is kept
    model = scripted(act("Lookup", "seoul", thought), act("Lookup", "busan", thought), act("Finish", "done"))
    agent = Agent(make_spec(), llm=model, checkpoint_url="memory")
    session = agent.session()
    assert session.send("population").text == "answered: done"
    transcript = agent.graph.get_state(session.config).values["transcript"]
    limit = toolloop.TranscriptLimits().section_chars + 100
    assert [len(entry["response"]) <= limit for entry in transcript] == [True, True]
    assert transcript[0]["response"].endswith("[29,000 more characters not kept]\nAction: Lookup[seoul]")
    assert len(model.prompt_texts[-1]) < 3 * limit  # 60 KB of thoughts were written in this turn


def test_the_loop_needs_a_model_or_a_planner() -> None:
    with pytest.raises(ValueError, match="model or a planner"):
        ToolLoop(tools=ToolRegistry([]), protocol=PROTOCOL, prompt=lambda s, b: [], context=lambda s, b: None,
                 budget_type=Budget)


def test_action_protocol_parsing() -> None:
    parse: Callable[[str], ReactStep] = PROTOCOL.parse_strict
    step = parse("Thought 1: need rows\nAction 1: Operate[df[df.a > 1]]\nObservation 1: made up [x]")
    assert step.reasoning == "need rows" and step.tool_call == ToolCall("Operate", {"input": "df[df.a > 1]"})
    assert parse("Thought: done\nAction: Finish[42 명]").user_facing == "42 명"
    for bad in ("no action here", "Action: Lookup seoul", "Action: Lookup[seoul", "Action: Finish[]"):
        outcome = PROTOCOL.parse(bad, None)
        assert outcome.path == "error" and outcome.step.is_error, bad
    assert PROTOCOL.parse("Thought: x", lambda _: "Action: Lookup[seoul]").path == "reprint"
    assert PROTOCOL.parse("\n" * 50_000 + "Action: Lookup[" + "]" * 50_000, None).step.tool_call is not None


def test_the_public_surface() -> None:
    assert sorted(toolloop.__all__) == sorted(
        ["ERROR_TEMPLATE", "STEPS_TO_FINISH", "ActResult", "ActionTurnProtocol", "Budget", "Confirmation",
         "LoopState", "Rewrite", "Tool", "ToolError", "ToolLoop", "ToolRegistry", "ToolResult", "TranscriptLimits",
         "TurnProtocol", "XmlTurnProtocol", "clip", "error_content", "error_summary", "fresh_loop", "rewrite_call",
         "route_after_act", "route_after_confirm", "route_after_think"]
    )
    public = {name for name in vars(toolloop) if not name.startswith("_")}
    assert set(toolloop.__all__) <= public
    assert public - set(toolloop.__all__) <= {"action", "budget", "loop", "protocol", "tools", "annotations"}
