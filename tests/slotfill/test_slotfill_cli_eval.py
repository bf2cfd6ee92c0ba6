"""The CLI surfaces: chat --json through the core CLI, and ``graphagents eval slotfill``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import typer
from typer.testing import CliRunner

from graphagents.agents.slotfill.eval import bundled_conversations, make_eval_command
from graphagents.cli.main import app


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
    cmd = typer.Typer()
    cmd.command()(make_eval_command())
    out = tmp_path / "report"
    result = CliRunner().invoke(cmd, ["--data", str(data), "--dialogs", str(dialogs), "--json", "--report", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    # --report writes the same JSON as the other agents' reports (n, metrics, results) and a Markdown page
    written = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert written == report
    assert report["n"] == 6 and len(report["results"]) == 6
    assert all({"question", "correct", "status"} <= set(r) for r in report["results"])
    assert [r["correct"] for r in report["results"] if r["kind"] == "utterance"] == [True, True, True, False]
    assert report["results"][3] == {"kind": "utterance", "question": "그만할래요", "stage": "collect_ib_info",
                                    "correct": False, "status": "wrong_intent"}
    assert all(r["correct"] and r["status"] == "completed" for r in report["results"] if r["kind"] == "dialog")
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "| intent accuracy | 75.0% |" in markdown and "`그만할래요`: wrong_intent" in markdown
    assert report["utterances"] == 4
    assert report["intent_accuracy"] == 0.75  # the last row is labelled wrong on purpose
    assert report["slot_f1"] == 1.0
    assert report["dialogs"] == 2 and report["task_success"] == 1.0
    assert report["happy_path_turns"] == 10 and report["infinite_loops"] == 0
    assert report["intent_errors"][0]["got"] == "cancel"
