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

from graphagents.llm.limits import MAX_OUTPUT_CHARS

__all__ = [
    "ACTION_KINDS", "MAX_PLANNER_CHARS", "Action", "ActionParseError", "majority", "parse_action", "split_answer",
]

ActionKind = Literal["Retrieve", "Operate", "Calculate", "Finish", "Search"]
ACTION_KINDS: tuple[ActionKind, ...] = ("Retrieve", "Operate", "Calculate", "Finish", "Search")
_KIND_BY_LOWER = {k.lower(): k for k in ACTION_KINDS}

MAX_PLANNER_CHARS = MAX_OUTPUT_CHARS
"""Longest planner turn parsed; a longer one is refused before any parsing (issue 26: a regex
over 30,000 spaces held the GIL for 35 s)."""

_NAME = re.compile(r"\w+")  # one call, anchored at a known offset: linear in the name's length
_STARS_AND_SPACE = "*"


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
    """The last ``Action: Kind[argument]`` in ``text`` (a bare ``Kind[argument]`` line also works).

    One pass over the lines with string methods (no regex that can backtrack over whitespace), on
    at most :data:`MAX_PLANNER_CHARS` characters: the work is linear in the text's length."""
    if len(text) > MAX_PLANNER_CHARS:
        raise ActionParseError(f"the planner's answer is {len(text):,} characters long; the limit is "
                               f"{MAX_PLANNER_CHARS:,}: write one short Thought and one Action")
    if not text or not text.strip():
        raise ActionParseError("empty planner output; write 'Thought: ...' then 'Action: Kind[argument]'")
    lines = text.splitlines()
    thoughts = [t for t in (_labelled(line, "thought") for line in lines) if t is not None]
    thought = thoughts[-1].strip() if thoughts else ""
    candidates = [a for a in (_labelled(line, "action") for line in lines) if a]
    if not candidates:
        candidates = [line for line in lines if _call(line) is not None]
    for raw in reversed(candidates):
        call = _call(raw)
        if call is None:
            continue
        name, argument = call
        kind = _KIND_BY_LOWER.get(name.lower())
        if kind is None:
            known = ", ".join(ACTION_KINDS)
            raise ActionParseError(f"unknown action {name[:40]!r}; use one of {known}")
        argument = argument.strip()
        if not argument:
            raise ActionParseError(f"{kind}[] needs an argument inside the brackets")
        return Action(kind, argument, thought)
    raise ActionParseError("no action found; end with a line 'Action: Kind[argument]', e.g. Finish[42]")


def _skip_marks(text: str) -> str:
    """``text`` without leading whitespace and markdown bold stars ("** Action" -> "Action")."""
    return text.lstrip().lstrip(_STARS_AND_SPACE).lstrip()


def _labelled(line: str, label: str) -> str | None:
    """What follows ``Label n:`` (optionally in ``**bold**``) on ``line``, or None when the line
    has no such label. The old pattern (adjacent ``\\s*`` runs around optional stars) backtracked
    quadratically on long whitespace; this reads each character a bounded number of times."""
    rest = _skip_marks(line)
    if rest[: len(label)].lower() != label:
        return None
    rest = rest[len(label):].lstrip().lstrip("0123456789")
    rest = _skip_marks(rest)
    if not rest.startswith(":"):
        return None
    value = _skip_marks(rest[1:])
    return value if value.strip() or label == "thought" else None


def _call(raw: str) -> tuple[str, str] | None:
    """``Kind[argument]`` (in backticks, with a trailing full stop allowed) -> (kind, argument)."""
    text = raw.strip()
    if text.startswith("`"):
        text = text[1:].lstrip()
    name = _NAME.match(text)
    if name is None:
        return None
    rest = text[name.end():].lstrip()
    if not rest.startswith("["):
        return None
    tail = rest.rstrip()
    tail = tail[:-1].rstrip() if tail.endswith(".") else tail
    tail = tail[:-1].rstrip() if tail.endswith("`") else tail
    if not tail.endswith("]") or len(tail) < 2:
        return None
    return name.group(0), tail[1:-1]


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
