from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from graphagents.cli import main


def run_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["graphagents", *args])
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_agents_lists_registered(example_spec: Any, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(monkeypatch, capsys, "agents", "--json")
    assert code == 0
    assert any(a["name"] == "example" for a in json.loads(out))


def test_ask_json_has_reply_state_and_events(example_spec: Any, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(monkeypatch, capsys, "ask", "example", "name:Zed", "--json")
    data = json.loads(out)
    assert code == 0 and data["text"] == "Hello Zed! Favourite colour?"
    assert data["state"]["name"] == "Zed" and data["events"][-1]["type"] == "final"
    code, out, _ = run_cli(monkeypatch, capsys, "ask", "example", "gold", "--session", data["session_id"])
    assert code == 0 and "Zed likes gold." in out


def test_chat_script_json_lines(example_spec: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "dialog.txt"
    script.write_text("hi\n# a comment\nAda\n\nblue\n", encoding="utf-8")
    code, out, _ = run_cli(monkeypatch, capsys, "chat", "example", "--script", str(script), "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    expected = ["What is your name?", "Hello Ada! Favourite colour?", "Ada likes blue."]
    assert [line["reply"] for line in lines] == expected
    assert lines[-1]["done"] is True and lines[-1]["state"]["color"] == "blue"
    assert [line["name"] for line in lines] == [None, "Ada", "Ada"]  # the spec's chat_fields, lifted


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("ask", "nope", "hi"), "unknown agent 'nope'"),
        (("ask", "example", ""), "message is empty"),
        (("ask", "example", "hi", "--llm", "bogus:model"), "unknown model 'bogus:model'"),
        (("ask", "example", "hi", "-o", "loop"), "bad option 'loop'"),
        (("chat", "example", "--script", "/no/such/file"), "cannot read script"),
    ],
)
def test_errors_are_one_line_and_nonzero(example_spec: Any, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str], args: tuple[str, ...],
                                         needle: str) -> None:
    code, _, err = run_cli(monkeypatch, capsys, *args)
    assert code != 0
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0], err


def test_doctor_reports_each_check(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(monkeypatch, capsys, "doctor")
    assert code == 0
    for check in ("data dir", "checkpointer", "database", "cache", "llm"):
        assert f"ok   {check}" in out


def test_doctor_flags_a_bad_service(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from graphagents.settings import get_settings

    monkeypatch.setenv("GRAPHAGENTS_CACHE_URL", "redis://127.0.0.1:1/0")
    get_settings.cache_clear()
    try:
        code, out, _ = run_cli(monkeypatch, capsys, "doctor")
    finally:
        get_settings.cache_clear()
    assert code == 1 and "FAIL cache: cannot reach Redis" in out


def test_demo_runs_samples(example_spec: Any, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    from graphagents import registry

    monkeypatch.setattr(registry, "_cache", {})  # only the example agent
    code, out, _ = run_cli(monkeypatch, capsys, "demo")
    assert code == 0 and "example" in out and "Ada likes" in out
