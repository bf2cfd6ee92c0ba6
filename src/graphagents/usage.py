"""What a turn cost: model calls, tokens, wall time and graph steps (cf. pydantic-ai ``RunUsage``).

The runtime attaches a :class:`UsageRecorder` as a LangChain callback to every run, so every chat
model call made in any node or subgraph is counted, whichever agent made it; tokens come from the
providers' ``usage_metadata``. ``Reply.usage`` and ``FinalEvent.usage`` carry the result, and
:class:`UsageSummary` adds turns up for evaluation reports.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler

from .errors import TurnDeadlineExceeded

__all__ = ["Usage", "UsageRecorder", "UsageSummary", "acount_http_request", "count_http_request"]


class _Call:
    """One model call's HTTP attempts (the provider client's retries included)."""

    __slots__ = ("attempts", "recorder")

    def __init__(self, recorder: UsageRecorder) -> None:
        self.recorder = recorder
        self.attempts = 0


_current_call: ContextVar[_Call | None] = ContextVar("graphagents_model_call", default=None)


_LEAST_SECONDS = 0.01


def count_http_request(request: Any = None, *_: Any) -> None:
    """An httpx request hook (the factory installs it on provider clients): one HTTP attempt of the
    model call running in this context, so a client's own retries are counted in the turn's usage.

    With a turn deadline, the attempt's timeouts (connect, each read, write, pool) are cut to the time
    the turn has left, so a stalled provider ends the call at the deadline, not a request timeout
    (times the retries) later; an attempt after the deadline fails at once."""
    call = _current_call.get()
    if call is None:
        return
    call.attempts += 1
    deadline = call.recorder.deadline
    extensions = getattr(request, "extensions", None)
    if deadline is None or not isinstance(extensions, dict):
        return
    left = max(deadline - time.monotonic(), _LEAST_SECONDS)
    timeout = extensions.get("timeout") or {}
    extensions["timeout"] = {key: left if value is None else min(float(value), left)
                             for key, value in {"connect": None, "read": None, "write": None, "pool": None,
                                                **timeout}.items()}


async def acount_http_request(*args: Any) -> None:
    count_http_request(*args)


@dataclass(frozen=True)
class Usage:
    """One turn: ``steps`` counts node runs at every level (subgraph nodes included)."""

    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms: float = 0.0
    steps: int = 0
    retries: int = 0
    """HTTP attempts beyond the first of each model call (a timeout, a dropped connection, a 429...)."""

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.model_calls + other.model_calls,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.latency_ms + other.latency_ms,
            self.steps + other.steps,
            self.retries + other.retries,
        )


class UsageRecorder(BaseCallbackHandler):
    """Counts chat/LLM calls, their token usage and HTTP retries; thread-safe, called inline (no
    executor hop, so the model call's context sees what ``on_chat_model_start`` sets).

    With a ``deadline`` (``time.monotonic()`` seconds) a model call that would start after it raises
    :class:`TurnDeadlineExceeded` (``raise_error``): the agents' decision points catch it and take
    their offline fallback."""

    run_inline = True
    ignore_chain = True
    ignore_agent = True
    ignore_retriever = True
    ignore_retry = True
    ignore_custom_event = True
    raise_error = True  # only the deadline raises on purpose (a call's start, a streamed token)

    def __init__(self, deadline: float | None = None) -> None:
        self._lock = threading.Lock()
        self.deadline = deadline
        self.model_calls = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.retries = 0

    def _start(self) -> None:
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise TurnDeadlineExceeded("the turn's time for model calls has run out")
        with self._lock:
            self.model_calls += 1
        _current_call.set(_Call(self))

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self._start()

    def on_llm_new_token(self, token: Any, **kwargs: Any) -> None:
        """A streamed answer still coming when the deadline passes is stopped there."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise TurnDeadlineExceeded("the turn's time for model calls ran out during the answer")

    def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
        self._start()

    def _finish(self) -> None:
        call = _current_call.get()
        if call is None or call.recorder is not self:
            return
        _current_call.set(None)
        if call.attempts > 1:
            with self._lock:
                self.retries += call.attempts - 1

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        self._finish()

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        self._finish()
        inputs = outputs = 0
        for generations in getattr(response, "generations", None) or []:
            # one request's usage: with ``n`` choices every generation carries the same request's
            # usage, so it is counted once per prompt, not once per choice
            for generation in generations:
                meta = getattr(getattr(generation, "message", None), "usage_metadata", None) or {}
                if meta:
                    inputs += int(meta.get("input_tokens") or 0)
                    outputs += int(meta.get("output_tokens") or 0)
                    break
        with self._lock:
            self.input_tokens += inputs
            self.output_tokens += outputs

    def usage(self, *, latency_ms: float, steps: int) -> Usage:
        with self._lock:
            return Usage(self.model_calls, self.input_tokens, self.output_tokens, round(latency_ms, 3), steps,
                         self.retries)


@dataclass
class UsageSummary:
    """Totals and per-turn figures over many turns, for ``eval`` reports: ``add`` each reply's usage,
    then ``to_dict()`` into the report."""

    turns: int = 0
    total: Usage = field(default_factory=Usage)
    latencies_ms: list[float] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)

    def add(self, usage: Usage | None) -> None:
        if usage is None:
            return
        self.turns += 1
        self.total = self.total + usage
        self.latencies_ms.append(usage.latency_ms)
        self.steps.append(usage.steps)

    def extend(self, usages: Iterable[Usage | None]) -> UsageSummary:
        for usage in usages:
            self.add(usage)
        return self

    def to_dict(self) -> dict[str, Any]:
        lat = sorted(self.latencies_ms)
        return {
            "turns": self.turns,
            "model_calls": self.total.model_calls,
            "input_tokens": self.total.input_tokens,
            "output_tokens": self.total.output_tokens,
            "retries": self.total.retries,
            "model_calls_per_turn": round(self.total.model_calls / self.turns, 3) if self.turns else 0.0,
            "latency_ms_p50": round(_percentile(lat, 0.5), 3),
            "latency_ms_p95": round(_percentile(lat, 0.95), 3),
            "latency_ms_mean": round(statistics.fmean(lat), 3) if lat else 0.0,
            "steps_per_turn": round(statistics.fmean(self.steps), 3) if self.steps else 0.0,
            "steps_max": max(self.steps, default=0),
        }


def _percentile(ordered: list[float], q: float) -> float:
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]
