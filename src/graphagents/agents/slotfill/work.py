"""The working copy of a conversation's state for one turn.

Its fields are the state keys of ``SlotfillState``, name for name, so reading the state in and
writing it back are one loop each and a new key cannot be forgotten in one direction.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any


@dataclass
class Work:
    """A mutable copy of the state for one turn; ``to_state()`` turns it back into updates."""

    stage_id: str = ""
    slots: dict[str, Any] = field(default_factory=dict)
    confirmed_groups: list[str] = field(default_factory=list)
    stage_visit_count: dict[str, int] = field(default_factory=dict)
    slot_retries: dict[str, int] = field(default_factory=dict)
    correction_context: dict[str, Any] = field(default_factory=dict)
    stats: dict[str, int] = field(default_factory=dict)
    previous_stage_id: str | None = None
    offer: dict[str, Any] | None = None
    handoff_declined: list[str] = field(default_factory=list)
    volunteered: list[str] = field(default_factory=list)
    profile: dict[str, Any] = field(default_factory=dict)
    status: str = "active"
    question: str = ""
    base_question: str = ""
    reply: str = ""
    last_intent: str = ""
    notices: list[str] = field(default_factory=list, metadata={"transient": True})
    """Sentences said before the next question this turn (corrections applied, reasons); never stored."""

    @classmethod
    def from_state(cls, state: Mapping[str, Any], start: str) -> Work:
        values = {f.name: copy.deepcopy(state[f.name]) for f in _stored() if state.get(f.name) is not None}
        w = cls(**values)
        w.stage_id = w.stage_id or start
        return w

    def to_state(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in _stored()}

    def bump(self, stat: str, n: int = 1) -> None:
        self.stats[stat] = self.stats.get(stat, 0) + n

    def confirm(self, group: str) -> None:
        if group not in self.confirmed_groups:
            self.confirmed_groups.append(group)

    def unconfirm(self, group: str | None) -> None:
        if group in self.confirmed_groups:
            self.confirmed_groups.remove(group)


def _stored() -> list[Any]:
    return [f for f in fields(Work) if not f.metadata.get("transient")]
