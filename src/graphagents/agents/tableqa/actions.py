"""MACT's planner protocol: ``Thought`` + one ``Action``, parsed, normalised and voted on.

A planner step reads like MACT's prompts::

    Thought 2: I need the budget of the department with the most employees.
    Action 2: Operate[sort df by num_employees descending and keep the first row]

Kinds: ``Retrieve[instruction]`` and ``Operate[instruction]`` go to the coder, ``Calculate[expr]``
to the safe evaluator, ``Finish[answer]`` ends the question (several values separated by ``|``),
``Search[query]`` is MACT's optional Wikipedia tool (no backend ships: no network here).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["ACTION_KINDS", "Action", "ActionParseError", "majority", "parse_action", "split_answer"]

ActionKind = Literal["Retrieve", "Operate", "Calculate", "Finish", "Search"]
ACTION_KINDS: tuple[ActionKind, ...] = ("Retrieve", "Operate", "Calculate", "Finish", "Search")
_KIND_BY_LOWER = {k.lower(): k for k in ACTION_KINDS}

_ACTION = re.compile(r"^\s*\**\s*action\s*\d*\s*\**\s*:\s*\**\s*(.+)$", re.IGNORECASE | re.MULTILINE)
_THOUGHT = re.compile(r"^\s*\**\s*thought\s*\d*\s*\**\s*:\s*\**\s*(.*)$", re.IGNORECASE | re.MULTILINE)
_CALL = re.compile(r"^\s*`?\s*(\w+)\s*\[(.*)\]\s*`?\s*\.?\s*$", re.DOTALL)


class ActionParseError(ValueError):
    """The planner's text holds no action we can run; the message says what to write instead."""


@dataclass(frozen=True)
class Action:
    kind: ActionKind
    argument: str
    thought: str = ""

    @property
    def key(self) -> tuple[str, str]:
        """What two samples must share to count as the same action in a vote."""
        if self.kind == "Finish":
            return self.kind, "|".join(sorted(_norm(v) for v in split_answer(self.argument)))
        if self.kind == "Calculate":
            return self.kind, re.sub(r"\s+", "", self.argument)
        return self.kind, _norm(self.argument)

    def render(self, step: int) -> str:
        thought = f"Thought {step}: {self.thought}\n" if self.thought else ""
        return f"{thought}Action {step}: {self.kind}[{self.argument}]"


def parse_action(text: str) -> Action:
    """The last ``Action: Kind[argument]`` in ``text`` (a bare ``Kind[argument]`` line also works)."""
    if not text or not text.strip():
        raise ActionParseError("empty planner output; write 'Thought: ...' then 'Action: Kind[argument]'")
    thoughts = _THOUGHT.findall(text)
    thought = thoughts[-1].strip() if thoughts else ""
    candidates = [m.group(1) for m in _ACTION.finditer(text)]
    if not candidates:
        candidates = [line for line in text.splitlines() if _CALL.match(line)]
    for raw in reversed(candidates):
        match = _CALL.match(raw.strip())
        if not match:
            continue
        kind = _KIND_BY_LOWER.get(match.group(1).lower())
        if kind is None:
            known = ", ".join(ACTION_KINDS)
            raise ActionParseError(f"unknown action {match.group(1)!r}; use one of {known}")
        argument = match.group(2).strip()
        if not argument:
            raise ActionParseError(f"{kind}[] needs an argument inside the brackets")
        return Action(kind, argument, thought)
    raise ActionParseError("no action found; end with a line 'Action: Kind[argument]', e.g. Finish[42]")


def split_answer(argument: str) -> list[str]:
    """Finish[a | b] -> ["a", "b"]; quotes around single values are dropped."""
    parts = [p.strip() for p in argument.split("|")] if "|" in argument else [argument.strip()]
    out = []
    for part in parts:
        if len(part) >= 2 and part[0] == part[-1] and part[0] in "'\"":
            part = part[1:-1].strip()
        if part:
            out.append(part)
    return out


def majority(actions: Sequence[Action]) -> tuple[Action, int]:
    """The most frequent action by :attr:`Action.key` (ties: the earliest) and its vote count."""
    if not actions:
        raise ValueError("no actions to vote on")
    counts = Counter(a.key for a in actions)
    best = max(counts.values())
    winner = next(a for a in actions if counts[a.key] == best)
    return winner, best


def _norm(text: str) -> str:
    text = text.lower().strip().strip("'\"`")
    text = re.sub(r"[^\w\s.%-]", " ", text)
    return re.sub(r"\s+", " ", text).strip()
