"""graphagents.testing: function-backed and scripted models with usage, and the request-time guard."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult

import graphagents as ga
import graphagents.testing as testing
from graphagents.errors import ModelRequestsBlocked
from graphagents.events import ErrorEvent
from graphagents.testing import (
    FunctionChatModel,
    ScriptedChatModel,
    check_model_request,
    is_test_model,
    override_allow_model_requests,
)

REQUESTS: list[int] = []


class ChatProvider(BaseChatModel):
    """Stands in for a real provider's model built by hand: it records every request it receives."""

    @property
    def _llm_type(self) -> str:
        return "provider"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        REQUESTS.append(len(messages))
        return ChatResult(generations=[ChatGeneration(message=AIMessage("from the network"))])


def test_the_public_surface() -> None:
    assert sorted(testing.__all__) == sorted(
        ["GARBAGE", "FunctionChatModel", "RecordingChatModel", "ScriptExhaustedError", "ScriptedChatModel",
         "check_model_request", "forbid_model_requests", "is_test_model", "override_allow_model_requests",
         "scripted"]
    )
    assert all(getattr(testing, name) is not None for name in testing.__all__)


def test_function_model_answers_from_the_messages_and_records_them() -> None:
    def reply(messages: list[BaseMessage]) -> str:
        return f"{len(messages)} messages, last: {messages[-1].content}"

    model = FunctionChatModel(function=reply, chunk_size=5)
    assert model.invoke([SystemMessage("s"), HumanMessage("hi")]).content == "2 messages, last: hi"
    assert "".join(str(c.content) for c in model.stream("again")) == "1 messages, last: again"
    assert model.prompt_texts == ["s\nhi", "again"]


def test_function_model_can_fail_and_can_give_exact_usage() -> None:
    def boom(messages: list[BaseMessage]) -> str:
        raise TimeoutError("provider timed out")

    with pytest.raises(TimeoutError):
        FunctionChatModel(function=boom).invoke("x")
    exact = AIMessage("ok", usage_metadata={"input_tokens": 100, "output_tokens": 7, "total_tokens": 107})
    assert FunctionChatModel(function=lambda _: exact).invoke("x").usage_metadata == exact.usage_metadata


def test_replies_carry_usage_when_invoked_and_when_streamed() -> None:
    model = ScriptedChatModel(responses=["one two three", "one two three"], chunk_size=4)
    invoked = model.invoke("a question?")
    assert invoked.usage_metadata == {"input_tokens": 3, "output_tokens": 3, "total_tokens": 6}
    chunks = list(model.stream("a question?"))
    total = chunks[0]
    for chunk in chunks[1:]:
        total += chunk
    assert total.usage_metadata == invoked.usage_metadata  # only the last chunk carries it: no double count


def test_a_hand_built_provider_model_is_blocked_at_request_time() -> None:
    REQUESTS.clear()
    model = ChatProvider()
    with pytest.raises(ModelRequestsBlocked, match="ChatProvider"):
        model.invoke("x")
    with pytest.raises(ModelRequestsBlocked):
        list(model.stream("x"))
    with pytest.raises(ModelRequestsBlocked):
        model.batch(["x", "y"])
    with pytest.raises(ModelRequestsBlocked):
        asyncio.run(model.ainvoke("x"))

    async def astream() -> None:
        async for _ in model.astream("x"):
            pass

    with pytest.raises(ModelRequestsBlocked):
        asyncio.run(astream())
    assert REQUESTS == []
    with override_allow_model_requests(True):
        assert model.invoke("x").content == "from the network"
    assert REQUESTS == [1]


def test_an_agent_loaded_with_a_hand_built_provider_model_cannot_reach_it() -> None:
    REQUESTS.clear()
    reply = ga.load("text2sql", llm=ChatProvider(), cache=False).session().send("고객은 몇 명이야?")
    assert REQUESTS == []
    errors = [e for e in reply.events if isinstance(e, ErrorEvent)]
    assert [e.code for e in errors] == ["ModelRequestsBlocked"]


def test_test_models_and_langchain_fakes_are_allowed() -> None:
    fake = GenericFakeChatModel(messages=iter([AIMessage("fake")]))
    for model in (ScriptedChatModel(default="x"), FunctionChatModel(function=lambda _: "x"), fake):
        assert is_test_model(model)
        check_model_request(model)
    assert fake.invoke("q").content == "fake"
    assert not is_test_model(ChatProvider())
