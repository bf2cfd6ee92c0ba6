"""The one fallback contract of every decision point that asks a model.

When a model cannot be used (a timeout, a dropped connection, a 429 or 5xx after the client's
retries, an unusable or empty answer, the turn's deadline), the decision point takes its offline
result and calls :func:`report_degraded`: the full exception goes to the log (the only place
provider text may go), and a :class:`~graphagents.events.DegradedEvent` naming the step and a
short reason goes to the user (the CLI and the page show it). :func:`reason_of` maps an
exception to that reason without reading the exception's text.
"""

from __future__ import annotations

import logging
from typing import Any

from ..errors import ModelOutputError, TurnDeadlineExceeded
from ..events import DegradedEvent, emit
from ..privacy import loggable

log = logging.getLogger("graphagents.llm")

_MESSAGES = {
    "deadline": "이번 요청의 처리 시간이 다 되어 모델 대신 기본 규칙으로 답했어요 "
                "(the turn's time ran out; offline rules answered).",
    "timeout": "모델이 제때 응답하지 않아 기본 규칙으로 대신했어요 (the model did not answer in time).",
    "connection": "모델 서버에 연결하지 못해 기본 규칙으로 대신했어요 (the model service was unreachable).",
    "rate_limited": "모델 서버의 요청 한도에 걸려 기본 규칙으로 대신했어요 (the model service is rate limited).",
    "http_error": "모델 서버가 오류를 돌려주어 기본 규칙으로 대신했어요 (the model service returned an error).",
    "unusable": "모델의 답을 쓸 수 없어 기본 규칙으로 대신했어요 (the model's answer was unusable).",
    "empty": "모델이 빈 답을 보내 기본 규칙으로 대신했어요 (the model's answer was empty).",
    "error": "모델 호출에 실패해 기본 규칙으로 대신했어요 (the model call failed).",
}


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def reason_of(exc: BaseException | None) -> str:
    """A short reason code for an exception behind a fallback (its class and status, never its text)."""
    seen = 0
    while exc is not None and seen < 5:
        if isinstance(exc, TurnDeadlineExceeded):
            return "deadline"
        names = {cls.__name__ for cls in type(exc).__mro__}
        if names & {"APITimeoutError", "TimeoutException", "TimeoutError", "ReadTimeout", "ConnectTimeout"}:
            return "timeout"
        status = _status(exc)
        if status == 429 or "RateLimitError" in names:
            return "rate_limited"
        if status is not None and status >= 400:
            return "http_error"
        if names & {"APIConnectionError", "ConnectError", "RemoteProtocolError", "ConnectionError"}:
            return "connection"
        if isinstance(exc, ModelOutputError | ValueError) or "ValidationError" in names:
            return "unusable"
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return "error"


def degraded_event(step: str, reason: str) -> DegradedEvent:
    return DegradedEvent(step, reason, _MESSAGES.get(reason, _MESSAGES["error"]))


def report_degraded(step: str, exc: BaseException | None = None, *, reason: str | None = None) -> DegradedEvent:
    """Log why ``step`` fell back (with the provider's text) and tell the user (without it)."""
    code = reason or reason_of(exc)
    if exc is None:
        log.warning("model step %s fell back to its offline result: %s", step, code)
    else:
        log.warning("model step %s fell back to its offline result (%s): %s: %s", step, code,
                    type(exc).__name__, loggable(str(exc)))
    event = degraded_event(step, code)
    emit(event)
    return event


PROVIDER_REASONS = frozenset({"timeout", "connection", "rate_limited", "http_error", "deadline"})


def is_provider_failure(exc: BaseException) -> bool:
    """The model service failed (not the answer, not our code): its text is the provider's."""
    return reason_of(exc) in PROVIDER_REASONS


def fallback_reason(exc: BaseException) -> str:
    """What a decision log may say about a fallback's cause: the reason code and, for an unusable
    answer (our own parser's words, no provider text), the problem."""
    code = reason_of(exc)
    if code == "unusable" and isinstance(exc, ModelOutputError | ValueError):
        return f"unusable: {' '.join(str(exc).split())[:200]}"
    return code


def with_temperature(model: Any, temperature: float) -> Any:
    """``model`` set to sample at ``temperature`` when it has that setting (LangChain's provider
    models do); other models (scripted, local) as they are."""
    fields = getattr(type(model), "model_fields", {})
    if "temperature" not in fields or getattr(model, "temperature", None) == temperature:
        return model
    return model.model_copy(update={"temperature": temperature})
