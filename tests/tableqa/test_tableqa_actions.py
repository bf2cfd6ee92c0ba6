from __future__ import annotations

import pytest

from graphagents.agents.tableqa.actions import Action, ActionParseError, majority, parse_action, split_answer
from graphagents.agents.tableqa.calculate import CalculationError, calculate, format_number


@pytest.mark.parametrize(
    ("text", "kind", "argument"),
    [
        ("Thought 1: look.\nAction 1: Retrieve[rows where budget > 100]", "Retrieve", "rows where budget > 100"),
        ("Action: operate[sort df by x]", "Operate", "sort df by x"),
        ("**Thought 2:** sum\n**Action 2:** Calculate[(3 + 4) * 2]", "Calculate", "(3 + 4) * 2"),
        ("Thought: done\nAction 3: Finish[Defense | 439.3]", "Finish", "Defense | 439.3"),
        ("I think so.\nFinish[42]", "Finish", "42"),
        ("Action 1: Retrieve[a]\nObservation 1: x\nAction 2: Finish[b [c]]", "Finish", "b [c]"),
    ],
)
def test_parse_action(text: str, kind: str, argument: str) -> None:
    action = parse_action(text)
    assert (action.kind, action.argument) == (kind, argument)


def test_thought_is_kept() -> None:
    assert parse_action("Thought 1: the biggest one.\nAction 1: Finish[x]").thought == "the biggest one."


@pytest.mark.parametrize(
    ("text", "words"),
    [("", "empty"), ("Action: Jump[x]", "unknown action 'Jump'"), ("Action: Finish[]", "needs an argument"),
     ("just prose", "no action found")],
)
def test_parse_errors_say_what_to_write(text: str, words: str) -> None:
    with pytest.raises(ActionParseError, match=words):
        parse_action(text)


def test_majority_votes_on_normalised_actions() -> None:
    votes = [Action("Finish", "Defense"), Action("Finish", " defense "), Action("Retrieve", "x")]
    winner, count = majority(votes)
    assert winner.kind == "Finish" and count == 2
    tie = [Action("Retrieve", "a"), Action("Operate", "b")]
    assert majority(tie)[0].argument == "a"  # ties: the earliest
    order = [Action("Finish", "a | b"), Action("Finish", "b|a")]
    assert majority(order)[1] == 2  # answer sets, not strings


def test_split_answer() -> None:
    assert split_answer("a | 'b' | ") == ["a", "b"]
    assert split_answer("Lompoc, CA") == ["Lompoc, CA"]


@pytest.mark.parametrize(
    ("expr", "value"),
    [("1 + 2 * 3", 7), ("(1234 - 567) / 567 * 100", (1234 - 567) / 567 * 100), ("$1,234 + 6", 1240),
     ("25%", 0.25), ("max(3, 9, 4)", 9), ("mean(2, 4)", 3), ("round(2.345, 2)", 2.35), ("2 ** 10", 1024),
     ("-(3)", -3), ("sum([1, 2, 3])", 6), ("12 × 2 ÷ 4", 6)],
)
def test_calculate(expr: str, value: float) -> None:
    assert calculate(expr) == pytest.approx(value)


@pytest.mark.parametrize(
    "expr",
    ["__import__('os')", "x + 1", "().__class__", "'a' * 3", "open('f')", "2 ** 1000", "1 / 0", "",
     "lambda: 1", "[1][0]", "9 ** 9 ** 9", "a.b"],
)
def test_calculate_refuses_everything_but_arithmetic(expr: str) -> None:
    with pytest.raises(CalculationError):
        calculate(expr)


def test_format_number() -> None:
    assert format_number(8.0) == "8" and format_number(0.1 + 0.2) == "0.3" and format_number(7) == "7"
