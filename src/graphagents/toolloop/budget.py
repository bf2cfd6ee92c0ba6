"""Tool-call bookkeeping of one loop run: how many calls were made, which, and what is left.

A plain dataclass for policies and nodes; in graph state it travels as a dict (``to_dict`` /
``from_dict``) so every checkpointer can store it. Agents subclass it with what their policy
reads (text2sql: explained SQL, the last SQL, the last database error).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

B = TypeVar("B", bound="Budget")


@dataclass
class Budget:
    max_calls: int = 8
    iteration: int = 0
    used_tools: list[str] = field(default_factory=list)
    parse_failures: int = 0

    @property
    def remaining_tool_calls(self) -> int:
        return max(self.max_calls - len(self.used_tools), 0)

    @property
    def exhausted(self) -> bool:
        return self.remaining_tool_calls <= 0

    def record(self, tool: str) -> None:
        """One tool call ran (whatever its outcome: a failed call still spends the budget)."""
        self.used_tools.append(tool)
        self.iteration += 1

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls: type[B], data: dict[str, Any] | None) -> B:
        return cls(**(data or {}))
