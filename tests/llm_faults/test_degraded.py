"""Issue 24, defect 10: a fallback is never silent. ``report_degraded`` logs the provider's text and
emits a ``degraded`` event without it; the CLI prints it even without --verbose."""

from __future__ import annotations

import logging

import pytest

from graphagents.cli import render
from graphagents.errors import ModelOutputError, TurnDeadlineExceeded
from graphagents.events import DegradedEvent
from graphagents.llm.degrade import is_provider_failure, reason_of, report_degraded


class FakeStatusError(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"Error code: {status} - secret body")
        self.status_code = status


class APITimeoutError(Exception):
    pass


@pytest.mark.parametrize(("exc", "reason"), [
    (FakeStatusError(500), "http_error"),
    (FakeStatusError(429), "rate_limited"),
    (APITimeoutError("timed out"), "timeout"),
    (ModelOutputError("garbage twice"), "unusable"),
    (TurnDeadlineExceeded("late"), "deadline"),
    (KeyError("x"), "error"),
])
def test_reasons_come_from_the_exception_class_not_its_text(exc: Exception, reason: str) -> None:
    assert reason_of(exc) == reason
    assert is_provider_failure(exc) == (reason in {"http_error", "rate_limited", "timeout", "deadline"})


def test_the_log_gets_the_provider_text_and_the_event_does_not(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="graphagents.llm"):
        event = report_degraded("judge", FakeStatusError(502))
    assert event == DegradedEvent("judge", "http_error", event.message)
    assert "secret body" not in str(event.to_dict()) and event.message
    assert "FakeStatusError" in caplog.text and "judge" in caplog.text  # the text itself as privacy.loggable allows


def test_the_cli_shows_degraded_without_verbose() -> None:
    with render.console.capture() as captured:
        render.LiveRenderer(verbose=False)(DegradedEvent("planner", "timeout", "모델이 제때 응답하지 않았어요"))
    assert "degraded: planner: 모델이 제때 응답하지 않았어요" in captured.get()
