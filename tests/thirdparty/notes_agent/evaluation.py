"""The notes agent's evaluation (``AgentSpec.evaluation``): its dev cases ship in the package, a case
runs through a public session, and the scorer compares the reply with the expected one."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from importlib import resources
from typing import Any

from graphagents.evals import Case, CaseResult, CaseRunner, EvalContext, Evaluation, Output, Score, Source, read_jsonl
from graphagents.evals.scoring import share


def load(source: Source) -> list[Case]:
    return [Case(str(row["id"]), row["question"], row["answer"]) for row in read_jsonl(source)]


@contextlib.contextmanager
def start(ctx: EvalContext) -> Iterator[CaseRunner]:
    from graphagents.registry import get_spec
    from graphagents.runtime import Agent

    agent = Agent(get_spec("notes"), **ctx.agent_kwargs())

    def run(case: Case) -> Output:
        reply = agent.session(user_id=f"eval-{case.id}").send(str(case.input))  # a user of its own per case
        return Output(answer=reply.text, usage=(reply.usage,))

    yield run


def score(case: Case, output: Output) -> Score:
    right = str(output.answer).strip() == str(case.expected).strip()
    return Score("right" if right else "wrong", {"exact": right})


def summarize(results: Sequence[CaseResult]) -> dict[str, Any]:
    return {"exact": share([r.status == "right" for r in results])}


EVALUATION = Evaluation(
    agent="notes", load=load, start=start, scorer=score, summarize=summarize,
    datasets={"dev": lambda: [resources.files("notes_agent") / "dev.jsonl"]}, headline=("exact",),
    description="replies of the notes agent and its shout sub-agent",
)
