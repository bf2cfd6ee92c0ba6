"""Artifacts, usage bookkeeping and the step-cap helper, in isolation."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, LLMResult

from graphagents.artifacts import (
    ChartArtifact,
    DocumentArtifact,
    IntermediateTableArtifact,
    SqlArtifact,
    artifact_from_dict,
    artifacts_from_state,
)
from graphagents.cli.render import chart_text
from graphagents.steps import finish_when_low, steps_low
from graphagents.usage import Usage, UsageRecorder, UsageSummary


def test_artifacts_round_trip_through_dicts() -> None:
    items = [
        SqlArtifact(sql="SELECT 1", dialect="sqlite", title="query"),
        IntermediateTableArtifact(columns=["a"], rows=[[1], [2]], total_rows=10, truncated=True, step="filter"),
        DocumentArtifact(id="d1", text="본문", metadata={"page": 3}),
    ]
    dicts = [a.to_dict() for a in items]
    assert [d["kind"] for d in dicts] == ["sql", "intermediate_table", "document"]
    assert dicts[1] == {"kind": "intermediate_table", "title": "", "columns": ["a"], "rows": [[1], [2]],
                        "total_rows": 10, "truncated": True, "step": "filter"}
    assert [artifact_from_dict(d) for d in dicts] == [
        SqlArtifact(sql="SELECT 1", dialect="sqlite", title="query"),
        IntermediateTableArtifact(columns=["a"], rows=[[1], [2]], total_rows=10, truncated=True, step="filter"),
        DocumentArtifact(id="d1", text="본문", metadata={"page": 3}),
    ]
    assert artifacts_from_state({"artifacts": [items[0], dicts[2]]}) == [items[0], items[2]]
    assert artifacts_from_state({}) == []
    with pytest.raises(ValueError, match="unknown artifact kind 'video'"):
        artifact_from_dict({"kind": "video"})


def test_usage_recorder_reads_usage_metadata() -> None:
    rec = UsageRecorder()
    rec.on_chat_model_start({}, [[]])
    msg = AIMessage("x", usage_metadata={"input_tokens": 12, "output_tokens": 3, "total_tokens": 15})
    rec.on_llm_end(LLMResult(generations=[[ChatGeneration(message=msg)]]))
    rec.on_chat_model_start({}, [[]])
    rec.on_llm_end(LLMResult(generations=[[ChatGeneration(message=AIMessage("no usage reported"))]]))
    assert rec.usage(latency_ms=5.0, steps=4) == Usage(2, 12, 3, 5.0, 4)


def test_usage_summary_for_eval_reports() -> None:
    summary = UsageSummary().extend([Usage(1, 10, 2, 10.0, 3), Usage(0, 0, 0, 30.0, 1), None,
                                     Usage(2, 5, 5, 20.0, 2, retries=1)])
    data = summary.to_dict()
    assert data == {"turns": 3, "model_calls": 3, "input_tokens": 15, "output_tokens": 7, "retries": 1,
                    "model_calls_per_turn": 1.0, "latency_ms_p50": 20.0, "latency_ms_p95": 30.0,
                    "latency_ms_mean": 20.0, "steps_per_turn": 2.0, "steps_max": 3}
    assert UsageSummary().to_dict()["turns"] == 0


def test_steps_low_and_the_router_wrapper() -> None:
    def route(state: Any) -> str:
        return "again"

    routed = finish_when_low(route, reserve=3)
    assert routed({"remaining_steps": 10}) == "again"
    assert routed({"remaining_steps": 3}) == "step_cap"
    assert routed({}) == "again"  # a state without remaining_steps never ends early
    assert steps_low({"remaining_steps": 1}) and not steps_low({"remaining_steps": 4})
    assert routed.__name__ == "route"


def test_chart_text_draws_bars() -> None:
    spec = {"mark": "bar", "data": {"values": [{"m": "1월", "n": 10}, {"m": "2월", "n": 5}]},
            "encoding": {"x": {"field": "m"}, "y": {"field": "n"}}}
    lines = chart_text(spec, width=10).splitlines()
    assert lines[0] == "n by m"
    assert lines[1].endswith("█" * 10 + " 10") and lines[2].endswith("█" * 5 + " 5")
    assert chart_text({"mark": "bar"}) == "chart (bar): 0 points"
    assert ChartArtifact(spec=spec).to_dict()["spec"]["mark"] == "bar"
