"""Every JSON decision point's schema becomes a llama.cpp grammar (none falls back to "any JSON")."""

from __future__ import annotations

import importlib
import inspect
import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter

import graphagents
from service_checks import service_missing

sys.path.insert(0, str(Path(__file__).parent))
from test_local_hooks import SchemaAwareModel  # noqa: E402

pytestmark = pytest.mark.local

SRC = Path(graphagents.__file__).parent


def decision_schemas() -> dict[str, type[BaseModel]]:
    """Pydantic models visible in every module that calls ``ask_json``/``aask_json``."""
    found: dict[str, type[BaseModel]] = {}
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "ask_json(" not in text or path.parent.name == "llm":
            continue
        module = importlib.import_module("graphagents." + ".".join(path.relative_to(SRC).with_suffix("").parts))
        for name, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, BaseModel) and value is not BaseModel
                    and value.__module__.startswith("graphagents.agents") and name in text):
                found[f"{value.__module__}.{name}"] = value
    return found


def test_the_scan_finds_each_agents_decisions() -> None:
    names = {key.rsplit(".", 1)[1] for key in decision_schemas()}
    assert {"LlmValues", "LlmConfirmation", "IntentDecision", "JudgeFeedback", "RewrittenQuery", "PlanOut",
            "DecisionOut"} <= names


def test_every_decision_schema_converts_to_a_grammar(caplog: pytest.LogCaptureFixture) -> None:
    from graphagents.llm.local import runtime_available

    if not runtime_available():
        service_missing("llama-cpp-python is not installed: make test-local (pip install -e '.[local]')")
    from llama_cpp import LlamaGrammar

    from graphagents.llm.local import _Runtime, grammar_schema

    runtime = _Runtime(llama=None, formatter=None)
    schemas = {key: TypeAdapter(schema).json_schema() for key, schema in decision_schemas().items()}
    schemas["rag slots (a class local to its function)"] = rag_slots_schema()
    for key, schema in schemas.items():
        LlamaGrammar.from_json_schema(json.dumps(grammar_schema(schema)), verbose=False)  # raises if unsupported
        with caplog.at_level(logging.WARNING, logger="graphagents.llm.local"):
            runtime.grammar(schema)
        assert not caplog.records, key


def rag_slots_schema() -> dict[str, Any]:
    """The schema rag's slot extraction hands its model, captured on the real call."""
    from graphagents.agents.rag.nodes import _model_slots

    model = SchemaAwareModel(responses=["{}"], schemas=[])
    _model_slots(model, "저는 65세 남성이고 메트포르민을 먹어요", offline=None)
    assert len(model.schemas) == 1 and "removals" in model.schemas[0]["properties"]
    return model.schemas[0]  # type: ignore[no-any-return]

