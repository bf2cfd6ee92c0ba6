"""Tools a loop can run, and the one function that runs them: errors become observations.

Every tool is ``fn(parameters, ctx) -> ToolResult``. :meth:`ToolRegistry.execute` never raises
for a problem the model caused or can work around: an unknown tool, a missing parameter, a
:class:`ToolError` the tool raised on purpose or an unexpected failure all come back as a failed
``ToolResult`` whose content says what went wrong and how to fix it (the idea of LangGraph
``ToolNode``'s error template). Only LangGraph's control flow (``interrupt()``) passes through.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from langgraph.errors import GraphBubbleUp

log = logging.getLogger("graphagents.toolloop")

Ctx = TypeVar("Ctx")

ERROR_TEMPLATE = "{message}\nHow to fix: {fix}"
"""How a failed call reads to the model: what went wrong, then what to do about it."""


@dataclass(frozen=True)
class ToolResult:
    """``content`` goes back to the model; ``summary`` and ``data`` go to the event panel.

    Agents subclass it (frozen, fields with defaults) to carry typed payloads, e.g. text2sql's SQL
    and result table; pass the subclass as ``ToolRegistry(result_type=...)``."""

    ok: bool
    content: str
    summary: str
    data: dict[str, Any] = field(default_factory=dict)


class ToolError(Exception):
    """Raised by a tool for a failure the model can fix; the loop sends it back as an observation.

    ``fix`` tells the model what to do differently (``"give column as table.column"``)."""

    def __init__(self, message: str, *, fix: str = "", data: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix
        self.data = dict(data or {})


def error_content(message: str, fix: str = "") -> str:
    return ERROR_TEMPLATE.format(message=message, fix=fix) if fix else message


def error_summary(message: str) -> str:
    return message.splitlines()[0][:200] if message else ""


@dataclass(frozen=True)
class Tool(Generic[Ctx]):
    name: str
    fn: Callable[[dict[str, str], Ctx], ToolResult]
    required: tuple[str, ...] = ()
    description: str = ""


def _plain_hint(parameter: str) -> str:
    return f"give the parameter {parameter!r}"


class ToolRegistry(Generic[Ctx]):
    """Tools by name. ``parameter_hint`` says, in the protocol's terms, how to pass a parameter
    (the XML protocol: ``put <sql>...</sql> inside <parameters>``)."""

    def __init__(
        self,
        tools: Iterable[Tool[Ctx]],
        *,
        result_type: type[ToolResult] = ToolResult,
        parameter_hint: Callable[[str], str] = _plain_hint,
    ) -> None:
        self._tools: dict[str, Tool[Ctx]] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ValueError(f"two tools are named {tool.name!r}")
            self._tools[tool.name] = tool
        self.result_type = result_type
        self.parameter_hint = parameter_hint

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __getitem__(self, name: str) -> Tool[Ctx]:
        return self._tools[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def get(self, name: str) -> Tool[Ctx] | None:
        return self._tools.get(name)

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def failure(self, message: str, *, fix: str = "", data: Mapping[str, Any] | None = None) -> ToolResult:
        return self.result_type(False, error_content(message, fix), error_summary(message), dict(data or {}))

    def execute(self, name: str, parameters: Mapping[str, str], ctx: Ctx) -> ToolResult:
        tool = self._tools.get(name)
        if tool is None:
            return self.failure(f"unknown tool {name!r}", fix=f"call one of: {', '.join(self._tools)}")
        missing = [p for p in tool.required if not (parameters.get(p) or "").strip()]
        if missing:
            return self.failure(f"{name} needs the parameter {missing[0]!r}", fix=self.parameter_hint(missing[0]))
        try:
            return tool.fn(dict(parameters), ctx)
        except ToolError as exc:
            return self.failure(exc.message, fix=exc.fix, data=exc.data)
        except GraphBubbleUp:
            raise
        except Exception as exc:  # a tool bug must reach the model as an error, not end the session
            from ..llm.degrade import is_provider_failure, report_degraded

            if is_provider_failure(exc):  # a model behind the tool failed: its text goes to the log only
                event = report_degraded(name, exc)
                return self.failure(f"{name} failed: the model behind it could not be used ({event.reason})",
                                    fix="try again later, or a call that needs no model")
            log.exception("tool %s failed", name)
            return self.failure(f"{name} failed: {type(exc).__name__}: {exc}", fix="try a different call")
