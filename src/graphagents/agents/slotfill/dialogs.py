"""Scripted conversations as data (Rasa-style end-to-end stories), shared by tests and eval.

A conversation file::

    name: correction of the phone number at the first confirmation
    profile: {customer_name: 김민수, customer_phone: 010-1234-5678}   # optional
    outcome: completed            # completed | cancelled | handoff | active (expected final status)
    steps:
      - user: 안녕하세요
        bot: 이 정보가 맞으신가요        # substring of the reply
      - user: 번호가 틀렸어요 010-9876-5432
        bot_re: 연락처를 010-9876-5432로   # or a regex
        slot_was_set: {customer_phone: 010-9876-5432}
        stage: confirm_basic_info
      - restart: true              # a new process: connections dropped, agent rebuilt, same session
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import yaml

from ...runtime import Agent, Session
from ...usage import Usage


@dataclass
class DialogResult:
    name: str
    ok: bool
    turns: int
    failures: list[str] = field(default_factory=list)
    status: str | None = None
    stats: dict[str, int] = field(default_factory=dict)
    transcript: list[tuple[str, str]] = field(default_factory=list)
    usage: list[Usage] = field(default_factory=list)


def bundled_dir() -> Traversable:
    return resources.files(__package__).joinpath("evaldata", "conversations")


def load_dialogs(directory: str | Path | Traversable | None = None) -> list[tuple[str, dict[str, Any]]]:
    """(file name, parsed conversation) for every *.yaml file, sorted by name."""
    root: Traversable = bundled_dir() if directory is None else (
        directory if not isinstance(directory, str | Path) else Path(directory))
    out = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.endswith((".yaml", ".yml")):
            data = yaml.safe_load(entry.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
                raise ValueError(f"{entry.name}: a conversation needs a 'steps' list")
            out.append((entry.name, data))
    return out


def _matches(expected: Any, actual: Any) -> bool:
    if isinstance(expected, int | float) and not isinstance(expected, bool) and isinstance(actual, int):
        return int(expected) == actual
    return bool(expected == actual)


def run_dialog(name: str, data: dict[str, Any], make_agent: Callable[[], Agent],
               session_id: str | None = None) -> DialogResult:
    """Play one conversation; every failed expectation is recorded, the run goes on to the end."""
    agent = make_agent()
    options = {"profile": data["profile"]} if "profile" in data else {}
    session: Session = agent.session(session_id, **options)
    result = DialogResult(name=data.get("name", name), ok=True, turns=0)
    for i, step in enumerate(data["steps"]):
        where = f"step {i + 1}"
        if step.get("restart"):
            drop_checkpointer(agent.settings.resolved_checkpoint_url)
            agent = make_agent()
            session = agent.get_session(session.id)
            continue
        text = str(step["user"])
        reply = session.send(text)
        result.usage.append(reply.usage)
        result.turns += 1
        result.transcript.append((text, reply.text))
        errors = [e.to_dict()["message"] for e in reply.events if e.type == "error"]
        if errors:
            result.failures.append(f"{where}: error events {errors}")
        if "bot" in step and str(step["bot"]) not in reply.text:
            result.failures.append(f"{where} ({text!r}): reply lacks {step['bot']!r}: {reply.text!r}")
        if "bot_re" in step and not re.search(str(step["bot_re"]), reply.text):
            result.failures.append(f"{where} ({text!r}): reply does not match /{step['bot_re']}/: {reply.text!r}")
        if "not_bot" in step and str(step["not_bot"]) in reply.text:
            result.failures.append(f"{where} ({text!r}): reply must not contain {step['not_bot']!r}")
        slots = reply.state.get("slots") or {}
        for key, value in (step.get("slot_was_set") or {}).items():
            if value is None:
                if key in slots:
                    result.failures.append(f"{where} ({text!r}): slot {key} should be unset, is {slots[key]!r}")
            elif key not in slots or not _matches(value, slots[key]):
                result.failures.append(f"{where} ({text!r}): slot {key} = {slots.get(key)!r}, expected {value!r}")
        if "stage" in step and reply.state.get("stage") != step["stage"]:
            result.failures.append(f"{where} ({text!r}): stage {reply.state.get('stage')!r}, "
                                   f"expected {step['stage']!r}")
        if "done" in step and reply.done != bool(step["done"]):
            result.failures.append(f"{where} ({text!r}): done={reply.done}, expected {step['done']}")
    values = agent.graph.get_state(session.config).values or {}
    result.status = values.get("status")
    result.stats = dict(values.get("stats") or {})
    expected = data.get("outcome")
    if expected and result.status != expected:
        result.failures.append(f"final status {result.status!r}, expected {expected!r}")
    for key, value in (data.get("final_slots") or {}).items():
        slots = values.get("slots") or {}
        if value is None and key in slots:
            result.failures.append(f"final slot {key} should be unset, is {slots[key]!r}")
        elif value is not None and not _matches(value, slots.get(key)):
            result.failures.append(f"final slot {key} = {slots.get(key)!r}, expected {value!r}")
    result.ok = not result.failures
    return result


def iter_results(dialogs: list[tuple[str, dict[str, Any]]], make_agent: Callable[[], Agent]) -> Iterator[DialogResult]:
    for name, data in dialogs:
        yield run_dialog(name, data, make_agent)


def drop_checkpointer(url: str) -> None:
    """Close and forget the process-wide checkpointer for ``url``: the next Agent opens a new one,
    exactly as a restarted process would."""
    from ... import _connections

    _connections.forget(url)
