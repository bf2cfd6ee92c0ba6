"""The CLI surfaces: chat --json through the core CLI, and ``graphagents eval slotfill``."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphagents.agents.slotfill.eval import EVALUATION, bundled_conversations, score
from graphagents.cli.main import _mount_agent_commands, app
from graphagents.evals import (
    CaseResult,
    Dataset,
    Report,
    assert_measuring_stick,
    expect,
    resolve_dataset,
    run_evaluation,
)

_mount_agent_commands()


def test_chat_script_json_has_stage_and_slots(tmp_path: Path) -> None:
    script = tmp_path / "script.txt"
    script.write_text("안녕하세요\n번호가 틀렸어요 010-9876-5432\n네\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["chat", "slotfill", "--script", str(script), "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert [line["stage"] for line in lines] == [
        "confirm_basic_info", "confirm_basic_info", "ask_lifelong_account"]
    assert lines[1]["slots"]["customer_phone"] == "010-9876-5432"
    assert lines[1]["slots"] == lines[1]["state"]["slots"]
    assert all(line["errors"] == [] for line in lines)


def test_eval_command_json(tmp_path: Path) -> None:
    data = tmp_path / "u.jsonl"
    rows = [
        {"text": "네 맞아요", "stage": "confirm_basic_info", "intent": "confirmed", "slots": {}},
        {"text": "번호가 틀렸어요 010-9876-5432", "stage": "confirm_basic_info",
         "intent": "specific_correction", "slots": {"customer_phone": "010-9876-5432"}},
        {"text": "OTP로 하고 1회 300만원", "stage": "collect_ib_info", "intent": "inform",
         "slots": {"security_medium": "OTP", "transfer_limit_per_time": 3000000}},
        {"text": "그만할래요", "stage": "collect_ib_info", "intent": "confirmed", "slots": {}},
    ]
    data.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    dialogs = tmp_path / "dialogs"
    dialogs.mkdir()
    for name in ("01_happy_path.yaml", "26_cancel_at_confirmation.yaml"):
        shutil.copy(str(bundled_conversations().joinpath(name)), dialogs / name)
    out = tmp_path / "report"
    result = CliRunner().invoke(app, ["eval", "slotfill", "--dataset", str(data), "--dataset", str(dialogs), "--json",
                                      "--report", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout.strip().splitlines()[-1])
    written = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert written["results"] == report["results"] and written["metrics"] == report["metrics"]
    assert report["n"] == 6 and len(report["results"]) == 6
    assert [r["status"] for r in report["results"]] == ["right", "right", "right", "wrong", "right", "right"]
    assert report["results"][3]["note"] == "intent cancel, expected confirmed"
    assert report["groups"]["kind"]["dialog"] == {"n": 2, "right": 2, "partial": 0, "declined": 0, "wrong": 0}
    metrics = report["metrics"]
    assert (metrics["utterances"], metrics["intent_accuracy"], metrics["slot_f1"]) == (4, 0.75, 1.0)
    assert (metrics["dialogs"], metrics["task_success"], metrics["completion"], metrics["wrong_readbacks"]) == (
        2, 1.0, 1.0, 0)
    assert metrics["happy_path_turns"] == 10 and metrics["infinite_loops"] == 0
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "| **intent_accuracy** | 0.75 |" in markdown and "그만할래요" in markdown.split("## Wrong")[1]


@pytest.fixture(scope="module")
def dev_run() -> Report:
    """A slice of the dev set: every 12th utterance and four dialogs, all right with the real agent."""
    dev = resolve_dataset(EVALUATION, "dev")
    utterances = [c for c in dev.cases if c.kind == "utterance"][::12]
    dialogs = [c for c in dev.cases if c.id in ("dialog:01_happy_path", "dialog:05_basic_specific_name",
                                                "dialog:09_ib_specific_amount", "dialog:26_cancel_at_confirmation")]
    assert len(dialogs) == 4
    return run_evaluation(EVALUATION, Dataset("slice", (*utterances, *dialogs)))


def _with(result: CaseResult, **data: Any) -> CaseResult:
    return replace(result, output=replace(result.output, data={**result.output.data, **data}))


def _read_back_off_by_one(result: CaseResult) -> CaseResult | None:
    """The dialog with one amount, phone or name that a confirmation turn reads back changed by one."""
    turns = [dict(t) for t in result.output.data["turns"]]
    for step, turn in zip(result.case.expected["steps"], turns, strict=True):
        state = turn.get("state") or {}
        paths = [p for p in (step.get("state") or {}) if p.startswith("slots.")]
        if turn.get("confirming") and paths:
            key = paths[0].removeprefix("slots.")
            turn["state"] = {**state, "slots": {**state["slots"], key: _off_by_one(state["slots"][key])}}
            return _with(result, turns=turns)
    return None


def _off_by_one(value: Any) -> Any:
    """A number one higher, a flag flipped, a text with one more character."""
    if isinstance(value, bool):
        return not value
    return value + 1 if isinstance(value, int) else str(value) + "9"


def test_the_scorer_tells_right_from_wrong(dev_run: Report) -> None:
    assert dev_run.counts()["right"] == dev_run.n
    utterances = [r for r in dev_run.results if r.case.kind == "utterance"]
    dialogs = [r for r in dev_run.results if r.case.kind == "dialog"]
    with_slots = [r for r in utterances if r.output.data["slots"]]
    assert utterances and dialogs and with_slots
    other_intent = [_with(r, intent="help" if r.case.expected["intent"] != "help" else "inform") for r in utterances]
    not_understood = [_with(r, intent="unclear", slots={}) for r in utterances
                      if r.case.expected["intent"] != "unclear"]
    missing = [_with(r, slots=dict(list(r.output.data["slots"].items())[1:])) for r in with_slots]
    off_by_one = [_with(r, slots={k: _off_by_one(v) for k, v in r.output.data["slots"].items()}) for r in with_slots]
    misread = [m for r in dialogs if (m := _read_back_off_by_one(r)) is not None]
    worded = [_with(r, turns=[{**t, "reply": ""} if "reply" in t else t for t in r.output.data["turns"]])
              for r in dialogs]
    assert misread, "no dialog of the slice confirms an amount"
    expectations = [*expect(dev_run.results, "right"), *expect(other_intent, "wrong"),
                    *expect(not_understood, "declined"), *expect(missing, ("partial", "wrong")),
                    *expect(off_by_one, "wrong"), *expect(misread, "wrong"), *expect(worded, ("partial", "wrong"))]
    assert_measuring_stick(score, expectations)
    rescored = [score(r.case, r.output) for r in misread]
    assert all("wrong read-back" in s.note and s.metrics["wrong_readbacks"] for s in rescored)


def test_the_heldout_set_is_named() -> None:
    data = resolve_dataset(EVALUATION, "heldout")
    assert len(data) >= 150 and data.cases[0].id == "utterances_heldout:1"
