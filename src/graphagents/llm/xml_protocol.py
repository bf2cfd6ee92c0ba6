"""The XML protocol shared by tool-using agents (text2sql note, parts 1 and 5).

A model answers with one ``<response>`` holding the sections ``reasoning``, ``observation``,
``user_facing`` and a ``tool_call`` with named parameters::

    <response>
      <reasoning>why</reasoning>
      <user_facing>what the user sees</user_facing>
      <tool_call><name>explain</name>
        <parameters><sql><![CDATA[SELECT 1]]></sql></parameters>
      </tool_call>
    </response>

Parsing never raises past :func:`parse_with_repair`: a malformed answer goes through
"ask the model to reprint" -> "partial regex parse" -> an ``error`` step.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

SECTIONS = ("reasoning", "observation", "user_facing", "tool_call")
ERROR_TOOL = "error"


class XmlProtocolError(ValueError):
    """The text is not a usable protocol response."""


@dataclass
class ToolCall:
    name: str
    parameters: dict[str, str] = field(default_factory=dict)


@dataclass
class ReactStep:
    """One parsed model turn. Mutable on purpose: policy code rewrites ``tool_call`` in place."""

    reasoning: str = ""
    observation: str = ""
    user_facing: str = ""
    tool_call: ToolCall | None = None
    raw: str = ""

    @property
    def is_error(self) -> bool:
        return self.tool_call is not None and self.tool_call.name == ERROR_TOOL


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


_CDATA = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.S)
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*?)\n\s*```\s*$", re.S)


def strip_cdata(text: str) -> str:
    return _CDATA.sub(lambda m: m.group(1), text)


def _unfence(text: str) -> str:
    m = _FENCE.match(text)
    return m.group(1) if m else text


def _element_text(el: ET.Element) -> str:
    return "".join(el.itertext()).strip()


def parse_react_xml(text: str) -> ReactStep:
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
    for tag in ("reasoning", "observation", "user_facing"):
        el = root.find(tag)
        if el is not None:
            setattr(step, tag, _element_text(el))
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


def _section(text: str, tag: str) -> str | None:
    m = re.search(rf"<{tag}(?:\s[^>]*)?>(.*?)(?:</{tag}>|$)", text, re.S)
    return strip_cdata(m.group(1)).strip() if m else None


def partial_parse(text: str) -> ReactStep:
    """Regex salvage for output that is almost XML (unclosed tags, stray ``&``, raw ``<`` in SQL)."""
    step = ReactStep(raw=text)
    for tag in ("reasoning", "observation", "user_facing"):
        setattr(step, tag, _section(text, tag) or "")
    call_m = re.search(r"<tool_call(?P<attrs>[^>]*)>(?P<body>.*?)(?:</tool_call>|$)", text, re.S)
    if call_m:
        body = call_m.group("body")
        name = _section(body, "name")
        if not name:
            attr = re.search(r'name\s*=\s*"([^"]+)"', call_m.group("attrs"))
            name = attr.group(1).strip() if attr else None
        if name:
            params: dict[str, str] = {}
            params_body = _section(body, "parameters")
            if params_body is None:
                raw_params = re.search(r"<parameters>(.*)", body, re.S)
                params_body = raw_params.group(1) if raw_params else ""
            for pm in re.finditer(r"<([A-Za-z_][\w-]*)>(.*?)</\1>", params_body or "", re.S):
                params[pm.group(1)] = strip_cdata(pm.group(2)).strip()
            step.tool_call = ToolCall(name=name, parameters=params)
    if step.tool_call is None and not step.user_facing:
        raise XmlProtocolError("no tool_call name and no user_facing text could be recovered")
    return step


REPRINT_PROMPT = (
    "The following response is malformed and cannot be parsed as XML.\n"
    "Reprint it as ONE valid <response> element with the sections reasoning, user_facing and "
    "tool_call (name + parameters). Wrap SQL and any text containing <, > or & in CDATA. "
    "Keep the content; return only the XML.\n\nMalformed response:\n{response}"
)


def error_step(message: str, raw: str = "") -> ReactStep:
    return ReactStep(raw=raw, tool_call=ToolCall(name=ERROR_TOOL, parameters={"message": message}))


def parse_with_repair(text: str, reprint: Callable[[str], str] | None = None) -> ParseOutcome:
    """Clean parse -> model reprint -> partial parse -> error step. Never raises."""
    problems: list[str] = []
    try:
        return ParseOutcome(parse_react_xml(text), "clean")
    except XmlProtocolError as exc:
        problems.append(f"parse: {exc}")
    if reprint is not None:
        try:
            return ParseOutcome(parse_react_xml(reprint(text)), "reprint", tuple(problems))
        except Exception as exc:  # a reprint may fail in any way a model call can
            problems.append(f"reprint: {exc}")
    try:
        return ParseOutcome(partial_parse(text), "partial", tuple(problems))
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
    *, reasoning: str = "", user_facing: str = "", tool: str | None = None, parameters: dict[str, str] | None = None
) -> str:
    """Build a protocol response: used by offline brains and oracle models so they speak it too."""
    parts = ["<response>"]
    if reasoning:
        parts.append(f"<reasoning>{wrap_cdata(reasoning)}</reasoning>")
    if user_facing:
        parts.append(f"<user_facing>{wrap_cdata(user_facing)}</user_facing>")
    if tool:
        parts.append(render_tool_call(tool, parameters or {}))
    parts.append("</response>")
    return "".join(parts)
