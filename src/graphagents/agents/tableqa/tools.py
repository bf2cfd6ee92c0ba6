"""Running one chosen action: Retrieve/Operate through the coder and the sandbox, Calculate with
the safe evaluator, Finish, and MACT's Search (no backend here).

The coder side samples ``code_samples`` programs, runs each, and votes on their *execution
results* (MACT's consistency reward): programs whose tables hash to the same id agree. If none
runs, the coder gets the error text back and tries again, ``coder_retries`` times.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .actions import Action, split_answer
from .calculate import CalculationError, calculate, format_number
from .coder import StepRun, bindings, observe, run_code_step
from .config import AgentContext
from .metrics import answer_strings
from .state import IntermediateTable, TableRef

__all__ = ["ActOutcome", "CodeWriter", "act"]

MAX_ANSWER_VALUES = 50

# (instruction, the previous attempt's error or None, how many) -> candidate programs
CodeWriter = Callable[[str, str | None, int], list[str]]


@dataclass(frozen=True)
class ActOutcome:
    observation: str
    ok: bool
    error_type: str = ""
    code: str = ""
    table: IntermediateTable | None = None
    value: Any = None
    answer: list[str] | None = None
    answer_table: str | None = None
    votes: int = 0
    candidates: int = 0
    tables_used: tuple[str, ...] = field(default=())


def act(
    action: Action,
    *,
    step: int,
    original: Sequence[TableRef],
    intermediate: Sequence[IntermediateTable],
    actx: AgentContext,
    write_code: CodeWriter | None,
    code: str | None = None,
) -> ActOutcome:
    if action.kind in ("Retrieve", "Operate"):
        return _run_coder(action, step, original, intermediate, actx, write_code, code)
    if action.kind == "Calculate":
        try:
            value = calculate(action.argument)
        except CalculationError as exc:
            return ActOutcome(f"Calculate failed: {exc}", False, "calculate")
        return ActOutcome(f"Result: {format_number(value)}", True, value=value)
    if action.kind == "Finish":
        return _finish(action, intermediate, actx)
    return ActOutcome(
        "Search is not available: tableqa ships no search backend (no network). Answer from the tables.",
        False,
        "unavailable",
    )


_TABLE_WORDS = ("df", "new_table", "the table", "table", "df (working table)", "the working table")
_TABLE_VARIABLE = re.compile(r"df(?:_orig_\d{1,4})?|new_table|tbl_[0-9a-f]{32}", re.IGNORECASE)


def _names_a_table(value: str) -> bool:
    """A value that is a table's variable or id (``df``, ``df_orig_1``, ``tbl_...``), not an answer."""
    return _TABLE_VARIABLE.fullmatch(value.strip().strip("`'\"")) is not None


def _finish(action: Action, intermediate: Sequence[IntermediateTable], actx: AgentContext) -> ActOutcome:
    argument = action.argument.strip()
    if argument.lower() in _TABLE_WORDS and not intermediate:
        return ActOutcome(f"Finish[{argument}] names the working table, but no step produced one (the steps failed "
                          "or none ran), so there is no answer to give", False, "finish")
    if argument.lower() in _TABLE_WORDS:
        last = intermediate[-1]
        frame = actx.store.get(last["id"])
        values = answer_strings(v for row in frame.itertuples(index=False) for v in row if v == v)
        observation = f"Answer: the table of step {last['step']}"
        return ActOutcome(observation, True, answer=values[:MAX_ANSWER_VALUES], answer_table=last["id"])
    values = split_answer(argument)
    if not values:
        return ActOutcome("Finish needs an answer inside the brackets", False, "finish")
    named = [v for v in values if _names_a_table(v)]
    if named:
        return ActOutcome(f"Finish[{argument[:80]}] answers with a table's name ({named[0][:40]}), not a value from "
                          "it, so there is no answer to give", False, "finish")
    return ActOutcome(f"Answer: {' | '.join(values)}", True, answer=values[:MAX_ANSWER_VALUES])


def _run_coder(
    action: Action,
    step: int,
    original: Sequence[TableRef],
    intermediate: Sequence[IntermediateTable],
    actx: AgentContext,
    write_code: CodeWriter | None,
    given: str | None,
) -> ActOutcome:
    names = bindings(original, intermediate, chain=actx.options.chain)
    runs: list[StepRun] = []
    error: str | None = None
    attempts = 1 if given is not None else 1 + actx.options.coder_retries
    for _ in range(attempts):
        if given is not None:
            programs = [given]
        elif write_code is None:
            return ActOutcome("No coder is available for this action", False, "no_coder")
        else:
            programs = write_code(action.argument, error, actx.options.code_samples)
        runs = [run_code_step(p, names, actx.pool, actx.store, actx.limits) for p in programs if p.strip()]
        good = [r for r in runs if r.ok]
        if good:
            return _chosen(action, step, good, len(runs), names, actx)
        failed = next((r for r in runs if not r.result.ok), None)
        if failed is not None:
            error = failed.result.error
        elif not runs:
            error = "the coder wrote no program (an empty answer, or one over the size limit)"
        else:
            error = "the code produced no table or value; assign it to new_table"
    error_type = next((str(r.result.error_type) for r in runs if r.result.error_type), "code_error")
    code = runs[0].code if runs else ""
    return ActOutcome(f"The code failed: {error}", False, error_type, code=code, candidates=len(runs))


def _chosen(
    action: Action, step: int, good: list[StepRun], candidates: int, names: dict[str, str], actx: AgentContext
) -> ActOutcome:
    counts = Counter(r.signature() for r in good)
    best, votes = counts.most_common(1)[0]
    run = next(r for r in good if r.signature() == best)
    assert run.table_id is not None
    frame = actx.store.get(run.table_id)
    record: IntermediateTable = {
        "id": run.table_id,
        "step": step,
        "action": action.kind,  # type: ignore[typeddict-item]
        "instruction": action.argument,
        "code": run.code,
        "rows": len(frame),
        "columns": [str(c) for c in frame.columns],
        "input_id": names["df"],
    }
    if run.value is not None:
        observation = f"new df (step {step}) is a single value: {answer_strings([run.value])[0]}"
    else:
        observation = observe(frame, step)
    used = tuple(name for name in names if re.search(rf"\b{name}\b", run.code))
    return ActOutcome(
        observation, True, code=run.code, table=record, value=run.value, votes=votes, candidates=candidates,
        tables_used=used,
    )
