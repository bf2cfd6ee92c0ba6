"""A MACT-style text protocol: ``Thought: ...`` then ``Action: Tool[argument]``.

For planners that do not speak XML (MACT's planner, most ReAct papers)::

    Thought: the population table has the numbers I need
    Action: Retrieve[population of Seoul in 2020]

``Action: Finish[answer]`` ends the loop with ``answer``. The argument runs to the last ``]`` of
the turn, so code with brackets (``df[df.a > 1]``) survives; it becomes the tool's single
parameter (``argument``, default ``input``). Parsing is one pass over the lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from graphagents.llm.xml_protocol import ParseOutcome, ReactStep, ToolCall, error_step
from graphagents.prompts import template

from .protocol import SectionStream, clip

_LABEL = re.compile(r"[ \t]*(Thought|Action)(?:[ \t]*\d+)?[ \t]*:[ \t]*", re.IGNORECASE)
_CALL = re.compile(r"([A-Za-z_]\w*)[ \t]*\[")
_OBSERVATION = re.compile(r"^[ \t]*Observation\b", re.MULTILINE | re.IGNORECASE)


REPRINT = "Rewrite this answer as one 'Thought: ...' line and one 'Action: Tool[argument]' line:\n{{response}}"


class ActionFormatError(ValueError):
    """The turn has no usable ``Action: Tool[argument]`` line."""


@dataclass(frozen=True)
class ActionTurnProtocol:
    argument: str = "input"
    finish: str = "Finish"
    reprint_prompt: str | None = None
    format_note: str = (
        "Your answer could not be parsed. Reply with one 'Thought: ...' line and one "
        "'Action: Tool[argument]' line (Action: Finish[answer] to answer)."
    )
    name: str = "action"

    def parse_strict(self, text: str) -> ReactStep:
        thought_at = action_at = action_line = -1
        offset = 0
        for line in text.splitlines(keepends=True):
            m = _LABEL.match(line)
            if m is not None:
                if m.group(1).lower() == "action":
                    action_at, action_line = offset + m.end(), offset
                elif action_at == -1:
                    thought_at = offset + m.end()
            offset += len(line)
        if action_at == -1:
            raise ActionFormatError("no 'Action: Tool[argument]' line")
        call = _CALL.match(text, action_at)
        if call is None:
            raise ActionFormatError("the Action line does not read Tool[argument]")
        # A model that runs on writes the observation itself: that text is not part of the call.
        end = _OBSERVATION.search(text, call.end())
        close = text.rfind("]", call.end(), end.start() if end else len(text))
        if close == -1:
            raise ActionFormatError(f"the argument of {call.group(1)!r} has no closing ']'")
        argument = text[call.end() : close].strip()
        thought = text[thought_at:action_line].strip() if 0 <= thought_at <= action_line else ""
        step = ReactStep(reasoning=thought, raw=text)
        if call.group(1).lower() == self.finish.lower():
            if not argument:
                raise ActionFormatError(f"{self.finish}[...] needs the answer inside the brackets")
            step.user_facing = argument
        else:
            step.tool_call = ToolCall(call.group(1), {self.argument: argument})
        return step

    def parse(self, text: str, reprint: Callable[[str], str] | None) -> ParseOutcome:
        problems: list[str] = []
        try:
            return ParseOutcome(self.parse_strict(text), "clean")
        except ActionFormatError as exc:
            problems.append(f"parse: {exc}")
        if reprint is not None:
            try:
                return ParseOutcome(self.parse_strict(reprint(text)), "reprint", tuple(problems))
            except Exception as exc:  # a reprint may fail in any way a model call can
                problems.append(f"reprint: {exc}")
        return ParseOutcome(error_step("; ".join(problems), raw=text), "error", tuple(problems))

    def reprint_request(self, bad: str) -> str:
        prompt = self.reprint_prompt or REPRINT
        return template(prompt, name="reprint").render(response=bad)

    def observation(self, tool: str, ok: bool, content: str) -> str:
        return f"Observation ({tool}{'' if ok else ', error'}): {content}"

    def compact(self, step: ReactStep, *, section_chars: int, parameter_chars: int, max_parameters: int) -> str:
        thought = f"Thought: {clip(step.reasoning, section_chars)}\n"
        if step.tool_call is None:
            return f"{thought}Action: {self.finish}[{clip(step.user_facing, section_chars)}]"
        argument = step.tool_call.parameters.get(self.argument, "")
        return f"{thought}Action: {step.tool_call.name}[{clip(argument, parameter_chars)}]"

    def parameter_hint(self, parameter: str) -> str:
        return "write the argument inside the brackets: Action: Tool[argument]"

    def section_stream(self, throttle_s: float) -> SectionStream | None:
        return None
