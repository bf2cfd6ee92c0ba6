"""Issue 26 item 1: every tableqa parser that sees model output or user text is bounded and linear.

A regex that backtracks (``^\\s*\\**\\s*action...`` over 16,000 spaces took 35 s) cannot be caught by
timing in a test, so these tests count: every regular-expression call the parsers make is
recorded with the length of the text it was handed. 1 MB of each whitespace class must be refused
before any pattern sees it, and an input at the cap may only go through anchored single-token
matches whose total input is bounded by the text's own length (the old parsers ran unanchored
``finditer``/``findall`` over the whole reply: those calls fail these tests).
"""

from __future__ import annotations

import re
import types
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

from graphagents.agents.tableqa import actions, coder, metrics, planner
from graphagents.agents.tableqa.actions import MAX_PLANNER_CHARS, ActionParseError, parse_action
from graphagents.agents.tableqa.offline import MAX_QUESTION_CHARS, OfflineBrain
from graphagents.agents.tableqa.offline import korean as offline_korean
from graphagents.agents.tableqa.offline import linking as offline_linking
from graphagents.agents.tableqa.offline import rules as offline_rules
from graphagents.agents.tableqa.offline.rules import Decline
from graphagents.testing import FunctionChatModel

MB = 1_000_000
WHITESPACE = {
    "space": " ",
    "tab": "\t",
    "newline": "\n",
    "mixed_lines": "\t" * 50 + " " * 49 + "\n",
    "ideographic": "\u3000",
    "nbsp": "\xa0",
}
TAIL = "x\nAction: Finish[1]"
_METHODS = ("match", "fullmatch", "search", "sub", "subn", "findall", "finditer", "split")


class _Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, int]] = []  # (pattern, method, characters handed over)

    def note(self, pattern: str, method: str, args: tuple[Any, ...]) -> None:
        text = next((a for a in args if isinstance(a, str) and a is not pattern), "")
        self.calls.append((pattern, method, len(text)))


class _Pattern:
    def __init__(self, pattern: re.Pattern[str], recorder: _Recorder) -> None:
        self._pattern, self._recorder = pattern, recorder

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._pattern, name)
        if name not in _METHODS:
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            self._recorder.note(self._pattern.pattern, name, args)
            return attr(*args, **kwargs)

        return call


def _re_proxy(recorder: _Recorder) -> types.SimpleNamespace:
    def wrap(name: str) -> Any:
        def call(pattern: Any, *args: Any, **kwargs: Any) -> Any:
            recorder.note(getattr(pattern, "pattern", pattern), name, args)
            return getattr(re, name)(pattern, *args, **kwargs)

        return call

    proxy = types.SimpleNamespace(**{k: getattr(re, k) for k in dir(re) if not k.startswith("__")})
    for name in _METHODS:
        setattr(proxy, name, wrap(name))
    proxy.compile = lambda *a, **k: _Pattern(re.compile(*a, **k), recorder)
    return proxy


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Recorder]:
    """Every regex call of the tableqa modules that read model output or user text, recorded."""
    rec = _Recorder()
    for module in (actions, coder, metrics, planner, offline_rules, offline_linking, offline_korean):
        if hasattr(module, "re"):
            monkeypatch.setattr(module, "re", _re_proxy(rec))
        for name, value in list(vars(module).items()):
            if isinstance(value, re.Pattern):
                monkeypatch.setattr(module, name, _Pattern(value, rec))
    import graphagents.agents.tableqa.offline as offline_package

    monkeypatch.setattr(offline_package, "re", _re_proxy(rec))
    yield rec


def _megabyte(ws: str) -> str:
    return (ws * (MB // len(ws) + 1))[:MB] + TAIL


def _at_cap(ws: str) -> str:
    body = MAX_PLANNER_CHARS - len(TAIL) - 1
    return (ws * (body // len(ws) + 1))[:body] + TAIL


@pytest.mark.parametrize("ws", WHITESPACE.values(), ids=WHITESPACE.keys())
def test_a_megabyte_of_whitespace_is_refused_before_any_pattern_reads_it(ws: str, recorder: _Recorder) -> None:
    text = _megabyte(ws)
    with pytest.raises(ActionParseError, match="limit is"):
        parse_action(text)
    assert coder.extract_code(text) == ""
    assert metrics.normalize(text) == "x action: finish[1]"
    model = FunctionChatModel(function=lambda messages: text)
    choice = planner.choose_action(model, "question", samples=3)
    assert choice.action is None and "limit is" in choice.error and choice.raw == ""
    plan = OfflineBrain()._plan(text, ["t"], [pd.DataFrame({"a": [1]})])
    assert isinstance(plan, Decline) and str(MAX_QUESTION_CHARS) in plan.reason
    assert recorder.calls == []


@pytest.mark.parametrize("ws", WHITESPACE.values(), ids=WHITESPACE.keys())
def test_the_largest_accepted_answer_goes_through_anchored_token_matches_only(ws: str, recorder: _Recorder) -> None:
    text = _at_cap(ws)
    action = parse_action(text)
    assert (action.kind, action.argument) == ("Finish", "1")
    # only \w+ anchored at a known offset: each call reads at most its own line, the whole at most the text
    assert {(p, m) for p, m, _ in recorder.calls} <= {(r"\w+", "match")}
    assert sum(n for _, _, n in recorder.calls) <= len(text)
    assert len(recorder.calls) <= text.count("\n") + 2


@pytest.mark.parametrize("ws", WHITESPACE.values(), ids=WHITESPACE.keys())
def test_an_unclosed_fence_over_blank_lines_is_read_without_patterns(ws: str, recorder: _Recorder) -> None:
    text = "```python\n" + (ws * MAX_PLANNER_CHARS)[: MAX_PLANNER_CHARS - 40] + "\nnew_table = df"
    assert coder.extract_code(text).endswith("new_table = df")
    assert coder.extract_code("prose\n```python\nnew_table = df\n```\nmore") == "new_table = df"
    assert recorder.calls == []


def test_the_planner_vote_skips_an_oversized_sample_and_keeps_the_good_one() -> None:
    replies = iter([" " * (MAX_PLANNER_CHARS + 1) + TAIL, "Thought: ok\nAction: Finish[7]"])
    model = FunctionChatModel(function=lambda messages: next(replies))
    choice = planner.choose_action(model, "question", samples=2)
    assert choice.action is not None and choice.action.argument == "7" and choice.votes == 1


def test_normalize_keeps_wtq_trims_below_the_bound_and_folds_above_it() -> None:
    assert metrics.normalize("Seoul [3]") == "seoul"
    long = "[" * (metrics.MAX_NORMALIZED + 1)
    assert metrics.normalize(long) == long  # no trims: the citation pattern never sees it
