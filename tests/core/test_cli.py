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
    assert code == 0 and data["reply"] == "Hello Zed! Favourite colour?"
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


def test_agents_names_for_scripts(example_spec: Any, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(monkeypatch, capsys, "agents", "--names")
    assert code == 0 and "example" in out.split() and "slotfill" in out.split()
    code, out, _ = run_cli(monkeypatch, capsys, "agents", "--names", "--evaluable")
    assert code == 0 and set(out.split()) >= {"slotfill", "text2sql"} and "example" not in out.split()


def test_composite_agent_through_the_cli(trip_spec: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(monkeypatch, capsys, "ask", "trip", "plan a trip", "--json", "--user", "kim")
    data = json.loads(out)
    assert code == 0 and [q["text"] for q in data["questions"]] == ["Where would you like to go?",
                                                                   "When do you travel?"]
    research = [e for e in data["events"] if e["namespace"] == ["research"]]
    assert research and data["usage"]["steps"] == 5
    code, out, _ = run_cli(monkeypatch, capsys, "ask", "trip", "Jeju", "--session", data["session_id"],
                           "--user", "kim")
    assert code == 0 and "When do you travel?" in out
    code, out, _ = run_cli(monkeypatch, capsys, "ask", "trip", "May", "--session", data["session_id"],
                           "--user", "kim")
    assert code == 0 and "Itinerary" in out and "explore" in out  # the table artifact
    assert "cost by day" in out and "█" in out  # the chart artifact, as text bars
    assert "[1] research" in out  # the citation
    code, _, err = run_cli(monkeypatch, capsys, "ask", "trip", "x", "--session", data["session_id"])
    assert code != 0 and "has no session" in err  # another user (anonymous) cannot continue kim's session


def test_chat_script_on_the_composite_agent(trip_spec: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "trip.txt"
    script.write_text("plan a trip\nJeju\nMay\n", encoding="utf-8")
    code, out, _ = run_cli(monkeypatch, capsys, "chat", "trip", "--script", str(script), "--json",
                           "-s", "traveller=Lee")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [len(line["questions"]) for line in lines] == [2, 1, 0]
    assert lines[-1]["reply"] == "Lee: Jeju, May. Take it slow." and lines[-1]["done"]
    assert [a["kind"] for a in lines[-1]["artifacts"]] == ["table", "chart", "citation"]


def test_verbose_ask_shows_where_events_come_from(trip_spec: Any, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(monkeypatch, capsys, "ask", "trip", "plan a trip", "--verbose")
    assert code == 0 and "[research] tool_call" in out and "also waiting: When do you travel?" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("ask", "example", "hi", "--model", "judge"), "bad model 'judge'"),
        (("ask", "example", "hi", "--model", "judge=bogus:x"), "unknown model 'bogus:x'"),
        (("ask", "example", "hi", "--user", "two words"), "bad user id"),
        (("ask", "example", "hi", "-o", "loop=sideways"), "option 'loop'"),
        (("chat", "trip", "-s", "budget=lots", "--script", "/dev/null"), "session option 'budget'"),
    ],
)
def test_contract_errors_are_one_line(example_spec: Any, trip_spec: Any, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str], args: tuple[str, ...], needle: str) -> None:
    code, _, err = run_cli(monkeypatch, capsys, *args)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code != 0 and len(lines) == 1 and needle in lines[0], err


def test_every_eval_command_takes_the_same_flags() -> None:
    """Every registered agent's ``eval`` is the harness's command: --dataset, --report, --llm, --limit,
    --jobs and --timeout on each, whatever its own options."""
    import typer
    from typer.main import get_command

    from graphagents.evals.cli import eval_command
    from graphagents.registry import all_specs

    evaluable = [s for s in all_specs().values() if s.evaluation is not None]
    assert {s.name for s in evaluable} >= {"slotfill", "text2sql", "rag", "supervisor", "tableqa"}
    for spec in evaluable:
        app = typer.Typer()
        app.command()(eval_command(spec.evaluation()))  # type: ignore[misc]
        options = {opt for param in get_command(app).params for opt in param.opts}
        missing = {"--dataset", "--report", "--llm", "--limit", "--jobs", "--timeout"} - options
        assert not missing, f"`graphagents eval {spec.name}` lacks {sorted(missing)}"


def test_a_bad_setting_is_one_line_naming_the_variable(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from graphagents.settings import get_settings

    monkeypatch.setenv("GRAPHAGENTS_PORT", "eighty")
    get_settings.cache_clear()
    try:
        code, _, err = run_cli(monkeypatch, capsys, "doctor")
    finally:
        monkeypatch.delenv("GRAPHAGENTS_PORT")
        get_settings.cache_clear()
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("error: setting GRAPHAGENTS_PORT: ") and "eighty" not in err


@pytest.mark.parametrize(("raw", "names"), [("rag", ["rag"]), ("slotfill, rag", ["slotfill", "rag"]),
                                            ('["text2sql"]', ["text2sql"])])
def test_warm_agents_take_a_comma_list_or_json(monkeypatch: pytest.MonkeyPatch, raw: str, names: list[str]) -> None:
    from graphagents.settings import Settings

    monkeypatch.setenv("GRAPHAGENTS_WARM_AGENTS", raw)
    assert Settings().warm_agents == names
