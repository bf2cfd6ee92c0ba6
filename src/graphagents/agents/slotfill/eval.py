"""``graphagents eval slotfill``: intent accuracy and slot F1 on the labelled utterances, then the
scripted conversations for task success, turns, caps hit and corrections handled.

The utterances are read by ``Engine.interpret``, the same function the conversation uses, at the
stage each line names, with the slots of a typical application already filled (the stage's own
slots removed for collection stages, as when they are being asked).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated, Any

import typer

from ...errors import InputError
from ...testing.conversations import load_conversations, run_all
from ...usage import UsageSummary
from .engine import Engine
from .flow import stage_fields
from .scenario import Scenario, load_scenario
from .understanding import Understanding
from .values import normalise
from .work import Work

TYPICAL_SLOTS: dict[str, Any] = {
    "customer_name": "김민수", "customer_phone": "010-1234-5678", "use_lifelong_account": True,
    "use_internet_banking": True, "security_medium": "OTP", "transfer_limit_per_time": 3_000_000,
    "transfer_limit_per_day": 10_000_000, "important_transaction_alert": True, "withdrawal_alert": True,
    "overseas_ip_restriction": True,
}


@dataclass
class Report:
    utterances: int = 0
    intent_accuracy: float = 0.0
    slot_precision: float = 0.0
    slot_recall: float = 0.0
    slot_f1: float = 0.0
    dialogs: int = 0
    task_success: float = 0.0
    avg_turns: float = 0.0
    happy_path_turns: int = 0
    infinite_loops: int = 0
    caps_hit: int = 0
    corrections_requested: int = 0
    corrections_handled: int = 0
    intent_errors: list[dict[str, Any]] = field(default_factory=list)
    failed_dialogs: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    """Model calls, tokens, latency and steps per turn over every scripted turn (UsageSummary)."""
    results: list[dict[str, Any]] = field(default_factory=list)
    """One row per utterance and per dialog: ``question`` (the utterance, or the dialog's name),
    ``correct``, ``status`` and ``kind`` (``utterance`` | ``dialog``), as in the other agents' reports."""

    @property
    def n(self) -> int:
        return self.utterances + self.dialogs

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, **asdict(self)}

    def to_markdown(self) -> str:
        """The report as Markdown: headline metrics, then every miss."""
        u = self.usage
        lines = [
            "# slotfill evaluation", "",
            f"{self.utterances} labelled utterances and {self.dialogs} scripted dialogs (n = {self.n}).", "",
            "| metric | value | target |", "| --- | --- | --- |",
            f"| intent accuracy | {self.intent_accuracy:.1%} | >= 95% |",
            f"| slot precision / recall | {self.slot_precision:.1%} / {self.slot_recall:.1%} | |",
            f"| slot F1 | {self.slot_f1:.1%} | |",
            f"| task success | {self.task_success:.1%} | 100% |",
            f"| average turns | {self.avg_turns:.1f} | |",
            f"| happy path turns | {self.happy_path_turns} | <= 15 |",
            f"| infinite loops | {self.infinite_loops} | 0 |",
            f"| caps hit (each ended cleanly) | {self.caps_hit} | |",
            f"| corrections handled / requested | {self.corrections_handled} / {self.corrections_requested} | all |",
        ]
        if u:
            lines.append(f"| per turn: model calls, p50 ms, steps | {u['model_calls_per_turn']}, "
                         f"{u['latency_ms_p50']}, {u['steps_per_turn']} | |")
        misses = [r for r in self.results if not r["correct"]]
        lines += ["", f"## Misses ({len(misses)})", ""]
        lines += [f"- {r['kind']} `{r['question']}`: {r['status']}" for r in misses] or ["none"]
        return "\n".join(lines) + "\n"


def bundled_conversations() -> Traversable:
    """The scripted conversations shipped with the agent (tests play them too)."""
    return resources.files(__package__).joinpath("evaldata", "conversations")


def load_utterances(path: str | Path | None = None) -> list[dict[str, Any]]:
    if path is None:
        text = resources.files(__package__).joinpath("evaldata", "utterances.jsonl").read_text("utf-8")
    else:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot read {str(path)!r}: {exc}") from None
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputError(f"{path or 'utterances.jsonl'} line {n}: not JSON: {exc}") from None
    return rows


def _work_for(sc: Scenario, row: Mapping[str, Any]) -> Work:
    ctx = row.get("context") or {}
    slots = dict(ctx.get("slots", TYPICAL_SLOTS))
    stage = sc.stages[row["stage"]]
    w = Work.from_state({"slots": slots, "stage_id": stage.id}, sc.start_stage_id)
    if stage.stage_type == "collection" and "unset" not in ctx:
        ctx = {**ctx, "unset": stage_fields(sc, stage, w)}
    for key in ctx.get("unset", []):
        w.slots.pop(key, None)
    if ctx.get("correction_fields"):
        w.correction_context = {"fields": list(ctx["correction_fields"])}
    return w


def _canonical(sc: Scenario, key: str, value: Any) -> Any:
    try:
        return normalise(sc.slots[key], value) if key in sc.slots else value
    except ValueError:
        return value


def score_utterances(sc: Scenario, rows: list[dict[str, Any]], engine: Engine, report: Report) -> None:
    correct = tp = fp = fn = 0
    for row in rows:
        meaning = engine.interpret(_work_for(sc, row), row["text"])
        predicted = {k: _canonical(sc, k, v) for k, v in meaning.values.items()}
        expected = {k: _canonical(sc, k, v) for k, v in (row.get("slots") or {}).items()}
        ok = meaning.intent == row["intent"]
        correct += ok
        status = "correct" if ok and predicted == expected else ("wrong_intent" if not ok else "wrong_slots")
        report.results.append({"kind": "utterance", "question": row["text"], "stage": row["stage"],
                               "correct": status == "correct", "status": status})
        hits = sum(1 for k, v in predicted.items() if expected.get(k, object()) == v)
        tp, fp, fn = tp + hits, fp + len(predicted) - hits, fn + len(expected) - hits
        if not ok or predicted != expected:
            report.intent_errors.append({"text": row["text"], "stage": row["stage"], "expected": row["intent"],
                                         "got": meaning.intent, "slots": predicted, "expected_slots": expected})
    report.utterances = len(rows)
    report.intent_accuracy = correct / len(rows) if rows else 0.0
    report.slot_precision = tp / (tp + fp) if tp + fp else 1.0
    report.slot_recall = tp / (tp + fn) if tp + fn else 1.0
    p, r = report.slot_precision, report.slot_recall
    report.slot_f1 = 2 * p * r / (p + r) if p + r else 0.0


def score_dialogs(directory: Path | None, report: Report, scenario: str | None) -> None:
    import graphagents as ga

    from ...settings import Settings
    from .spec import SPEC

    if SPEC.name not in ga.all_specs():
        ga.register(SPEC)
    try:
        dialogs = load_conversations(directory if directory is not None else bundled_conversations())
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read conversations: {exc}") from None
    with tempfile.TemporaryDirectory(prefix="slotfill-eval-") as tmp:
        settings = Settings(data_dir=Path(tmp), llm="offline")
        options: dict[str, Any] = {"scenario": scenario} if scenario else {}
        results = run_all(dialogs, lambda: ga.load("slotfill", "offline", settings=settings, **options))
    report.dialogs = len(results)
    report.task_success = sum(r.ok for r in results) / len(results) if results else 0.0
    report.avg_turns = sum(r.turns for r in results) / len(results) if results else 0.0
    happy = [r for r in results if r.name.startswith("happy path")]
    report.happy_path_turns = happy[0].turns if happy else 0
    report.infinite_loops = sum(1 for r in results for f in r.failures if "step cap" in f)
    stats = [r.values.get("stats") or {} for r in results]
    report.caps_hit = sum(s.get("loops_hit", 0) + s.get("retry_caps", 0) for s in stats)
    report.corrections_requested = sum(s.get("corrections_requested", 0) for s in stats)
    report.corrections_handled = sum(s.get("corrections_handled", 0) for s in stats)
    report.failed_dialogs = [{"name": r.name, "failures": r.failures[:3]} for r in results if not r.ok]
    report.results.extend({"kind": "dialog", "question": r.name, "correct": r.ok, "turns": r.turns,
                           "status": "completed" if r.ok else f"failed: {r.failures[0] if r.failures else '?'}"}
                          for r in results)
    report.usage = UsageSummary().extend(u for r in results for u in r.usage).to_dict()


def evaluate(data: Path | None = None, dialogs: Path | None = None, scenario: str | None = None) -> Report:
    sc = load_scenario(scenario)
    report = Report()
    score_utterances(sc, load_utterances(data), Engine(sc, Understanding(None)), report)
    score_dialogs(dialogs, report, scenario)
    return report


def _print(report: Report) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table("metric", "value", "target")
    table.add_row("utterances", str(report.utterances), ">= 200")
    table.add_row("intent accuracy", f"{report.intent_accuracy:.1%}", ">= 95%")
    table.add_row("slot precision / recall", f"{report.slot_precision:.1%} / {report.slot_recall:.1%}", "")
    table.add_row("slot F1", f"{report.slot_f1:.1%}", "")
    table.add_row("scripted dialogs", str(report.dialogs), ">= 40")
    table.add_row("task success", f"{report.task_success:.1%}", "100%")
    table.add_row("average turns", f"{report.avg_turns:.1f}", "")
    table.add_row("happy path turns", str(report.happy_path_turns), "<= 15")
    table.add_row("infinite loops", str(report.infinite_loops), "0")
    table.add_row("caps hit (visit + retry, each ended cleanly)", str(report.caps_hit), "")
    u = report.usage
    if u:
        table.add_row("per turn: model calls, p50 ms, steps",
                      f"{u['model_calls_per_turn']}, {u['latency_ms_p50']}, {u['steps_per_turn']}", "")
    table.add_row("corrections handled / requested",
                  f"{report.corrections_handled} / {report.corrections_requested}", "all")
    console = Console()
    console.print(table)
    for err in report.intent_errors[:15]:
        console.print(f"[yellow]{err['stage']}[/yellow] {err['text']!r}: expected {err['expected']} "
                      f"{err['expected_slots']}, got {err['got']} {err['slots']}", highlight=False)
    for failed in report.failed_dialogs:
        console.print(f"[red]dialog failed[/red] {failed['name']}: {failed['failures']}", highlight=False)


def make_eval_command() -> Any:
    def eval_slotfill(
        data: Annotated[Path | None, typer.Option(help="labelled utterances (JSONL); default: bundled set")] = None,
        dialogs: Annotated[Path | None, typer.Option(help="directory of conversation YAML files")] = None,
        scenario: Annotated[str | None, typer.Option(help="scenario file (default: bundled)")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
        report_dir: Annotated[Path | None, typer.Option("--report", help="directory for report.json and report.md")]
        = None,
    ) -> None:
        """Intent accuracy, slot F1, task success, turns, loops and corrections of the slotfill agent."""
        report = evaluate(data, dialogs, scenario)
        if as_json:
            print(json.dumps(report.to_json(), ensure_ascii=False))
        else:
            _print(report)
        if report_dir is not None:
            try:
                report_dir.mkdir(parents=True, exist_ok=True)
                (report_dir / "report.json").write_text(
                    json.dumps(report.to_json(), ensure_ascii=False, indent=2), encoding="utf-8")
                (report_dir / "report.md").write_text(report.to_markdown(), encoding="utf-8")
            except OSError as exc:
                raise InputError(f"cannot write the report to {str(report_dir)!r}: {exc}") from None
            if not as_json:
                print(f"report: {report_dir / 'report.json'}, {report_dir / 'report.md'}")

    return eval_slotfill
