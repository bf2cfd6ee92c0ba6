"""The harness: run an agent's cases (``--limit``, ``--jobs``, a per-case timeout), score them, report.

Cases run through the agent's own case runner (its public ``Session`` API). With ``jobs > 1`` they
run on that many threads, each case in its own session. With a timeout, a case that is not done
in time is recorded as ``wrong`` with the error ``timeout`` and the run goes on; its thread cannot
be stopped from outside and finishes in the background (a daemon thread: it never holds the
process at exit), its result discarded.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..errors import ConfigError, InputError
from .cases import Case, Dataset
from .evaluation import CaseRunner, EvalContext, Evaluation, resolve_dataset
from .report import Report
from .scoring import CaseResult, Output, Scorer, score_case

__all__ = ["evaluation_for", "run_cases", "run_evaluation"]

OnResult = Callable[[CaseResult], None]


def evaluation_for(agent: str | Evaluation) -> Evaluation:
    """An agent's evaluation from the registry (an :class:`Evaluation` is returned as it is)."""
    if isinstance(agent, Evaluation):
        return agent
    from ..registry import get_spec

    spec = get_spec(agent)
    if spec.evaluation is None:
        raise ConfigError(f"agent {agent!r} has no evaluation")
    return spec.evaluation()


def run_evaluation(
    agent: str | Evaluation,
    dataset: str | Sequence[str] | Dataset = "dev",
    *,
    llm: Any = "offline",
    limit: int | None = None,
    jobs: int = 1,
    timeout: float | None = None,
    options: Mapping[str, Any] | None = None,
    models: Mapping[str, Any] | None = None,
    eval_options: Mapping[str, Any] | Any | None = None,
    settings: Any = None,
    scorer: Scorer | None = None,
    on_start: Callable[[Dataset], None] | None = None,
    on_result: OnResult | None = None,
) -> Report:
    """Run ``agent``'s evaluation on ``dataset`` and return the report.

    ``llm`` is ``"offline"``, ``"oracle"`` (the agent's gold-answer model), a ``provider:model``
    spec or a model instance (tests pass wrong oracles this way); ``options`` are agent options,
    ``eval_options`` the evaluation's own (validated by its ``options_model``); ``scorer`` replaces
    the agent's scorer (the mutation tests use it); ``on_start`` gets the cases about to run."""
    evaluation = evaluation_for(agent)
    if jobs < 1:
        raise InputError(f"--jobs must be at least 1, not {jobs}")
    if timeout is not None and timeout <= 0:
        raise InputError(f"--timeout must be a positive number of seconds, not {timeout}")
    own = _eval_options(evaluation, eval_options)
    data = dataset if isinstance(dataset, Dataset) else resolve_dataset(evaluation, dataset)
    if evaluation.select is not None:
        data = Dataset(data.name, tuple(evaluation.select(data.cases, own)), data.sources)
    data = data.limit(limit)
    if not data.cases:
        raise InputError(f"{evaluation.agent}: no cases to evaluate in {data.name!r} (check the dataset, "
                         "--limit and the options that select cases)")
    ctx = EvalContext(evaluation.agent, data, llm=llm, llm_name=_llm_name(llm), models=dict(models or {}),
                      options=dict(options or {}), eval_options=own, settings=settings)
    if on_start is not None:
        on_start(data)
    if llm == "oracle":
        if evaluation.oracle is None:
            raise ConfigError(f"agent {evaluation.agent!r} has no oracle: use --llm offline or provider:model")
        chosen = evaluation.oracle(data.cases, ctx)
        ctx = replace(ctx, llm=chosen.llm, models={**chosen.roles, **ctx.models})
    started = time.perf_counter()
    with evaluation.start(ctx) as run:
        results = run_cases(data.cases, run, scorer or evaluation.scorer, jobs=jobs,
                            timeout=timeout, on_result=on_result)
    seconds = time.perf_counter() - started
    shown_options = {**ctx.options, **(ctx.eval_options.model_dump() if ctx.eval_options is not None else {})}
    return Report(evaluation.agent, data.name, ctx.llm_name, results, dict(evaluation.summarize(results)),
                  tuple(evaluation.headline), tuple(evaluation.groups), data.sources, shown_options, seconds)


def run_cases(cases: Sequence[Case], run: CaseRunner, scorer: Scorer, *, jobs: int = 1,
              timeout: float | None = None, on_result: OnResult | None = None) -> list[CaseResult]:
    """Run and score ``cases``, in their order in the result whatever order they finish in."""
    if jobs == 1 and timeout is None:
        results = []
        for case in cases:
            result = _scored(case, *_timed(run, case), scorer)
            results.append(result)
            if on_result is not None:
                on_result(result)
        return results
    return _run_threads(cases, run, scorer, jobs, timeout, on_result)


def _timed(run: CaseRunner, case: Case) -> tuple[Output, float]:
    started = time.perf_counter()
    try:
        output = run(case)
    except Exception as exc:  # one broken case is a reported failure, not the end of the run
        output = Output(error=f"{type(exc).__name__}: {exc}", failed=True)
    return output, time.perf_counter() - started


def _scored(case: Case, output: Output, seconds: float, scorer: Scorer) -> CaseResult:
    try:
        score = score_case(scorer, case, output)
    except Exception as exc:  # a scorer that breaks on one output must not hide the others
        output = replace(output, error=f"scorer failed: {type(exc).__name__}: {exc}", failed=True)
        score = score_case(scorer, case, output)
    return CaseResult(case, output, score, seconds)


def _run_threads(cases: Sequence[Case], run: CaseRunner, scorer: Scorer, jobs: int, timeout: float | None,
                 on_result: OnResult | None) -> list[CaseResult]:
    done: queue.Queue[tuple[int, Output, float]] = queue.Queue()
    started: dict[int, float] = {}
    results: dict[int, CaseResult] = {}
    waiting = list(range(len(cases)))

    def work(i: int) -> None:
        output, seconds = _timed(run, cases[i])
        done.put((i, output, seconds))

    def finish(i: int, output: Output, seconds: float) -> None:
        started.pop(i, None)
        results[i] = _scored(cases[i], output, seconds, scorer)
        if on_result is not None:
            on_result(results[i])

    while waiting or started:
        while waiting and len(started) < jobs:
            i = waiting.pop(0)
            started[i] = time.monotonic()
            threading.Thread(target=work, args=(i,), name=f"eval-case-{i}", daemon=True).start()
        wait = None
        if timeout is not None:
            wait = max(0.0, min(started.values()) + timeout - time.monotonic())
        try:
            i, output, seconds = done.get(timeout=wait)
        except queue.Empty:
            now = time.monotonic()
            for j, begun in list(started.items()):
                if now - begun >= timeout:  # type: ignore[operator]
                    finish(j, Output(error="timeout", failed=True), now - begun)
            continue
        if i in started:  # a case that timed out earlier and finished since is not counted twice
            finish(i, output, seconds)
    return [results[i] for i in range(len(cases))]


def _llm_name(llm: Any) -> str:
    if llm is None:
        return "offline"
    return llm if isinstance(llm, str) else type(llm).__name__


def _eval_options(evaluation: Evaluation, values: Any) -> Any:
    model = evaluation.options_model
    if model is None:
        if values:
            raise InputError(f"{evaluation.agent}: this evaluation takes no options of its own")
        return None
    if isinstance(values, model):
        return values
    from pydantic import ValidationError

    try:
        return model(**dict(values or {}))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "options"
        raise InputError(f"{evaluation.agent}: eval option {where}: {first['msg']}") from None
