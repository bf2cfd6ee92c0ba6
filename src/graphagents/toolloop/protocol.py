"""How a model turn becomes a step, and how a tool result goes back: the loop's protocol hook.

The loop only needs what :class:`TurnProtocol` says. :class:`XmlTurnProtocol` is the text2sql
note's XML protocol with its sections, reprint prompt and format note as parameters;
:mod:`.action` is a MACT-style ``Action[argument]`` protocol for planners that do not speak XML.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from graphagents.llm.xml_protocol import (
    REPRINT_PROMPT,
    TEXT_SECTIONS,
    ParseOutcome,
    ReactStep,
    parse_with_repair,
    render_observation,
    render_response,
    reprint_request,
)
from graphagents.llm.xml_stream import SectionDelta, StreamingXmlSectionsExtractor


class SectionStream(Protocol):
    """Turns streamed chunks into section text as it arrives (for token events)."""

    def feed(self, chunk: str) -> list[SectionDelta]: ...
    def flush(self) -> list[SectionDelta]: ...


class TurnProtocol(Protocol):
    @property
    def name(self) -> str:
        """Used in event names: a repaired turn is a ``{name}_repair`` decision."""

    @property
    def format_note(self) -> str:
        """Sent back as an error observation when a turn could not be parsed at all."""

    @property
    def reprint_prompt(self) -> str | None:
        """The template (``{{response}}``) asking the model to reprint a malformed turn; None: never ask."""

    def parse(self, text: str, reprint: Callable[[str], str] | None) -> ParseOutcome: ...

    def reprint_request(self, bad: str) -> str: ...

    def observation(self, tool: str, ok: bool, content: str) -> str: ...

    def compact(self, step: ReactStep, *, section_chars: int, parameter_chars: int, max_parameters: int) -> str:
        """The turn re-rendered with every section and parameter clipped (for the transcript)."""

    def parameter_hint(self, parameter: str) -> str: ...

    def section_stream(self, throttle_s: float) -> SectionStream | None: ...


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…[{len(text) - limit:,} more characters not kept]"


@dataclass(frozen=True)
class XmlTurnProtocol:
    """The XML protocol (``<response>`` with sections and a ``<tool_call>``), parameterised."""

    sections: Sequence[str] = TEXT_SECTIONS
    stream_sections: Sequence[str] = ("reasoning", "user_facing")
    reprint_prompt: str | None = REPRINT_PROMPT
    format_note: str = (
        "Your answer could not be parsed. Reply with exactly one <response> element holding "
        "reasoning, user_facing and one tool_call; wrap parameter values in CDATA."
    )
    name: str = "xml"

    def parse(self, text: str, reprint: Callable[[str], str] | None) -> ParseOutcome:
        return parse_with_repair(text, reprint, sections=self.sections)

    def reprint_request(self, bad: str) -> str:
        return reprint_request(bad, self.reprint_prompt or REPRINT_PROMPT)

    def observation(self, tool: str, ok: bool, content: str) -> str:
        return render_observation(tool, ok, content)

    def compact(self, step: ReactStep, *, section_chars: int, parameter_chars: int, max_parameters: int) -> str:
        call = step.tool_call
        params = dict(list((call.parameters if call else {}).items())[:max_parameters])
        return render_response(
            reasoning=clip(step.reasoning, section_chars),
            user_facing=clip(step.user_facing, section_chars),
            tool=call.name if call else None,
            parameters={k: clip(v, parameter_chars) for k, v in params.items()},
            sections={k: clip(v, section_chars) for k, v in step.extra.items()},
        )

    def parameter_hint(self, parameter: str) -> str:
        return f"put <{parameter}>...</{parameter}> inside <parameters>"

    def section_stream(self, throttle_s: float) -> SectionStream | None:
        if not self.stream_sections:
            return None
        return StreamingXmlSectionsExtractor(sections=self.stream_sections, throttle_s=throttle_s)
