"""Every conversation under slotfill/evaldata/conversations, played against the offline agent."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import graphagents as ga
from graphagents.agents.slotfill.eval import bundled_conversations
from graphagents.testing.conversations import load_conversations, run_conversation

DIALOGS = load_conversations(bundled_conversations())


def test_there_are_enough_conversations() -> None:
    assert len(DIALOGS) >= 40


@pytest.mark.parametrize(("name", "data"), DIALOGS, ids=[name.removesuffix(".yaml") for name, _ in DIALOGS])
def test_conversation(name: str, data: dict, make_agent: Callable[..., ga.Agent]) -> None:
    result = run_conversation(name, data, make_agent)
    transcript = "\n".join(f"> {u}\n{b}" for u, b in result.transcript)
    assert result.ok, "\n".join(result.failures) + "\n--- transcript ---\n" + transcript
