"""The oracle that ``eval --llm oracle`` uses: a function-backed chat model that knows the gold.

The oracle knows each question's gold answer and still goes through the real pipeline: one
Retrieve (the coder writes pandas code that runs in the sandbox and becomes an intermediate
table), then Finish. With gold rows (defog) the coder's code rebuilds them as a table and the
planner finishes with ``Finish[df]``. Anything below 100% is a bug in parsing, chaining, answer
extraction or scoring, not in a model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage

from graphagents.testing import FunctionChatModel

__all__ = ["OracleGold", "gold_mapping", "oracle_model"]

_PLANNER_QUESTION = re.compile(r"^Question: (.*)$", re.M)
_CODER_QUESTION = re.compile(r'^# 질문: "(.*)"$', re.M)


def _key(question: str) -> str:
    return " ".join(question.split()).casefold()


class OracleGold:
    """Gold per question: answer strings, or rows (a table answer)."""

    def __init__(self) -> None:
        self.answers: dict[str, list[str]] = {}
        self.rows: dict[str, list[list[Any]]] = {}

    def add(self, question: str, *, answers: Sequence[str] = (), rows: Sequence[Sequence[Any]] | None = None) -> None:
        if rows is not None:
            self.rows[_key(question)] = [list(r) for r in rows]
        else:
            self.answers[_key(question)] = list(answers)


def oracle_model(gold: OracleGold) -> FunctionChatModel:
    def reply(messages: list[BaseMessage]) -> str:
        text = "\n".join(str(m.content) for m in messages)
        if any(isinstance(m, SystemMessage) for m in messages):  # the coder
            question = _match(_CODER_QUESTION, text)
            rows = gold.rows.get(_key(question))
            if rows is not None:
                return f"```python\nnew_table = pd.DataFrame({_literal(rows)})\n```"
            return "```python\nnew_table = df_orig_1.head(3)\n```"
        question = _match(_PLANNER_QUESTION, text)
        if "Observation 1:" not in text:
            return "Thought 1: I look at the table first.\nAction 1: Retrieve[the first rows of df_orig_1]"
        if _key(question) in gold.rows:
            return "Thought 2: The working table is the answer.\nAction 2: Finish[df]"
        answers = gold.answers.get(_key(question), ["unknown"])
        return f"Thought 2: I know the answer.\nAction 2: Finish[{' | '.join(answers)}]"

    return FunctionChatModel(function=reply)


def _match(pattern: re.Pattern[str], text: str) -> str:
    found = pattern.findall(text)
    return found[-1] if found else ""


def _literal(rows: Sequence[Sequence[Any]]) -> str:
    """Rows as a Python literal the sandbox accepts (plain values only)."""
    return repr([[_plain(v) for v in row] for row in rows])


def _plain(value: Any) -> Any:
    from .scoring import plain

    value = plain(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def gold_mapping(items: Mapping[str, Sequence[str]]) -> OracleGold:
    gold = OracleGold()
    for question, answers in items.items():
        gold.add(question, answers=answers)
    return gold
