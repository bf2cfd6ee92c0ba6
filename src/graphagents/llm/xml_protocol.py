"""The XML protocol shared by tool-using agents (text2sql note, parts 1 and 5).

A model answers with one ``<response>`` holding text sections (by default ``reasoning``,
``observation`` and ``user_facing``) and a ``tool_call`` with named parameters::

    <response>
      <reasoning>why</reasoning>
      <user_facing>what the user sees</user_facing>
      <tool_call><name>explain</name>
        <parameters><sql><![CDATA[SELECT 1]]></sql></parameters>
      </tool_call>
    </response>

Parsing never raises past :func:`parse_with_repair`: a malformed answer goes through
"ask the model to reprint" -> "partial parse" (:mod:`.xml_salvage`, linear and never promoting
text from inside another element) -> an ``error`` step. The sections and the reprint prompt are
parameters, so an agent that is not about SQL says its own words.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..prompts import template
from .xml_salvage import Element, TagIndex, children, name_attribute, text_of

TEXT_SECTIONS = ("reasoning", "observation", "user_facing")
SECTIONS = (*TEXT_SECTIONS, "tool_call")
ERROR_TOOL = "error"
_NAMED = frozenset(TEXT_SECTIONS)


class XmlProtocolError(ValueError):
    """The text is not a usable protocol response."""


@dataclass
class ToolCall:
    name: str
    parameters: dict[str, str] = field(default_factory=dict)


@dataclass
class ReactStep:
    """One parsed model turn. Mutable on purpose: policy code rewrites ``tool_call`` in place.

    Sections other than the three named ones (an agent's own, such as ``plan``) go to ``extra``."""

    reasoning: str = ""
    observation: str = ""
    user_facing: str = ""
    tool_call: ToolCall | None = None
    raw: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def is_error(self) -> bool:
        return self.tool_call is not None and self.tool_call.name == ERROR_TOOL

    def set_section(self, name: str, text: str) -> None:
        if name in _NAMED:
            setattr(self, name, text)
        else:
            self.extra[name] = text

    def section(self, name: str) -> str:
        return str(getattr(self, name)) if name in _NAMED else self.extra.get(name, "")


RepairPath = Literal["clean", "reprint", "partial", "error"]


@dataclass(frozen=True)
class ParseOutcome:
    step: ReactStep
    path: RepairPath
    problems: tuple[str, ...] = ()


def escape_xml(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


def wrap_cdata(text: str) -> str:
    """CDATA-wrap text holding markup characters; a literal ``]]>`` is split across sections."""
    if not any(ch in text for ch in "<>&"):
        return text
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def strip_cdata(text: str) -> str:
    """The text with CDATA sections unwrapped and entities outside them decoded (linear)."""
    return text_of(text)


def _unfence(text: str) -> str:
    """The body of a Markdown code fence around the whole answer, if there is one."""
    if not (text.startswith("```") and text.endswith("```") and len(text) >= 6):
        return text
    first_line_end = text.find("\n")
    language = text[3:first_line_end].strip() if first_line_end != -1 else "?"
    if language and not language.isalpha():
        return text
    return text[first_line_end + 1 : -3].rstrip()


def _element_text(el: ET.Element) -> str:
    return "".join(el.itertext()).strip()


def parse_react_xml(text: str, sections: Sequence[str] = TEXT_SECTIONS) -> ReactStep:
    """Strict parse of one response; raises XmlProtocolError with the reason."""
    body = _unfence(text.strip())
    start, end = body.find("<response"), body.rfind("</response>")
    if start != -1 and end != -1:
        body = body[start : end + len("</response>")]
    else:
        body = f"<response>{body}</response>"
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise XmlProtocolError(f"not well-formed XML: {exc}") from None
    step = ReactStep(raw=text)
    for tag in sections:
        el = root.find(tag)
        if el is not None:
            step.set_section(tag, _element_text(el))
    call = root.find("tool_call")
    if call is not None:
        name_el = call.find("name")
        name = _element_text(name_el) if name_el is not None else call.get("name", "").strip()
        if not name:
            raise XmlProtocolError("tool_call has no <name>")
        params: dict[str, str] = {}
        params_el = call.find("parameters")
        if params_el is not None:
            for child in params_el:
                params[child.tag] = _element_text(child)
        step.tool_call = ToolCall(name=name, parameters=params)
    if step.tool_call is None and not step.user_facing:
        raise XmlProtocolError("response has neither <tool_call> nor <user_facing>")
    return step


def partial_parse(text: str, sections: Sequence[str] = TEXT_SECTIONS) -> ReactStep:
    """Salvage output that is almost XML (unclosed tags, stray ``&``, raw ``<`` in SQL).

    Only top-level elements count: a ``<tool_call>`` inside CDATA or inside another closed
    element is text, never a call. A parameter is taken only when its element is closed.
    """
    index = TagIndex(text)
    step = ReactStep(raw=text)
    top = children(index, 0, len(index.tags), len(text), boundary=(*sections, "tool_call"),
                   transparent=("response",))
    seen: set[str] = set()
    for el in top:
        if el.name in sections and el.name not in seen:
            seen.add(el.name)
            step.set_section(el.name, text_of(el.inner))
        elif el.name == "tool_call" and step.tool_call is None:
            step.tool_call = _salvage_call(index, el)
    if step.tool_call is None and not step.user_facing:
        raise XmlProtocolError("no tool_call name and no user_facing text could be recovered")
    return step


def _salvage_call(index: TagIndex, call: Element) -> ToolCall | None:
    parts = children(index, call.first, call.last, call.end, boundary=("name", "parameters"))
    name = next((text_of(p.inner) for p in parts if p.name == "name"), "") or name_attribute(call.attrs)
    if not name:
        return None
    params: dict[str, str] = {}
    for group in (p for p in parts if p.name == "parameters"):
        for child in children(index, group.first, group.last, group.end):
            if child.closed and child.name not in params:
                params[child.name] = text_of(child.inner)
        break
    return ToolCall(name=name, parameters=params)


REPRINT_PROMPT = (
    "The following response is malformed and cannot be parsed as XML.\n"
    "Reprint it as ONE valid <response> element with the sections reasoning, user_facing and "
    "tool_call (name + parameters). Wrap parameter values and any text containing <, > or & in CDATA. "
    "Keep the content; return only the XML.\n\nMalformed response:\n{{response}}"
)
"""The default reprint prompt (``{{response}}`` is the malformed answer); agents pass their own."""


def reprint_request(response: str, prompt: str = REPRINT_PROMPT) -> str:
    return template(prompt, name="reprint").render(response=response)


def error_step(message: str, raw: str = "") -> ReactStep:
    return ReactStep(raw=raw, tool_call=ToolCall(name=ERROR_TOOL, parameters={"message": message}))


def parse_with_repair(
    text: str, reprint: Callable[[str], str] | None = None, *, sections: Sequence[str] = TEXT_SECTIONS
) -> ParseOutcome:
    """Clean parse -> model reprint -> partial parse -> error step. Never raises."""
    problems: list[str] = []
    try:
        return ParseOutcome(parse_react_xml(text, sections), "clean")
    except XmlProtocolError as exc:
        problems.append(f"parse: {exc}")
    if reprint is not None:
        try:
            return ParseOutcome(parse_react_xml(reprint(text), sections), "reprint", tuple(problems))
        except Exception as exc:  # a reprint may fail in any way a model call can
            problems.append(f"reprint: {exc}")
    try:
        return ParseOutcome(partial_parse(text, sections), "partial", tuple(problems))
    except XmlProtocolError as exc:
        problems.append(f"partial: {exc}")
    return ParseOutcome(error_step("; ".join(problems), raw=text), "error", tuple(problems))


def render_observation(tool: str, ok: bool, content: str) -> str:
    """How a tool result goes back to the model."""
    status = "ok" if ok else "error"
    return f'<observation tool="{escape_xml(tool)}" status="{status}">{wrap_cdata(content)}</observation>'


def render_tool_call(name: str, parameters: dict[str, str]) -> str:
    params = "".join(f"<{k}>{wrap_cdata(v)}</{k}>" for k, v in parameters.items())
    return f"<tool_call><name>{escape_xml(name)}</name><parameters>{params}</parameters></tool_call>"


def render_response(
    *,
    reasoning: str = "",
    user_facing: str = "",
    tool: str | None = None,
    parameters: dict[str, str] | None = None,
    sections: dict[str, str] | None = None,
) -> str:
    """Build a protocol response: used by offline brains and oracle models so they speak it too."""
    parts = ["<response>"]
    if reasoning:
        parts.append(f"<reasoning>{wrap_cdata(reasoning)}</reasoning>")
    for name, value in (sections or {}).items():
        parts.append(f"<{name}>{wrap_cdata(value)}</{name}>")
    if user_facing:
        parts.append(f"<user_facing>{wrap_cdata(user_facing)}</user_facing>")
    if tool:
        parts.append(render_tool_call(tool, parameters or {}))
    parts.append("</response>")
    return "".join(parts)
