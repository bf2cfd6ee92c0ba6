"""What a user sees at the CLI (issue 9, "CLI"): each test here fails on the behaviour the issue reported."""

from __future__ import annotations

import builtins
import json
import re
import socket
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from test_cli import run_cli
from typer.testing import CliRunner

from graphagents.cli.render import format_cell, result_table


def test_ask_prints_the_answer_not_the_internals(example_spec: Any, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(monkeypatch, capsys, "ask", "example", "name:Zed")
    assert code == 0 and out.strip() == "Hello Zed! Favourite colour?"
    session_id = err.split()[1]
    assert f"--session {session_id}" in err  # the id to continue with, on stderr (stdout stays the answer)
    code, out, err = run_cli(monkeypatch, capsys, "ask", "example", "gold", "--session", session_id)
    assert code == 0 and out.strip() == "Zed likes gold." and "route" not in out and "colour received" not in out


def test_ask_verbose_shows_decisions(example_spec: Any, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    _, _, err = run_cli(monkeypatch, capsys, "ask", "example", "name:Zed")
    code, out, _ = run_cli(monkeypatch, capsys, "ask", "example", "gold", "--verbose", "--session", err.split()[1])
    assert code == 0 and "decision" in out and "colour received" in out and "Zed likes gold." in out


def test_ask_shows_tables_and_charts_but_intermediate_steps_only_when_verbose(
        trip_spec: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(monkeypatch, capsys, "ask", "trip", "plan a trip")
    sid = err.split()[1]
    run_cli(monkeypatch, capsys, "ask", "trip", "Jeju", "--session", sid)
    code, out, _ = run_cli(monkeypatch, capsys, "ask", "trip", "May", "--session", sid)
    assert code == 0 and "Itinerary" in out and "arrive" in out
    assert "[research]" not in out  # namespaced internal events belong to --verbose


def test_ask_and_chat_json_use_one_key_for_the_reply(example_spec: Any, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(monkeypatch, capsys, "ask", "example", "name:Zed", "--json")
    asked = json.loads(out)
    script = tmp_path / "s.txt"
    script.write_text("name:Zed\n", encoding="utf-8")
    code, out, _ = run_cli(monkeypatch, capsys, "chat", "example", "--script", str(script), "--json")
    chatted = json.loads(out.splitlines()[0])
    assert asked["reply"] == chatted["reply"] == "Hello Zed! Favourite colour?"
    assert "text" not in asked and "text" not in chatted
    assert {"session_id", "done", "state", "questions", "artifacts", "usage"} <= set(asked) & set(chatted)


@pytest.fixture
def typed_lines(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Interactive chat at a terminal: ``input`` returns typed lines (the terminal has shown them)."""
    lines: list[str] = []

    def fake_input(prompt: str = "") -> str:
        print(prompt, end="")
        if not lines:
            raise EOFError
        line = lines.pop(0)
        print(line)  # what the terminal echoes as the user types
        return line

    monkeypatch.setattr(builtins, "input", fake_input)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    yield lines


def test_chat_does_not_echo_the_typed_line_again(example_spec: Any, typed_lines: list[str],
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    typed_lines.extend(["hi", "Bartholomew", "teal"])
    code, out, _ = run_cli(monkeypatch, capsys, "chat", "example")
    assert code == 0 and "Bartholomew likes teal." in out
    assert out.count("teal") == 2  # once typed, once in the reply: never echoed a second time
    assert out.count("> Bartholomew") == 1


def test_chat_script_shows_each_line_once(example_spec: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "s.txt"
    script.write_text("hi\nBartholomew\nteal\n", encoding="utf-8")
    code, out, _ = run_cli(monkeypatch, capsys, "chat", "example", "--script", str(script))
    assert code == 0 and out.count("> teal") == 1 and out.count("> Bartholomew") == 1


def test_numbers_are_formatted_and_right_aligned() -> None:
    assert [format_cell(v) for v in (703033.3333333334, 1234567, 5000000.0, Decimal("12.50"), None, True, "SEL")] \
        == ["703,033.33", "1,234,567", "5,000,000", "12.50", "", "true", "SEL"]
    table = result_table({"columns": ["region", "avg"], "rows": [["서울", 703033.3333333334], ["부산", 5.5]]})
    assert [c.justify for c in table.columns] == ["left", "right"]
    from rich.console import Console

    console = Console(width=60, record=True)
    console.print(table)
    text = console.export_text()
    assert "703,033.33 │" in text and "      5.50 │" in text


def test_slotfill_validate_reads_stdin() -> None:
    from graphagents.agents.slotfill.cli import make_cli
    from graphagents.agents.slotfill.scenario import load_scenario

    scenario = Path(load_scenario.__code__.co_filename).parent / "scenarios" / "bank_account.json"
    ok = CliRunner().invoke(make_cli(), ["validate", "-"], input=scenario.read_text("utf-8"))
    assert ok.exit_code == 0 and ok.output.startswith("ok: ")
    bad = CliRunner().invoke(make_cli(), ["validate", "-"], input='{"name": "x", "stages": {}')
    assert bad.exit_code == 1 and "invalid: <stdin>: not valid YAML" in bad.output
    wrong = CliRunner().invoke(make_cli(), ["validate", "-"], input="{}")
    assert wrong.exit_code == 1 and wrong.output.startswith("invalid: <stdin>: $")


def test_serve_on_a_port_in_use_says_so_first(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = run_cli(monkeypatch, capsys, "serve", "--host", "127.0.0.1", "--port", str(port))
    assert code != 0 and out == ""
    assert err.strip() == f"error: port {port} on 127.0.0.1 is already in use (another server?): stop it, or pass " \
                          "--port with a free port"
    assert "graphagents on http" not in err


def test_text2sql_ask_prints_reply_formatted_sql_and_a_right_aligned_table(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(monkeypatch, capsys, "ask", "text2sql", "지역별 고객 수", "-o", "cache=false")
    assert code == 0, err
    assert "user_facing" not in out and "reasoning" not in out and "search_tables" not in out  # no internals
    assert re.search(r"\nFROM customers *\n", out)  # SQL one clause per line, not one long line
    assert "│ 1,203 │" in out and "│   500 │" in out  # numbers formatted and right-aligned
    assert "session " in err
    code, out, _ = run_cli(monkeypatch, capsys, "ask", "text2sql", "지역별 고객 수", "-o", "cache=false", "--verbose")
    assert code == 0 and "user_facing" in out and "search_tables" in out


def test_format_sql_falls_back_to_the_text() -> None:
    from graphagents.cli.render import format_sql

    assert format_sql("select a from t where b = 1", "sqlite") == "SELECT\n  a\nFROM t\nWHERE\n  b = 1"
    assert format_sql("not ((( sql", "postgres") == "not ((( sql"


def test_a_failed_turn_says_so_without_verbose(example_spec: Any, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(monkeypatch, capsys, "ask", "example", "hi", "-o", "loop=raw")
    assert code == 0 and "error:" in out  # the step cap hit (an error event) is never hidden


@pytest.mark.postgres
def test_a_command_on_postgres_exits_without_pending_task_noise(pg_database: str, tmp_path: Path) -> None:
    """The turn loop's connection pools end with the process: the interpreter's teardown printed
    "Task was destroyed but it is pending!" for each pool worker after every command."""
    import os
    import subprocess

    env = {**os.environ, "GRAPHAGENTS_DATA_DIR": str(tmp_path), "GRAPHAGENTS_CHECKPOINT_URL": pg_database}
    done = subprocess.run([sys.executable, "-m", "graphagents", "ask", "slotfill", "계좌 개설하고 싶어요"],
                          env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "입출금통장" in done.stdout
    assert "Task was destroyed" not in done.stderr and "Traceback" not in done.stderr, done.stderr[-2000:]


def test_a_markdown_document_the_agent_wrote_is_printed_and_a_retrieved_one_only_when_verbose(
        capsys: pytest.CaptureFixture[str]) -> None:
    """supervisor's reply said "초안을 아래에 붙였습니다" and then printed nothing: its draft (a document
    artifact in Markdown) is printed, rendered; a retrieved passage stays an internal."""
    from graphagents.artifacts import DocumentArtifact
    from graphagents.cli.render import render_final
    from graphagents.events import FinalEvent

    draft = DocumentArtifact(id="lease", title="주택임대차 계약서 초안", metadata={"format": "markdown"},
                             text="# 계약서 초안\n\n## 계약 내용\n\n- [ ] 보증금 **3억원**\n- 월차임 (미기재)\n")
    passage = DocumentArtifact(id="d1", text="retrieved passage text")
    event = FinalEvent(text="문서 초안을 아래에 붙였습니다", done=True, artifacts=[draft, passage])
    render_final(event, verbose=False)  # what `ask` prints
    out = capsys.readouterr().out
    assert "계약 내용" in out and "보증금 3억원" in out and "월차임 (미기재)" in out
    assert "##" not in out and "**" not in out  # rendered, not raw Markdown
    assert "retrieved passage" not in out
    render_final(event, verbose=True)
    assert "retrieved passage text" in capsys.readouterr().out
