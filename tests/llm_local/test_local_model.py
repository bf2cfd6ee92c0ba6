"""The real local model (llama.cpp + the bundled 1.5B GGUF): a constrained decision and an agent turn.

Greedy decoding (temperature 0) keeps the answers reproducible on one machine; the assertions are
about what the code guarantees (the schema reached the model, usage is counted, the turn ends
cleanly) and about answers a 1.5B model gets right every time.
"""

from __future__ import annotations

import json
import logging
import operator
import tempfile
from functools import reduce
from pathlib import Path
from typing import Any, Literal

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

import graphagents as ga
from graphagents.llm import ask_json, override_allow_model_requests
from graphagents.settings import Settings

pytestmark = pytest.mark.local


class Capital(BaseModel):
    country: str
    answer: Literal["yes", "no"]


def test_a_grammar_constrained_decision_parses_and_is_right(local_model: Any) -> None:
    errors: list[Exception] = []
    got = ask_json(local_model, "서울은 대한민국의 수도인가요? Is Seoul the capital of South Korea?", Capital,
                   None, on_error=errors.append)
    assert errors == []
    assert isinstance(got, Capital) and got.answer == "yes"


def test_the_grammar_holds_even_when_the_prompt_asks_for_prose(local_model: Any) -> None:
    schema = Capital.model_json_schema()
    prompt = [HumanMessage("Write two friendly sentences about Seoul. Do not use JSON, use Markdown bullets.")]
    free = local_model.invoke(prompt, max_tokens=12).content
    bound = local_model.bind_json_schema(schema).invoke(prompt, max_tokens=40).content
    with pytest.raises(ValueError):
        json.loads(free)  # unconstrained, the model does as it is told
    value = json.loads(bound)  # constrained: the whole answer is one JSON value of the schema
    assert list(value) == ["country", "answer"] and value["answer"] in ("yes", "no")  # schema order kept


def test_streaming_yields_pieces_and_counts_usage_like_invoke(local_model: Any) -> None:
    prompt = [HumanMessage("1부터 5까지 숫자를 쉼표로 나열하세요.")]
    whole = local_model.invoke(prompt, max_tokens=12)
    chunks = list(local_model.stream(prompt, max_tokens=12))
    assert len([c for c in chunks if c.content]) > 1
    merged = reduce(operator.add, chunks)  # how LangChain and our usage recorder read a stream
    assert merged.content == whole.content
    streamed = merged.usage_metadata
    assert streamed is not None and whole.usage_metadata is not None
    assert streamed["input_tokens"] == whole.usage_metadata["input_tokens"] > 10
    assert abs(streamed["output_tokens"] - whole.usage_metadata["output_tokens"]) <= 1


def test_a_slotfill_turn_end_to_end_asks_the_local_model_once(local_model_path: Path,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    """The offline brain cannot read "일회용 비밀번호 생성기"; the local model is asked (one grammar-
    constrained extract), its answer parses, and the engine keeps only a valid choice."""
    with override_allow_model_requests(True), tempfile.TemporaryDirectory() as tmp:
        agent = ga.load("slotfill", llm=f"local:{local_model_path}", settings=Settings(data_dir=Path(tmp)))
        session = agent.session()
        for text in ("안녕하세요", "네 맞아요", "네", "네 신청할게요"):
            assert session.send(text).usage.model_calls == 0  # the offline brain handles these
        with caplog.at_level(logging.INFO, logger="graphagents.llm"):
            reply = session.send("보안매체는 일회용 비밀번호 생성기로 해주세요")
    assert reply.usage.model_calls == 1
    assert reply.usage.input_tokens > 100 and reply.usage.output_tokens > 0
    assert not [r for r in caplog.records if "fallback used" in r.getMessage()]
    assert reply.state["stage"] == "collect_ib_info" and reply.text
    assert reply.state["slots"].get("security_medium") == "OTP"
