from __future__ import annotations

import pytest

from graphagents.agents.tableqa.metrics import (
    answer_strings,
    denotation_match,
    exact_match,
    normalize,
    partial_match,
)


@pytest.mark.parametrize(
    ("gold", "pred", "ok"),
    [
        (["8"], ["8.0"], True),
        (["8"], ["8.5"], False),
        (["Joe Wolfinger"], ["joe wolfinger"], True),
        (["Sébastien Bourdais"], ["Sebastien Bourdais"], True),
        (["Canada"], ["Canada (CAN)"], True),
        (["Canada"], ["Canada[1]"], True),
        (["2000-2005"], ["2000–2005"], True),
        (["Jack Brabham", "Mike Parkes"], ["Mike Parkes", "Jack Brabham"], True),
        (["Jack Brabham", "Mike Parkes"], ["Mike Parkes"], False),
        (["1995-07-xx"], ["1995-07-xx"], True),
        (["1995"], ["1995-xx-xx"], True),
        (["1 year"], ["1 years"], False),
        (["\"Drop Bears\""], ["Drop Bears"], True),
        (["5."], ["5"], True),
    ],
)
def test_wtq_denotation(gold: list[str], pred: list[str], ok: bool) -> None:
    assert denotation_match(gold, pred) is ok


def test_normalize() -> None:
    assert normalize("  Café  “Noir”  (band) ") == 'cafe "noir"'


def test_mact_em_and_pm() -> None:
    assert exact_match(" Defense ", "defense")
    assert exact_match("63.0", "63.005") and not exact_match("63.0", "63.02")
    assert exact_match("1,000", "1000")
    assert partial_match("John and Andy", "John Andy") == pytest.approx(2 / 3)
    assert partial_match("", "") == 1.0


def test_answer_strings() -> None:
    assert answer_strings([8.0, 2.5, "x", 3]) == ["8", "2.5", "x", "3"]
