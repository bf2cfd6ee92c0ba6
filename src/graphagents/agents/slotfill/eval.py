"""slotfill's evaluation: labelled utterances (intent and slots) and scripted dialogs (completion,
wrong read-backs, turns, caps, corrections), in one dataset.

Utterances are read by ``Engine.interpret`` — the function the conversation uses, with the agent's
model when it has one — at the stage each line names, with the slots of a typical application
already filled (the stage's own slots removed for collection stages, as when they are being asked).
Dialogs are played through the agent's public ``Session`` API, each on a checkpointer of its own
(a ``restart: true`` step drops it, as a new process would).

A dialog's *wrong read-back* is a confirmation turn whose state shows a slot value other than the
dialog expects at that step, or a completed application whose final slots differ from the
expected ones: a value the user did not say, proposed for confirmation. (Only the values a step
states are checked at that step: a value expected earlier may have been corrected since.)
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...errors import InputError
from ...evals import Case, CaseResult, EvalContext, Evaluation, Output, Score, Source, read_jsonl
from ...evals.scoring import errors_of, share
from .scenario import Scenario

__all__ = ["EVALUATION", "TYPICAL_SLOTS", "bundled_conversations", "load_cases", "load_utterances", "score"]

TYPICAL_SLOTS: dict[str, Any] = {
    "customer_name": "김민수", "customer_phone": "010-1234-5678", "use_lifelong_account": True,
    "use_internet_banking": True, "security_medium": "OTP", "transfer_limit_per_time": 3_000_000,
    "transfer_limit_per_day": 10_000_000, "important_transaction_alert": True, "withdrawal_alert": True,
    "overseas_ip_restriction": True,
}


def _evaldata(name: str) -> Traversable:
    return resources.files(__package__).joinpath("evaldata", name)


def bundled_conversations() -> Traversable:
    """The scripted conversations shipped with the agent (tests play them too)."""
    return _evaldata("conversations")


def _heldout() -> list[Source]:
    dialogs = _evaldata("conversations_heldout")
    return [_evaldata("utterances_heldout.jsonl"), *([dialogs] if dialogs.is_dir() else [])]


DATASETS: dict[str, Callable[[], Sequence[Source]]] = {
    "dev": lambda: [_evaldata("utterances.jsonl"), bundled_conversations()],
    "heldout": _heldout,
}


class EvalOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scenario: str | None = Field(None, description="scenario file (default: bundled)")


def load_utterances(path: str | Path | Traversable | None = None) -> list[dict[str, Any]]:
    """The labelled utterances of a JSON-lines file (default: the bundled dev set)."""
    return read_jsonl(_evaldata("utterances.jsonl") if path is None else
                      (Path(path) if isinstance(path, str | Path) else path))


def load_cases(source: Source) -> list[Case]:
    """A ``.jsonl`` of utterances, or a folder of conversation ``.yaml`` files."""
    from ...testing.conversations import load_conversations

    name = source.name
    if source.is_dir():
        try:
            dialogs = load_conversations(source)
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read conversations: {exc}") from None
        return [_dialog_case(file, data) for file, data in dialogs]
    if name.endswith((".yaml", ".yml")):
        raise InputError(f"{name!r}: give the folder that holds the conversation files, not one file")
    stem = name.rsplit(".", 1)[0]
    cases = []
    for n, row in enumerate(read_jsonl(source), 1):
        if not {"text", "stage", "intent"} <= set(row):
            raise InputError(f"{name} line {n}: an utterance needs text, stage and intent")
        cases.append(Case(f"{stem}:{n}", str(row["text"]),
                          {"intent": row["intent"], "slots": dict(row.get("slots") or {})},
                          {"kind": "utterance", "stage": row["stage"], "context": row.get("context") or {}}))
    return cases


def _dialog_case(file: str, data: Mapping[str, Any]) -> Case:
    users = [str(s["user"]) for s in data["steps"] if "user" in s]
    return Case(f"dialog:{file.rsplit('.', 1)[0]}", users, dict(data),
                {"kind": "dialog", "question": str(data.get("name", file))})


# ----------------------------------------------------------------------------------------- running


def _work_for(sc: Scenario, stage_id: str, ctx: Mapping[str, Any]) -> Any:
    from .flow import stage_fields
    from .work import Work

    slots = dict(ctx.get("slots", TYPICAL_SLOTS))
    stage = sc.stages[stage_id]
    w = Work.from_state({"slots": slots, "stage_id": stage.id}, sc.start_stage_id)
    if stage.stage_type == "collection" and "unset" not in ctx:
        ctx = {**ctx, "unset": stage_fields(sc, stage, w)}
    for key in ctx.get("unset", []):
        w.slots.pop(key, None)
    if ctx.get("correction_fields"):
        w.correction_context = {"fields": list(ctx["correction_fields"])}
    return w


def _canonical(sc: Scenario, values: Mapping[str, Any]) -> dict[str, Any]:
    from .values import normalise

    out = {}
    for key, value in values.items():
        try:
            out[key] = normalise(sc.slots[key], value) if key in sc.slots else value
        except ValueError:
            out[key] = value
    return out


@contextmanager
def _start(ctx: EvalContext) -> Iterator[Any]:
    from ...runtime import Agent
    from ...settings import get_settings
    from ...testing.conversations import drop_process_resources
    from .engine import Engine
    from .scenario import load_scenario
    from .spec import SPEC
    from .understanding import Understanding

    scenario = ctx.option("scenario") or ctx.options.get("scenario")
    options = {**ctx.options, **({"scenario": scenario} if scenario else {})}
    sc = load_scenario(scenario)
    confirming = {s.id for s in sc.stages.values() if s.stage_type == "confirmation"}
    base = ctx.settings or get_settings()
    with tempfile.TemporaryDirectory(prefix="slotfill-eval-") as tmp:
        def make_agent(case_id: str) -> Agent:
            url = f"sqlite:///{Path(tmp) / (case_id.replace(':', '_') + '.sqlite')}"
            settings = base.model_copy(update={"data_dir": Path(tmp), "checkpoint_url": url})
            kwargs = {**ctx.agent_kwargs(settings=settings), **options}
            return Agent(SPEC, **kwargs)

        engine: list[Any] = []
        lock = threading.Lock()

        def utterance(case: Case) -> Output:
            with lock:
                if not engine:  # the engine the agent's graph uses, with the agent's model
                    engine.append(Engine(sc, Understanding(make_agent("nlu").llm)))
            meaning = engine[0].interpret(_work_for(sc, str(case.metadata["stage"]), case.metadata["context"]),
                                          str(case.input))
            got = _canonical(sc, meaning.values)
            expected = _canonical(sc, case.expected["slots"])
            return Output({"intent": meaning.intent, "slots": got},
                          {"intent": meaning.intent, "slots": got, "expected_slots": expected})

        def dialog(case: Case) -> Output:
            agent = make_agent(case.id)
            session = agent.session(None, **dict(case.expected.get("session_options") or {}))
            turns: list[dict[str, Any]] = []
            usage = []
            try:
                for step in case.expected["steps"]:
                    if step.get("restart"):
                        drop_process_resources(agent)
                        agent = make_agent(case.id)
                        session = agent.get_session(session.id)
                        turns.append({"restart": True})
                        continue
                    reply = session.send(str(step["user"]))
                    usage.append(reply.usage)
                    stage = reply.state.get("stage")
                    turns.append({"user": str(step["user"]), "reply": reply.text, "state": reply.state,
                                  "done": reply.done, "errors": errors_of(reply.events),
                                  "confirming": stage in confirming})
                final = session.state
                stats = dict((agent.graph.get_state(session.config).values or {}).get("stats") or {})
            finally:
                drop_process_resources(agent)
            said = [t for t in turns if "user" in t]
            return Output(said[-1]["reply"] if said else "", {"turns": turns, "final": final, "stats": stats},
                          {"turns": len(said), "final_status": final.get("status")}, tuple(usage),
                          "; ".join(t["errors"] for t in said if t["errors"]))

        yield lambda case: dialog(case) if case.kind == "dialog" else utterance(case)


# ----------------------------------------------------------------------------------------- scoring


def score(case: Case, output: Output) -> Score:
    return _score_dialog(case, output) if case.kind == "dialog" else _score_utterance(case, output)


def _score_utterance(case: Case, output: Output) -> Score:
    intent, got = output.data.get("intent"), dict(output.data.get("slots") or {})
    expected = dict(output.data.get("expected_slots") or {})
    hits = sum(1 for k, v in got.items() if k in expected and expected[k] == v)
    metrics = {"intent_ok": intent == case.expected["intent"], "slot_tp": hits, "slot_fp": len(got) - hits,
               "slot_fn": len(expected) - hits}
    if intent == case.expected["intent"] and got == expected:
        return Score("right", metrics, "intent and slots")
    if intent == "unclear" and not got and case.expected["intent"] != "unclear":
        return Score("declined", metrics, "not understood: the agent asks again")
    if intent == case.expected["intent"] and hits == len(got):
        return Score("partial", metrics, f"missed {', '.join(sorted(set(expected) - set(got)))}")
    if intent != case.expected["intent"]:
        return Score("wrong", metrics, f"intent {intent}, expected {case.expected['intent']}")
    return Score("wrong", metrics, f"slots {got}, expected {expected}")


def _score_dialog(case: Case, output: Output) -> Score:
    import re

    from ...testing.conversations import check_state

    steps, turns = list(case.expected["steps"]), list(output.data.get("turns") or [])
    final = dict(output.data.get("final") or {})
    wrong: list[str] = []
    text: list[str] = []
    readbacks: list[str] = []
    if len(turns) != len(steps):
        wrong.append(f"{len(turns)} turns recorded for {len(steps)} steps")
    for i, (step, turn) in enumerate(zip(steps, turns, strict=False), 1):
        if step.get("restart"):
            continue
        where, reply, state = f"step {i} ({step['user']!r})", str(turn.get("reply", "")), turn.get("state") or {}
        if turn.get("errors"):
            wrong.append(f"{where}: error events {turn['errors']}")
        if "bot" in step and str(step["bot"]) not in reply:
            text.append(f"{where}: reply lacks {step['bot']!r}")
        if "bot_re" in step and not re.search(str(step["bot_re"]), reply):
            text.append(f"{where}: reply does not match /{step['bot_re']}/")
        if "not_bot" in step and str(step["not_bot"]) in reply:
            text.append(f"{where}: reply must not contain {step['not_bot']!r}")
        for path, value in (step.get("state") or {}).items():
            failed = check_state(where, {path: value}, state)
            wrong.extend(failed)
            if failed and str(path).startswith("slots.") and turn.get("confirming"):
                readbacks.extend(failed)
        if "done" in step and bool(turn.get("done")) != bool(step["done"]):
            wrong.append(f"{where}: done={turn.get('done')}, expected {step['done']}")
    for path, value in (case.expected.get("final_state") or {}).items():
        failed = check_state("at the end", {path: value}, final)
        wrong.extend(failed)
        if failed and str(path).startswith("slots.") and final.get("status") == "completed":
            readbacks.extend(failed)
    expected_status = (case.expected.get("final_state") or {}).get("status")
    metrics = {"turns": sum(1 for t in turns if "user" in t), "completed": final.get("status") == "completed",
               "expected_completed": expected_status == "completed", "wrong_readbacks": len(readbacks)}
    if readbacks:
        return Score("wrong", metrics, "wrong read-back: " + readbacks[0])
    if expected_status == "completed" and final.get("status") in ("handoff", "cancelled"):
        return Score("declined", metrics, f"ended in {final.get('status')} instead of completing")
    if wrong:
        return Score("wrong", metrics, wrong[0])
    if text:
        return Score("partial", metrics, "the flow is right, a reply's wording is not: " + text[0])
    return Score("right", metrics, "every step as scripted")


def summarize(results: Sequence[CaseResult]) -> dict[str, Any]:
    utterances = [r for r in results if r.case.kind == "utterance"]
    dialogs = [r for r in results if r.case.kind == "dialog"]
    tp, fp, fn = (sum(int(r.score.metrics.get(k) or 0) for r in utterances) for k in ("slot_tp", "slot_fp", "slot_fn"))
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    stats = [dict(r.output.data.get("stats") or {}) for r in dialogs]
    to_complete = [r for r in dialogs if r.score.metrics.get("expected_completed")]
    happy = [r for r in dialogs if str(r.case.metadata.get("question", "")).startswith("happy path")]
    turns = [int(r.score.metrics.get("turns") or 0) for r in dialogs]
    return {
        "utterances": len(utterances),
        "intent_accuracy": share([bool(r.score.metrics.get("intent_ok")) for r in utterances]),
        "slot_precision": round(precision, 4), "slot_recall": round(recall, 4),
        "slot_f1": round(2 * precision * recall / (precision + recall), 4) if precision + recall else 0.0,
        "dialogs": len(dialogs),
        "task_success": share([r.status == "right" for r in dialogs]),
        "completion": share([r.status == "right" for r in to_complete]),
        "wrong_readbacks": sum(bool(r.score.metrics.get("wrong_readbacks")) for r in dialogs),
        "avg_turns": round(sum(turns) / len(turns), 2) if turns else 0.0,
        "happy_path_turns": int(happy[0].score.metrics.get("turns") or 0) if happy else 0,
        "infinite_loops": sum("step cap" in r.output.error for r in dialogs),
        "caps_hit": sum(s.get("loops_hit", 0) + s.get("retry_caps", 0) for s in stats),
        "corrections_requested": sum(s.get("corrections_requested", 0) for s in stats),
        "corrections_handled": sum(s.get("corrections_handled", 0) for s in stats),
    }


EVALUATION = Evaluation(
    agent="slotfill",
    load=load_cases,
    start=_start,
    scorer=score,
    summarize=summarize,
    datasets=DATASETS,
    headline=("intent_accuracy", "slot_f1", "completion", "wrong_readbacks", "task_success"),
    groups=("kind",),
    options_model=EvalOptions,
    description="Intent accuracy and slot F1 on labelled utterances; completion, wrong read-backs, turns, caps "
                "and corrections on scripted dialogs.",
)
