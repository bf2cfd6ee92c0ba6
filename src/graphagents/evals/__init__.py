"""One evaluation harness for every agent (in the spirit of pydantic-evals and Inspect).

An agent supplies an :class:`Evaluation`: its datasets (``dev``, ``heldout``), how to read a file
of :class:`Case` objects, how to run one case through its public ``Session`` API, a scorer that
gives each case a status (``right`` / ``partial`` / ``declined`` / ``wrong``) and named metrics, the
headline figures, and its oracle (``--llm oracle``). The harness runs the cases (``--limit``,
``--jobs``, a per-case timeout), writes the same ``report.json`` / ``report.md`` for every agent and
compares two reports (``graphagents eval compare A B``). :mod:`.checks` tests the scorers.

    from graphagents.evals import run_evaluation
    report = run_evaluation("text2sql", "dev", llm="oracle", limit=10)
    report.counts()   # {"right": 10, "partial": 0, "declined": 0, "wrong": 0}
"""

from .cases import STATUSES, Case, Dataset, Source, Status, read_jsonl
from .checks import assert_measuring_stick, expect, scorer_failures
from .compare import Comparison, compare_reports, load_report
from .evaluation import CaseRunner, EvalContext, Evaluation, Models, missing_dataset, resolve_dataset
from .report import Report
from .runner import evaluation_for, run_cases, run_evaluation
from .scoring import CaseResult, Output, Score, Scorer, always, rescore, score_case

__all__ = [
    "STATUSES",
    "Case",
    "CaseResult",
    "CaseRunner",
    "Comparison",
    "Dataset",
    "EvalContext",
    "Evaluation",
    "Models",
    "Output",
    "Report",
    "Score",
    "Scorer",
    "Source",
    "Status",
    "always",
    "assert_measuring_stick",
    "compare_reports",
    "evaluation_for",
    "expect",
    "load_report",
    "missing_dataset",
    "read_jsonl",
    "rescore",
    "resolve_dataset",
    "run_cases",
    "run_evaluation",
    "score_case",
    "scorer_failures",
]
