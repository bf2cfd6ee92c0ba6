"""The think -> policy -> [confirm ->] act loop as a builder with hooks.

``ToolLoop`` adds three nodes to an agent's ``StateGraph``:

* ``think`` asks the model (or a deterministic ``planner``) for one turn, streams its sections as
  token events, parses it with the ``protocol`` (repairing what it can) and applies the
  ``policy``, so ``pending`` is the call that will really run;
* ``confirm`` (only with a ``confirmation`` hook) asks the user about that call via ``interrupt``;
* ``act`` re-checks the policy, runs the tool through the registry, records the budget, lets the
  agent's ``on_result`` hook update its own state, and sends the result back as an observation.

The agent owns the entry node (which resets the loop's keys per question, see ``fresh_loop``)
and the ``finish`` node, which every way out of the loop reaches with a ``status``: ``answered``
(a turn without a tool call), ``budget`` (no tool calls left), ``error`` (the model failed or
kept answering garbage), ``cancelled`` (the user said no), ``steps`` (LangGraph's step cap is
near: ``RemainingSteps`` in the state schema), or whatever the agent's ``on_result`` sets.

State keys (declare them in the agent's TypedDict; ``LoopState`` lists them): ``react`` (the
budget as a dict), ``transcript``, ``pending``, ``confirmation``, ``status``, ``rewrites``,
``answer`` and ``remaining_steps``. The lists are replaced, not reduced: a loop is one branch,
and a new question must be able to reset them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypedDict, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.errors import GraphBubbleUp
from langgraph.graph import StateGraph
from langgraph.managed import RemainingSteps

from graphagents.errors import ModelOutputError, ModelRequestsBlocked
from graphagents.events import DecisionEvent, ErrorEvent, TokenEvent, ToolCallEvent, ToolResultEvent, emit
from graphagents.llm.context_cache import prompt_caching_for
from graphagents.llm.limits import MAX_OUTPUT_CHARS, content_text
from graphagents.llm.xml_protocol import ParseOutcome, ReactStep, ToolCall, error_step
from graphagents.privacy import loggable

from .budget import Budget
from .protocol import TurnProtocol, clip
from .tools import ToolRegistry, ToolResult

log = logging.getLogger("graphagents.toolloop")

THINK, CONFIRM, ACT, FINISH = "think", "confirm", "act", "finish"
STEPS_TO_FINISH = 3
"""A loop node continues only with at least this many LangGraph steps left: itself, the next loop
node, and ``finish``. Below it the turn ends in ``finish`` with status ``steps``, never in a
recursion error."""

Ctx = TypeVar("Ctx")
B = TypeVar("B", bound=Budget)
Rewrite = dict[str, str]
"""A policy rewrite: ``{"from": tool, "to": tool, "reason": code}``."""


class LoopState(TypedDict, total=False):
    react: dict[str, Any]
    transcript: list[dict[str, Any]]  # {"response": kept model turn, "observation": rendered result, ...}
    pending: dict[str, Any] | None  # the call waiting for act, after the policy: what will really run
    confirmation: dict[str, Any] | None
    status: str
    rewrites: list[Rewrite]
    answer: str
    remaining_steps: RemainingSteps


def fresh_loop(budget: Budget) -> dict[str, Any]:
    """The loop's keys for a new question (the entry node merges it into its update)."""
    return {"react": budget.to_dict(), "transcript": [], "pending": None, "confirmation": None,
            "status": "running", "rewrites": [], "answer": ""}


@dataclass(frozen=True)
class TranscriptLimits:
    """What the transcript keeps of each step; it is resent to the model at every step.

    A kept model turn longer than ``response_chars`` is re-rendered by the protocol with each
    section cut to ``section_chars`` and each parameter to ``parameter_chars`` (at most
    ``max_parameters``); a tool's output is cut to ``observation_chars``. So one question's prompt
    grows by a few KB per step whatever the model writes (issue 8, defect 11)."""

    response_chars: int = 4_000
    section_chars: int = 1_000
    parameter_chars: int = 4_000
    max_parameters: int = 16
    observation_chars: int = 8_000


@dataclass(frozen=True)
class ActResult(Generic[Ctx, B]):
    """What ``on_result`` gets after a tool ran (the budget already counts the call)."""

    state: Mapping[str, Any]
    step: ReactStep
    result: ToolResult
    ctx: Ctx
    budget: B
    rewrite: Rewrite | None

    @property
    def call(self) -> ToolCall:
        assert self.step.tool_call is not None
        return self.step.tool_call


class Confirmation(Protocol):
    """Optional human approval of a pending call (runs as the ``confirm`` node).

    The node must set ``confirmation.result`` to ``"run"`` (go to act) or ``"ask"`` (ask again),
    or end the question with ``status`` ``"cancelled"``. It may edit ``pending`` and put a ``note``
    in it, which is appended to the call's observation (``"the user replaced the SQL with ..."``)."""

    def needs(self, call: ToolCall) -> bool: ...

    def __call__(self, state: Mapping[str, Any]) -> dict[str, Any]: ...


Policy = Callable[[ReactStep, B, Mapping[str, Any]], "Rewrite | None"]


def _out_of_steps(state: Mapping[str, Any]) -> bool:
    remaining = state.get("remaining_steps")
    return remaining is not None and remaining < STEPS_TO_FINISH


def rewrite_call(step: ReactStep, to: str, parameters: dict[str, str], reason: str) -> Rewrite:
    """Rewrite ``step``'s call in place and say what changed (the policies' building block)."""
    assert step.tool_call is not None
    before = step.tool_call.name
    step.tool_call = ToolCall(name=to, parameters=parameters)
    return {"from": before, "to": to, "reason": reason}


@dataclass
class ToolLoop(Generic[Ctx, B]):
    """The hooks of one agent's tool loop; ``add_to(graph)`` adds its nodes and edges."""

    tools: ToolRegistry[Ctx]
    protocol: TurnProtocol
    prompt: Callable[[Mapping[str, Any], B], list[BaseMessage]]
    """The messages before the transcript (system prompt, question); the loop appends the steps."""
    context: Callable[[Mapping[str, Any], B], Ctx]
    """The tool context for one call."""
    budget_type: type[B]
    model: BaseChatModel | None = None
    planner: Callable[[Mapping[str, Any], B], str] | None = None
    """A deterministic stand-in for the model (an offline brain) that answers in the protocol."""
    policy: Policy[B] | None = None
    confirmation: Confirmation | None = None
    on_result: Callable[[ActResult[Ctx, B]], dict[str, Any]] | None = None
    """The agent's bookkeeping after a call; its return value is merged into the state update
    (set ``status`` to end the loop, e.g. ``"submitted"``)."""
    call_id_prefix: str = "call"
    max_parse_failures: int = 2
    stream_throttle_s: float = 0.05
    limits: TranscriptLimits = field(default_factory=TranscriptLimits)

    def __post_init__(self) -> None:
        if self.model is None and self.planner is None:
            raise ValueError("a ToolLoop needs a model or a planner")
        # A long system prompt is the same every step: providers that can cache it do so.
        self._caching = prompt_caching_for(self.model) if self.model is not None else None

    # ------------------------------------------------------------------------------ graph
    def add_to(self, graph: StateGraph[Any], *, finish: str = FINISH) -> None:
        """Add ``think``, [``confirm``,] ``act`` and their edges; the agent adds ``finish``."""
        if finish != FINISH:
            raise ValueError(f"the loop's exit node must be named {FINISH!r}")
        # The nodes take Mapping[str, Any] on purpose: LangGraph reads a node's input schema from its
        # annotation, and a TypedDict there would hide the agent's own keys from the hooks.
        graph.add_node(THINK, self.think)  # type: ignore[type-var]
        if self.confirmation is not None:
            graph.add_node(CONFIRM, self.confirm)  # type: ignore[type-var]
        graph.add_node(ACT, self.act)  # type: ignore[type-var]
        after_think = [CONFIRM, ACT, THINK, FINISH] if self.confirmation is not None else [ACT, THINK, FINISH]
        graph.add_conditional_edges(THINK, route_after_think, after_think)
        if self.confirmation is not None:
            graph.add_conditional_edges(CONFIRM, route_after_confirm, [ACT, CONFIRM, FINISH])
        graph.add_conditional_edges(ACT, route_after_act, [THINK, FINISH])

    # ------------------------------------------------------------------------------ think
    def think(self, state: Mapping[str, Any]) -> dict[str, Any]:
        budget = self.budget_type.from_dict(state.get("react"))
        if _out_of_steps(state):
            return self._stop_for_steps()
        try:
            outcome, overflow = self._ask(state, budget)
        except (ModelRequestsBlocked, GraphBubbleUp):
            raise
        except Exception as exc:  # a model that cannot be reached ends the turn, not the session
            log.warning("model call failed: %s: %s", type(exc).__name__, loggable(str(exc)))
            # the exception's text stays in the log: it can hold provider URLs, ids or the prompt
            from graphagents.llm.degrade import reason_of

            reason = reason_of(exc)  # a code (timeout, http_error, deadline ...), never the provider's text
            emit(ErrorEvent(f"모델 호출이 실패해 이번 요청을 마치지 못했어요; 잠시 후 다시 시도해 주세요 "
                            f"(the model call failed: {reason})", code="model"))
            return {"status": "error", "pending": None}
        step = outcome.step
        if outcome.path != "clean":
            emit(DecisionEvent(f"{self.protocol.name}_repair", outcome.path,
                               "; ".join(outcome.problems) or "repaired", {"path": outcome.path}))
        if step.is_error:
            budget.parse_failures += 1
            if budget.parse_failures >= self.max_parse_failures:
                return {"status": "error", "pending": None, "react": budget.to_dict()}
            note = self.protocol.format_note + (f" {overflow}" if overflow else "")
            entry = {"response": step.raw[: self.limits.response_chars],
                     "observation": self.protocol.observation("format", False, note),
                     "tool": "format", "ok": False, "data": {}}
            return {"react": budget.to_dict(), "pending": None, "transcript": [*state.get("transcript", []), entry]}
        if step.tool_call is None:
            return {"status": "answered", "answer": step.user_facing, "pending": None}
        update: dict[str, Any] = {}
        rewrite = self.policy(step, budget, state) if self.policy is not None else None
        if rewrite:
            emit(DecisionEvent("policy_rewrite", rewrite["to"], rewrite["reason"], dict(rewrite)))
            update["rewrites"] = [*state.get("rewrites", []), rewrite]
        call = step.tool_call
        assert call is not None
        confirm = self.confirmation is not None and self.confirmation.needs(call)
        update["pending"] = {"name": call.name, "parameters": dict(call.parameters), "rewrite": rewrite,
                             "reasoning": clip(step.reasoning, self.limits.section_chars),
                             "user_facing": step.user_facing,
                             "raw": self._kept(step), "confirm": confirm}
        update["confirmation"] = None
        return update

    def _kept(self, step: ReactStep) -> str:
        """The model turn as the transcript keeps it: verbatim when short, else compacted."""
        if len(step.raw) <= self.limits.response_chars:
            return step.raw
        lim = self.limits
        return self.protocol.compact(step, section_chars=lim.section_chars, parameter_chars=lim.parameter_chars,
                                     max_parameters=lim.max_parameters)

    def _messages(self, state: Mapping[str, Any], budget: B) -> list[BaseMessage]:
        messages = list(self.prompt(state, budget))
        for entry in state.get("transcript", []):
            messages.append(AIMessage(entry["response"]))
            messages.append(HumanMessage(entry["observation"]))
        return messages

    def _stream(self, pieces: Iterable[str], throttle_s: float) -> tuple[str, str]:
        """The whole answer (read up to ``MAX_OUTPUT_CHARS``), and a note when it was longer."""
        sections = self.protocol.section_stream(throttle_s)
        parts: list[str] = []
        size = 0
        for piece in pieces:
            if size + len(piece) > MAX_OUTPUT_CHARS:
                close = getattr(pieces, "close", None)
                if close is not None:
                    close()  # stop the provider's stream instead of downloading the rest
                return "".join(parts), (f"Your answer was longer than {MAX_OUTPUT_CHARS:,} characters "
                                        "and was not read: keep each turn short.")
            parts.append(piece)
            size += len(piece)
            if sections is not None:
                self._tokens(sections.feed(piece))
        if sections is not None:
            self._tokens(sections.flush())
        return "".join(parts), ""

    @staticmethod
    def _tokens(deltas: Iterable[Any]) -> None:
        for delta in deltas:
            if delta.text:
                emit(TokenEvent(delta.text, section=delta.section))

    def _ask(self, state: Mapping[str, Any], budget: B) -> tuple[ParseOutcome, str]:
        if self.model is None:
            assert self.planner is not None
            raw = self.planner(state, budget)
            text, overflow = self._stream((raw[i : i + 24] for i in range(0, len(raw), 24)), 0.0)
            return (self._overflowed(text, overflow) if overflow else self.protocol.parse(text, None)), overflow
        model = self.model
        messages = self._messages(state, budget)
        kwargs: dict[str, Any] = {}
        if self._caching is not None:
            messages, kwargs = self._caching.prepare(messages)
        pieces = (content_text(chunk.content) for chunk in model.stream(messages, **kwargs))
        text, overflow = self._stream(pieces, self.stream_throttle_s)
        if overflow:
            return self._overflowed(text, overflow), overflow

        if self.protocol.reprint_prompt is None:
            return self.protocol.parse(text, None), ""

        def reprint(bad: str) -> str:
            again = content_text(model.invoke([HumanMessage(self.protocol.reprint_request(bad))]).content)
            if len(again) > MAX_OUTPUT_CHARS:
                raise ModelOutputError(f"the reprint was longer than {MAX_OUTPUT_CHARS:,} characters")
            return again

        return self.protocol.parse(text, reprint), ""

    @staticmethod
    def _overflowed(text: str, note: str) -> ParseOutcome:
        return ParseOutcome(error_step(note, raw=text), "error", (note,))

    def _stop_for_steps(self) -> dict[str, Any]:
        emit(DecisionEvent("step_cap", "stop", "too few graph steps left to run another tool call"))
        return {"status": "steps", "pending": None}

    # ------------------------------------------------------------------------------ confirm
    def confirm(self, state: Mapping[str, Any]) -> dict[str, Any]:
        assert self.confirmation is not None
        return self.confirmation(state)

    # ------------------------------------------------------------------------------ act
    def act(self, state: Mapping[str, Any]) -> dict[str, Any]:
        pending = state.get("pending") or {}
        budget = self.budget_type.from_dict(state.get("react"))
        step = ReactStep(reasoning=pending.get("reasoning", ""), user_facing=pending.get("user_facing", ""),
                         tool_call=ToolCall(pending["name"], dict(pending.get("parameters", {}))),
                         raw=pending.get("raw", ""))
        rewrites = list(state.get("rewrites", []))
        rewrite = pending.get("rewrite")
        # think already applied the policy; applying it again here means no call, a user-edited one
        # included, reaches the tools without passing it (a no-op unless the state moved meanwhile)
        late = self.policy(step, budget, state) if self.policy is not None else None
        if late:
            rewrite = late
            rewrites.append(late)
            emit(DecisionEvent("policy_rewrite", late["to"], late["reason"], dict(late)))
        assert step.tool_call is not None
        name, params = step.tool_call.name, step.tool_call.parameters
        call_id = f"{self.call_id_prefix}-{len(budget.used_tools) + 1}"
        emit(ToolCallEvent(name, dict(params), call_id))
        ctx = self.context(state, budget)
        result = self.tools.execute(name, params, ctx)
        emit(ToolResultEvent(name, result.ok, result.summary, result.data, call_id))
        budget.record(name)
        extra = self.on_result(ActResult(state, step, result, ctx, budget, rewrite)) if self.on_result else {}
        prefix = (f"[policy] your {rewrite['from']} call was run as {rewrite['to']} ({rewrite['reason']}).\n"
                  if rewrite else "")
        tail = f"\n(remaining tool calls: {budget.remaining_tool_calls})"
        if pending.get("note"):
            tail += f"\n{pending['note']}"
        content = prefix + clip(result.content, self.limits.observation_chars) + tail
        entry = {"response": step.raw, "observation": self.protocol.observation(name, result.ok, content),
                 "tool": name, "ok": result.ok, "data": result.data}
        update: dict[str, Any] = {"pending": None, "rewrites": rewrites,
                                  "transcript": [*state.get("transcript", []), entry], **extra}
        update["react"] = budget.to_dict()  # after on_result, which may have noted more in it
        if update.get("status", state.get("status")) == "running":
            if budget.exhausted:
                emit(DecisionEvent("budget", "stop", f"all {budget.max_calls} tool calls used without finishing"))
                update["status"] = "budget"
            elif _out_of_steps(state):
                update.update(self._stop_for_steps())
        return update


# ---------------------------------------------------------------------------------- routing
def route_after_think(state: Mapping[str, Any]) -> str:
    pending = state.get("pending")
    if pending:
        return CONFIRM if pending.get("confirm") else ACT
    return THINK if state.get("status") == "running" else FINISH


def route_after_confirm(state: Mapping[str, Any]) -> str:
    if state.get("status") != "running" or not state.get("pending"):
        return FINISH
    round_ = state.get("confirmation") or {}
    return ACT if round_.get("result") == "run" else CONFIRM


def route_after_act(state: Mapping[str, Any]) -> str:
    return THINK if state.get("status") == "running" else FINISH
