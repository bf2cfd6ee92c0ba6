"""Shared by the tableqa tests: the note's tables, a scripted planner/coder, and running a question."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage

from graphagents.agents.tableqa.tables import example_path
from graphagents.testing import FunctionChatModel

EXAMPLES = example_path("department").parent
DEPARTMENT = str(EXAMPLES / "department.csv")
MANAGEMENT = str(EXAMPLES / "management.csv")


def scripted(planner: Sequence[str], coder: Sequence[str] | Callable[[str], str]) -> FunctionChatModel:
    """A model that answers planner prompts from ``planner`` in order and coder prompts from ``coder``
    (a list in order, or a function of the coder prompt)."""
    plans, codes = list(planner), list(coder) if not callable(coder) else []

    def reply(messages: list[BaseMessage]) -> str:
        text = "\n".join(str(m.content) for m in messages)
        if any(isinstance(m, SystemMessage) for m in messages):
            if callable(coder):
                return coder(text)
            return codes.pop(0) if codes else "new_table = df"
        return plans.pop(0) if plans else "Thought: done.\nAction: Finish[unknown]"

    return FunctionChatModel(function=reply)


def _is_coder(prompt: list[BaseMessage]) -> bool:
    return any(isinstance(m, SystemMessage) for m in prompt)


def planner_prompts(model: FunctionChatModel) -> list[str]:
    return ["\n".join(str(m.content) for m in p) for p in model.prompts if not _is_coder(p)]


def coder_prompts(model: FunctionChatModel) -> list[str]:
    return ["\n".join(str(m.content) for m in p) for p in model.prompts if _is_coder(p)]


def values(reply: Any) -> list[str]:
    return list(reply.state.get("answer") or [])
