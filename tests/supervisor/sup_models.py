"""A scripted model for every supervisor role: it answers the planning, orchestration and
response prompts from the test's script and records what it was asked."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import BaseMessage

from graphagents.testing import FunctionChatModel

PLAN = "당신은 부동산 상담 서비스의 계획 담당자"
ORCHESTRATE = "당신은 실행 오케스트레이터"
RESPOND = "당신은 부동산 상담 도우미"


def plan(*teams: dict[str, Any], strategy: str = "sequential", intent: str = "market_analysis") -> str:
    return json.dumps({"intent": {"intent_type": intent, "confidence": 0.9, "entities": {}},
                       "teams": list(teams), "strategy": strategy}, ensure_ascii=False)


def decision(action: str, reasoning: str = "scripted", **more: Any) -> str:
    return json.dumps({"action": action, "reasoning": reasoning, "confidence": 0.8, **more}, ensure_ascii=False)


class Script:
    """``plans`` and ``decisions`` are replayed in order (the last one repeats); an item may be a
    callable of the prompt text or an exception to raise."""

    def __init__(self, plans: Sequence[Any], decisions: Sequence[Any] = (), reply: str = "스크립트 답변") -> None:
        self.plans, self.decisions, self.reply = list(plans), list(decisions), reply
        self.asked: dict[str, list[str]] = {"plan": [], "orchestrate": [], "respond": []}

    def _next(self, items: list[Any], kind: str, text: str) -> str:
        self.asked[kind].append(text)
        item = items[min(len(self.asked[kind]) - 1, len(items) - 1)]
        if isinstance(item, BaseException):
            raise item
        return str(item(text) if callable(item) else item)

    def __call__(self, messages: list[BaseMessage]) -> str:
        text = str(messages[0].content)
        if text.startswith(PLAN):
            return self._next(self.plans, "plan", text)
        if text.startswith(ORCHESTRATE):
            return self._next(self.decisions, "orchestrate", text)
        if text.startswith(RESPOND):
            self.asked["respond"].append(text)
            return self.reply
        raise AssertionError(f"unexpected prompt: {text[:80]!r}")


def scripted_supervisor(script: Script, **options: Any) -> Any:
    import graphagents as ga

    model = FunctionChatModel(function=script)
    return ga.load("supervisor", model, models={"sql": "offline"}, checkpoint_url="memory", **options)


def decisions_of(reply: Any) -> list[tuple[str, str]]:
    return [(d["action"], d["source"]) for d in reply.state["decisions"]]


def events_of(reply: Any, kind: str) -> list[Any]:
    return [e for e in reply.events if getattr(e, "kind", None) == kind]


Checker = Callable[[Any], None]
