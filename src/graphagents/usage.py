"""What a turn cost: model calls, tokens, wall time and graph steps (cf. pydantic-ai ``RunUsage``).

The runtime attaches a :class:`UsageRecorder` as a LangChain callback to every run, so every chat
model call made in any node or subgraph is counted, whichever agent made it; tokens come from the
providers' ``usage_metadata``. ``Reply.usage`` and ``FinalEvent.usage`` carry the result, and
:class:`UsageSummary` adds turns up for evaluation reports.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler

__all__ = ["Usage", "UsageRecorder", "UsageSummary"]


@dataclass(frozen=True)
class Usage:
    """One turn: ``steps`` counts node runs at every level (subgraph nodes included)."""

    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms: float = 0.0
    steps: int = 0

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
        )


class UsageRecorder(BaseCallbackHandler):
    """Counts chat/LLM calls and their token usage; thread-safe, called inline (no executor hop)."""

    run_inline = True
    ignore_chain = True
    ignore_agent = True
    ignore_retriever = True
    ignore_retry = True
    ignore_custom_event = True

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.model_calls = 0
        self.input_tokens = 0
        self.output_tokens = 0

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        with self._lock:
            self.model_calls += 1

    def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
        with self._lock:
            self.model_calls += 1

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        inputs = outputs = 0
        for generations in getattr(response, "generations", None) or []:
            for generation in generations:
                meta = getattr(getattr(generation, "message", None), "usage_metadata", None) or {}
                inputs += int(meta.get("input_tokens") or 0)
                outputs += int(meta.get("output_tokens") or 0)
        with self._lock:
            self.input_tokens += inputs
            self.output_tokens += outputs

    def usage(self, *, latency_ms: float, steps: int) -> Usage:
        with self._lock:
            return Usage(self.model_calls, self.input_tokens, self.output_tokens, round(latency_ms, 3), steps)


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
