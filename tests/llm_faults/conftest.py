"""Fault tests of the real-model path: the real ``langchain-openai`` client against the scripted
OpenAI-compatible server (``graphagents.testing.openai_server``), over real HTTP."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from graphagents.llm import load_chat_model, override_allow_model_requests
from graphagents.settings import Settings
from graphagents.testing.openai_server import OpenAIServer

pytest.importorskip("langchain_openai")

FAST = {"llm_timeout_seconds": 1.0, "llm_max_retries": 2}


@pytest.fixture
def openai_server() -> Iterator[Callable[..., OpenAIServer]]:
    """``openai_server(script)``: a started server, stopped after the test."""
    started: list[OpenAIServer] = []

    def make(script: Any) -> OpenAIServer:
        server = OpenAIServer(script)
        server.start()
        started.append(server)
        return server

    with override_allow_model_requests(True):
        yield make
    for server in started:
        server.stop()


def fast_settings(tmp_path: Any = None, **overrides: Any) -> Settings:
    values: dict[str, Any] = {**FAST, **overrides}
    if tmp_path is not None:
        values.setdefault("data_dir", tmp_path)
    return Settings(**values)


def client(server: OpenAIServer, **overrides: Any) -> Any:
    return load_chat_model(server.model_spec, settings=fast_settings(**overrides))
