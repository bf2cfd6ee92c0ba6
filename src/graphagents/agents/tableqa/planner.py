"""The model side of MACT: the planner's prompt and vote, and the coder as a :data:`CodeWriter`.

Both sample several completions (``plan_samples`` / ``code_samples``). Planner samples are parsed
and voted on by normalised action; unparsable samples lose their vote, and when every sample is
unusable the step's observation says so and the planner tries again next step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from graphagents.llm import MAX_OUTPUT_CHARS
from graphagents.llm.answer import sample_texts, stream_answer, stream_message
from graphagents.llm.json_output import native_tools

from .actions import MAX_PLANNER_CHARS, Action, ActionParseError, majority, parse_action
from .coder import coder_prompt, extract_code, preview
from .config import AgentContext
from .prompts import load, render
from .state import IntermediateTable, StepRecord, TableRef
from .tools import CodeWriter

__all__ = ["PlanChoice", "choose_action", "llm_code_writer", "planner_prompt", "scratchpad"]


@dataclass(frozen=True)
class PlanChoice:
    action: Action | None
    votes: int
    samples: int
    error: str = ""
    finish_candidates: tuple[Action, ...] = ()
    raw: str = ""  # the first sample, for the loop's format note when none parsed


def scratchpad(steps: Sequence[StepRecord]) -> str:
    lines = []
    for rec in steps:
        n = rec.get("step", 0)
        if rec.get("thought"):
            lines.append(f"Thought {n}: {rec['thought']}")
        lines.append(f"Action {n}: {rec.get('action', '')}[{rec.get('argument', '')}]")
        lines.append(f"Observation {n}: {rec.get('observation', '')}")
    return "\n".join(lines)


def planner_prompt(
    question: str,
    original: Sequence[TableRef],
    intermediate: Sequence[IntermediateTable],
    steps: Sequence[StepRecord],
    actx: AgentContext,
    *,
    note: str = "",
) -> str:
    """MACT's planner prompt; ``note`` is the loop's reply to an unusable previous turn."""
    tables = [preview(f"df_orig_{i + 1}", actx.store.get(t["id"]), label=t["name"]) for i, t in enumerate(original)]
    if intermediate and actx.options.chain:
        tables.append(preview("df (working table)", actx.store.get(intermediate[-1]["id"])))
    next_step = len(steps) + 1
    return render(
        "planner.md",
        question=question,
        tables="\n\n".join(tables),
        scratchpad=(scratchpad(steps) + "\n" if steps else "") + (f"{note}\n" if note else "")
        + f"Thought {next_step}:",
        max_steps=actx.options.max_steps,
        search_line="",
    )


ACTION_TOOLS = {
    "Retrieve": "A coder writes pandas code that takes the rows and columns needed from the tables; "
                "the result becomes the working table df. input: the instruction.",
    "Operate": "A coder writes pandas code that transforms the working table df; the result becomes the "
               "new df. input: the instruction.",
    "Calculate": "Arithmetic on numbers already seen. input: the expression, e.g. (1234 - 567) / 567 * 100.",
    "Finish": "The final answer; several values separated by ' | '; 'df' answers with the working table. "
              "input: the answer.",
}


def action_tools() -> list[dict[str, Any]]:
    """The planner's actions as OpenAI-format tools (one string parameter, ``input``)."""
    return [{"type": "function", "function": {
        "name": name, "description": text,
        "parameters": {"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]}}}
        for name, text in ACTION_TOOLS.items()]


def _tool_turn(model: BaseChatModel, prompt: str) -> str:
    """One planner turn with the actions bound as tools: a tool call becomes the protocol's
    ``Thought``/``Action`` text (so voting, the loop and the transcript stay the same); an answer in
    text (a model that did not call a tool) is taken as it is."""
    bound = model.bind_tools(action_tools())
    answer, calls = stream_message(bound, [HumanMessage(prompt)], limit=MAX_PLANNER_CHARS + 1,
                                   section="reasoning")
    if not calls:
        return answer.text
    call = calls[0]
    argument = str((call["args"] or {}).get("input", "")).replace("\n", " ")
    thought = " ".join(answer.text.split()) or f"call {call['name']}"
    return f"Thought: {thought}\nAction: {call['name']}[{argument}]"


def choose_action(model: BaseChatModel, prompt: str, samples: int) -> PlanChoice:
    actions: list[Action] = []
    errors: list[str] = []
    first = ""
    if samples == 1 and native_tools(model):  # the provider's tool calling: the actions as tools
        texts = [_tool_turn(model, prompt)]
    elif samples == 1:  # one turn: streamed as it is written (the page's trace and `--verbose` show it)
        # read one character past the limit, so that an over-long answer is refused, not cut
        texts = [stream_answer(model, [HumanMessage(prompt)], limit=MAX_PLANNER_CHARS + 1,
                               section="reasoning").text]
    else:  # one request with n choices when the model has n
        texts = sample_texts(model, [HumanMessage(prompt)], samples)
    for text in texts:
        if len(text) > MAX_PLANNER_CHARS:  # refused before any parsing: the size is the whole check
            errors.append(f"the planner's answer was {len(text):,} characters long (the limit is "
                          f"{MAX_PLANNER_CHARS:,}) and was not read: write one short Thought and one Action")
            continue
        first = first or text
        if "Action" not in text and "Thought" not in text.split("\n", 1)[0]:
            text = "Thought: " + text  # the prompt ends with "Thought n:", so a reply may start mid-line
        try:
            actions.append(parse_action(text))
        except ActionParseError as exc:
            errors.append(str(exc))
    if not actions:
        return PlanChoice(None, 0, samples, errors[0] if errors else "no usable planner output", raw=first)
    winner, votes = majority(actions)
    others = tuple(a for a in actions if a.kind == "Finish" and a.key != winner.key)
    return PlanChoice(winner, votes, samples, finish_candidates=others)


def llm_code_writer(
    model: BaseChatModel,
    question: str,
    original: Sequence[TableRef],
    intermediate: Sequence[IntermediateTable],
    actx: AgentContext,
) -> CodeWriter:
    """A coder bound to the current tables: (instruction, previous error, n) -> programs."""
    shown = intermediate if actx.options.chain else []

    def write(instruction: str, error: str | None, n: int) -> list[str]:
        prompt = coder_prompt(question, instruction, original, shown, actx.store)
        if error:
            prompt += f"\n# 이전 코드의 오류 (고쳐서 다시 작성하세요): {error}\n"
        messages = [SystemMessage(load("coder_system.md")), HumanMessage(prompt)]
        return [extract_code(text[:MAX_OUTPUT_CHARS]) for text in sample_texts(model, messages, n)]

    return write
