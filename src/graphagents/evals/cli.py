"""``graphagents eval <agent>`` and ``graphagents eval compare A B``: the same flags for every agent.

Every agent's command takes ``--dataset dev|heldout|FILE`` (repeatable), ``--report DIR``,
``--llm``, ``--limit N``, ``--jobs N``, ``--timeout S``, ``-o key=value`` (agent options),
``-m role=spec`` (models per role) and ``--json``, plus the options of the agent's
``Evaluation.options_model`` (text2sql's ``--db`` ...), built from its fields.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import ConfigError, InputError
from .cases import STATUSES
from .compare import compare_reports, load_report
from .evaluation import Evaluation
from .report import Report, flat_metrics
from .scoring import CaseResult

__all__ = ["broken_eval_command", "compare_command", "eval_command"]

_COMMON: list[tuple[str, Any, Any]] = [
    ("dataset", Annotated[list[str] | None, typer.Option(
        "--dataset", "-d", help="dev, heldout, another named set, or a file in the agent's case schema "
        "(repeatable: the sets are combined)")], None),
    ("report", Annotated[Path | None, typer.Option("--report", help="directory for report.json and report.md")],
     None),
    ("llm", Annotated[str, typer.Option("--llm", help="offline, oracle (the agent's gold-answer model) "
                                        "or provider:model")], "offline"),
    ("limit", Annotated[int | None, typer.Option("--limit", help="only the first N cases of each kind")], None),
    ("jobs", Annotated[int, typer.Option("--jobs", "-j", help="cases run in parallel (each in its own session)")],
     1),
    ("timeout", Annotated[float | None, typer.Option(
        "--timeout", help="seconds per case; a case that overruns is wrong with error 'timeout'")], None),
    ("option", Annotated[list[str] | None, typer.Option("--option", "-o", help="agent option key=value")], None),
    ("model", Annotated[list[str] | None, typer.Option("--model", "-m", help="model per role, role=provider:model")],
     None),
    ("as_json", Annotated[bool, typer.Option("--json", help="print report.json to stdout")], False),
]


def eval_command(evaluation: Evaluation) -> Callable[..., None]:
    """The typer command of ``graphagents eval <agent>``."""
    common = {name for name, _, _ in _COMMON}
    params = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=ann, default=default)
              for name, ann, default in _COMMON]
    own: list[str] = []
    model = evaluation.options_model
    for name, field in (model.model_fields.items() if model is not None else ()):
        if name in common:
            raise ConfigError(f"{evaluation.agent}: eval option {name!r} clashes with a common eval flag")
        flag = "--" + name.replace("_", "-")
        annotation = Annotated[field.annotation, typer.Option(flag, help=field.description or "")]  # type: ignore[name-defined]
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation,
                                        default=field.default))
        own.append(name)

    def command(**kwargs: Any) -> None:
        from ..cli.main import parse_models, parse_pairs

        report = _run(evaluation, kwargs, parse_pairs(kwargs["option"]), parse_models(kwargs["model"]),
                      {name: kwargs[name] for name in own})
        _show(report, kwargs["as_json"])
        if kwargs["report"] is not None:
            json_path, md_path = report.write(kwargs["report"])
            if not kwargs["as_json"]:
                typer.echo(f"report: {json_path}, {md_path}")

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__doc__ = evaluation.description or f"Evaluate the {evaluation.agent} agent."
    command.__name__ = f"eval_{evaluation.agent}"
    return command


def broken_eval_command(agent: str, reason: str) -> Callable[..., None]:
    """The command of an agent whose evaluation failed to load: it says why, in one line."""

    def command() -> None:
        raise ConfigError(f"the evaluation of agent {agent!r} failed to load: {reason}")

    command.__doc__ = f"(unavailable: {reason[:80]})"
    return command


def _run(evaluation: Evaluation, kwargs: dict[str, Any], options: dict[str, Any], models: dict[str, str],
         eval_options: dict[str, Any]) -> Report:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .cases import Dataset
    from .runner import run_evaluation

    tally = dict.fromkeys(STATUSES, 0)
    progress = Progress(TextColumn(f"[bold]{evaluation.agent} eval"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[tally]}"), TimeElapsedColumn(), console=Console(stderr=True))
    task = progress.add_task("eval", total=None, tally="")

    def start(dataset: Dataset) -> None:  # shown once the cases are read: a bad dataset is one line
        progress.update(task, total=len(dataset))
        progress.start()

    def tick(result: CaseResult) -> None:
        tally[result.status] += 1
        progress.update(task, advance=1, tally=" · ".join(f"{s} {n}" for s, n in tally.items()))

    try:
        return run_evaluation(evaluation, kwargs["dataset"] or ["dev"], llm=kwargs["llm"], limit=kwargs["limit"],
                              jobs=kwargs["jobs"], timeout=kwargs["timeout"], options=options, models=models,
                              eval_options=eval_options, on_start=start, on_result=tick)
    finally:
        if progress.live.is_started:
            progress.stop()


def _show(report: Report, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(report.to_json(), ensure_ascii=False, default=str))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    counts, rates = report.counts(), report.rates()
    table = Table("status", "cases", "share", title=f"{report.agent} · {report.dataset} · {report.llm} · "
                                                    f"n={report.n}")
    for status in STATUSES:
        table.add_row(status, str(counts[status]), f"{rates[status]:.1%}")
    console.print(table)
    flat = flat_metrics(report.metrics)
    shown = [k for k in report.headline if k in flat]
    if shown:
        figures = Table("figure", "value")
        for key in shown:
            value = flat[key]
            figures.add_row(key, _cell(value))
        console.print(figures)
    usage = report.usage()
    console.print(f"usage: {usage['calls']} model calls, {usage['tokens']} tokens, {usage['seconds']} s",
                  highlight=False)


def compare_command(
    a: Annotated[Path, typer.Argument(help="the 'before' report: a directory or its report.json")],
    b: Annotated[Path, typer.Argument(help="the 'after' report")],
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
    markdown: Annotated[Path | None, typer.Option("--markdown", help="also write the comparison as Markdown here")]
    = None,
) -> None:
    """Compare two reports: each figure and status count before and after, and the cases whose status changed."""
    comparison = compare_reports(load_report(a), load_report(b), str(a), str(b))
    if markdown is not None:
        try:
            markdown.write_text(comparison.to_markdown(), encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write {str(markdown)!r}: {exc}") from None
    if as_json:
        typer.echo(json.dumps(comparison.to_json(), ensure_ascii=False, default=str))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    for warning in comparison.warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)
    table = Table("figure", "A", "B", "Δ", title=f"{comparison.agent}: {a} → {b}")
    for row in comparison.rows:
        delta = row.delta
        table.add_row(f"[bold]{row.name}[/bold]" if row.headline else row.name, _cell(row.a), _cell(row.b),
                      "" if delta is None else ("0" if delta == 0 else f"{delta:+.4g}"))
    console.print(table)
    if comparison.changed:
        changes = Table("id", "A", "B", "question", title=f"{len(comparison.changed)} cases changed status")
        for c in comparison.changed:
            changes.add_row(c.id, c.a, c.b, c.question[:80])
        console.print(changes)
    else:
        console.print("no case changed status")
    if comparison.only_a or comparison.only_b:
        console.print(f"only in A: {len(comparison.only_a)} cases; only in B: {len(comparison.only_b)} cases")


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    return f"{value:.4g}" if isinstance(value, float) else str(value)
