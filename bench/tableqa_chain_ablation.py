"""Chaining ``df`` (ours) against MACT's released behaviour (every step sees the original table).

A scripted model plays planner and coder (``graphagents.testing.FunctionChatModel``): for each
multi-step question built from the shared WTQ dev tables it writes the same MACT plan a good model
would write, and the coder answers each instruction with the pandas code that does it. Three
question families, each 3-4 steps through the sandbox:

* superlative: "which <text column> has the most/least <number column>?" ->
  Retrieve[rows that are not summary rows] -> Operate[rows of df with the largest X] ->
  Operate[keep Y of df] -> Finish[df]
* count: "how many rows have <number column> above <its median>?" ->
  Retrieve[rows that are not summary rows] -> Operate[rows of df with X above v] ->
  Operate[count the rows of df] -> Finish[df]

The gold comes from plain pandas in this process. The same scripts run twice, with ``chain=True``
and ``chain=False`` (MACT's release: the update of the table list fails, every step's ``df`` is the
original table). Figures: right / wrong / declined, and milliseconds per question (p50).

    .venv/bin/python bench/tableqa_chain_ablation.py [--limit 180]
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
import uuid
from dataclasses import dataclass

import pandas as pd
from langchain_core.messages import BaseMessage, SystemMessage

import graphagents as ga
from graphagents.agents.tableqa.datasets import load_wtq, wtq_dev_path
from graphagents.agents.tableqa.metrics import answer_strings, denotation_match
from graphagents.agents.tableqa.offline.rules import SUMMARY_ROW, summary_rows
from graphagents.agents.tableqa.uploads import Uploads
from graphagents.store import database_for
from graphagents.testing import FunctionChatModel

USER = f"bench-ablation-{uuid.uuid4().hex[:8]}"
NOT_TOTAL = (f"text = df_orig_1.select_dtypes(exclude='number').astype(str)\n"
             f"is_total = text.apply(lambda c: c.str.strip().str.lower().str.contains({SUMMARY_ROW!r})).any(axis=1)\n"
             f"new_table = df_orig_1[~is_total]")


@dataclass
class Question:
    text: str
    frame: pd.DataFrame
    name: str
    gold: list[str]
    plan: list[str]  # Thought/Action turns
    family: str


def build_questions(limit: int) -> tuple[list[Question], dict[str, str]]:
    """Questions with one clear answer each, their scripted plans, and the coder's code per instruction."""
    path = wtq_dev_path()
    out: list[Question] = []
    code: dict[str, str] = {"the rows of df_orig_1 that are not summary rows (Total, Career)": NOT_TOTAL,
                            "count the rows of df": "new_table = len(df)"}
    first = ("Thought 1: Leave out summary rows first.\n"
             "Action 1: Retrieve[the rows of df_orig_1 that are not summary rows (Total, Career)]")
    for item in load_wtq(path)[:limit]:
        [table] = item.load_tables()
        frame = table.frame
        text = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
        numbers = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]
        if not text or not numbers:
            continue
        who, what = str(text[0]), str(numbers[-1])
        rows = frame[~summary_rows(frame)]
        for largest in (True, False):
            best = rows[rows[what] == (rows[what].max() if largest else rows[what].min())].drop_duplicates(subset=[who])
            if len(best) != 1:
                continue
            word = "largest" if largest else "smallest"
            pick = f"rows of df with the {word} {what!r}"
            keep = f"keep the column {who!r} of df"
            code[pick] = f"new_table = df.{'nlargest' if largest else 'nsmallest'}(1, {what!r}, keep='all')"
            code[keep] = f"new_table = df[[{who!r}]].drop_duplicates()"
            plan = [first, f"Thought 2: Rank by {what}.\nAction 2: Operate[{pick}]",
                    f"Thought 3: Read the {who}.\nAction 3: Operate[{keep}]", "Thought 4: Done.\nAction 4: Finish[df]"]
            q = f"which {who} has the {'most' if largest else 'least'} {what}?"
            out.append(Question(q, frame, table.name, answer_strings([best[who].iloc[0]]), plan, "superlative"))
        threshold = float(rows[what].median())
        above = f"rows of df with {what!r} above {threshold:g}"
        code[above] = f"new_table = df[df[{what!r}] > {threshold!r}]"
        count = int((rows[what] > threshold).sum())
        if count:
            plan = [first, f"Thought 2: Filter by {what}.\nAction 2: Operate[{above}]",
                    "Thought 3: Count them.\nAction 3: Operate[count the rows of df]",
                    "Thought 4: Done.\nAction 4: Finish[df]"]
            q = f"how many rows have {what} above {threshold:g}?"
            out.append(Question(q, frame, table.name, [str(count)], plan, "count"))
    return out, code


def scripted_model(questions: list[Question], code: dict[str, str]) -> FunctionChatModel:
    plans = {q.text: q.plan for q in questions}

    def reply(messages: list[BaseMessage]) -> str:
        text = "\n".join(str(m.content) for m in messages)
        if any(isinstance(m, SystemMessage) for m in messages):  # the coder
            asked = max((k for k in code if f'지시사항: "{k}"' in text), key=len, default="")
            return f"```python\n{code.get(asked, 'new_table = df')}\n```"
        question = max((q for q in plans if f"Question: {q}" in text), key=len, default="")
        plan = plans.get(question, [])
        step = len(re.findall(r"^Observation \d+:", text, re.M))
        return plan[step] if step < len(plan) else "Thought: done.\nAction: Finish[df]"

    return FunctionChatModel(function=reply)


def run(questions: list[Question], code: dict[str, str], chain: bool) -> dict[str, float]:
    agent = ga.load("tableqa", scripted_model(questions, code), checkpoint_url="memory", chain=chain)
    uploads = Uploads(database_for(agent.settings.resolved_database_url))
    right = wrong = declined = 0
    seconds = []
    for q in questions:
        upload = uploads.add_frame(USER, q.name, q.frame)
        started = time.perf_counter()
        reply = agent.session(None, user_id=USER, tables=[upload.id]).send(q.text)
        seconds.append(time.perf_counter() - started)
        uploads.forget(USER, upload.id)
        answer = list(reply.state.get("answer") or [])
        if not answer:
            declined += 1
        elif denotation_match(q.gold, answer):
            right += 1
        else:
            wrong += 1
            if chain and wrong <= 5:
                print(f"    wrong (chained): {q.text!r} -> {answer[:3]} (gold {q.gold})")
    return {"right": right, "wrong": wrong, "declined": declined,
            "p50_ms": 1000 * statistics.median(seconds) if seconds else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=180, help="WTQ dev tables to build questions from")
    args = parser.parse_args()
    questions, code = build_questions(args.limit)
    families = {f: sum(q.family == f for q in questions) for f in ("superlative", "count")}
    print(f"{len(questions)} multi-step questions (3 code steps + Finish each) from the WTQ dev tables: {families}")
    results = {}
    for chain in (True, False):
        r = results[chain] = run(questions, code, chain)
        label = "chained df (ours)" if chain else "MACT release (df = original)"
        print(f"  {label:<30} right {r['right']:4d}  wrong {r['wrong']:4d}  declined {r['declined']:4d}  "
              f"p50 {r['p50_ms']:.0f} ms per question")
    if results[False]["right"]:
        print(f"  ratio right (chained / release): {results[True]['right'] / results[False]['right']:.1f}x")


if __name__ == "__main__":
    main()
