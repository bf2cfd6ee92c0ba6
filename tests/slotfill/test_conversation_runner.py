"""The YAML conversation runner (graphagents.testing.conversations): it must be able to fail."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import graphagents as ga
from graphagents.testing.conversations import load_conversations, lookup, run_conversation

MakeAgent = Callable[..., ga.Agent]


def test_every_kind_of_expectation_reports_its_failure(make_agent: MakeAgent) -> None:
    wrong = {"name": "wrong", "final_state": {"status": "completed"}, "steps": [
        {"user": "안녕하세요", "bot": "없는 문장", "bot_re": "^없다$", "not_bot": "맞으신가요", "done": True,
         "state": {"stage": "greeting", "slots.customer_name": "홍길동", "slots.customer_phone": None}}]}
    result = run_conversation("wrong.yaml", wrong, make_agent)
    assert not result.ok
    # bot, bot_re, not_bot, three state paths, done, final status
    assert len(result.failures) == 8, result.failures
    assert any("state slots.customer_phone is '010-1234-5678', expected absent" in f for f in result.failures)


def test_a_passing_conversation_with_a_restart(make_agent: MakeAgent) -> None:
    profile = {"customer_name": "이서연", "customer_phone": "010-2468-1357"}
    good = {"name": "good", "session_options": {"profile": profile},
            "steps": [{"user": "안녕하세요", "state": {"slots.customer_name": "이서연", "stage": "confirm_basic_info",
                                                      "confirmed_groups": [], "slots.use_lifelong_account": None}},
                      {"restart": True},
                      {"user": "네 맞아요", "bot": "평생계좌번호", "done": False}],
            "final_state": {"status": "active", "confirmed_groups.0": "basic_info"}}
    result = run_conversation("good.yaml", good, make_agent)
    assert result.ok, result.failures
    assert result.turns == 2
    assert result.values["stats"]["turns"] == 1  # the graph's own values: the opening line is no answer


def test_lookup_walks_mappings_and_lists() -> None:
    state = {"slots": {"a": 1}, "rows": [{"id": 7}]}
    assert lookup(state, "slots.a") == 1
    assert lookup(state, "rows.0.id") == 7
    assert lookup(state, "rows.1.id") is lookup(state, "slots.b")  # the absent sentinel


@pytest.mark.parametrize(("text", "message"), [
    ("name: x\n", "needs a 'steps' list"),
    ("steps: [{user: hi, slot_was_set: {a: 1}}]\n", "unknown key 'slot_was_set'"),
    ("steps: [{bot: hi}]\n", "needs either 'user' or 'restart: true'"),
    ("outcome: completed\nsteps: []\n", "unknown key 'outcome'"),
])
def test_malformed_files_name_the_problem(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "bad.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_conversations(tmp_path)
