"""Scripted conversations as data (Rasa-style end-to-end stories) for any agent.

One YAML file per conversation; one parametrised test plays them all::

    name: correction of the phone number at the first confirmation
    session_options: {profile: {customer_name: 김민수, customer_phone: 010-1234-5678}}   # optional
    steps:
      - user: 안녕하세요
        bot: 이 정보가 맞으신가요             # a substring of the reply
      - user: 번호가 틀렸어요 010-9876-5432
        bot_re: 연락처를 010-9876-5432로     # a regex searched in the reply
        not_bot: 신청이 완료                 # must not appear in the reply
        state: {stage: confirm_basic_info, slots.customer_phone: 010-9876-5432}
        done: false
      - restart: true                       # a new process: connections dropped, agent rebuilt
    final_state: {status: completed, slots.security_medium: OTP}

``state`` and ``final_state`` map paths into the agent's public state (``Session.state``: dots
between keys, digits index lists) to expected values; ``null`` means absent (or null). Every failed
expectation is recorded and the conversation goes on to the end, so one run shows every miss.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import yaml

from ..runtime import Agent
from ..usage import Usage

__all__ = [
    "ConversationResult",
    "check_state",
    "drop_process_resources",
    "load_conversations",
    "lookup",
    "run_all",
    "run_conversation",
]

_FILE_KEYS = frozenset({"name", "session_options", "steps", "final_state"})
_STEP_KEYS = frozenset({"user", "bot", "bot_re", "not_bot", "state", "done"})
_MISSING = object()


@dataclass
class ConversationResult:
    """What one played conversation did: failures, the transcript, the final public state and the
    graph's own values (for statistics an agent keeps outside its public state)."""

    name: str
    ok: bool
    turns: int = 0
    failures: list[str] = field(default_factory=list)
    transcript: list[tuple[str, str]] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)
    usage: list[Usage] = field(default_factory=list)
    """Per turn: model calls, tokens, latency and steps (``Reply.usage``)."""


def _check(name: str, data: Any) -> dict[str, Any]:
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise ValueError(f"{name}: a conversation needs a 'steps' list")
    unknown = set(data) - _FILE_KEYS
    if unknown:
        raise ValueError(f"{name}: unknown key {sorted(unknown)[0]!r}; keys: {', '.join(sorted(_FILE_KEYS))}")
    for i, step in enumerate(data["steps"], 1):
        if not isinstance(step, dict) or ("user" in step) == bool(step.get("restart")):
            raise ValueError(f"{name}: step {i} needs either 'user' or 'restart: true'")
        unknown = set(step) - _STEP_KEYS - {"restart"}
        if unknown:
            raise ValueError(f"{name}: step {i}: unknown key {sorted(unknown)[0]!r}; "
                             f"keys: {', '.join(sorted(_STEP_KEYS))}, restart")
    return data


def load_conversations(directory: str | Path | Traversable) -> list[tuple[str, dict[str, Any]]]:
    """(file name, conversation) for every *.yaml / *.yml file in ``directory``, sorted by name;
    a malformed file raises ValueError naming it."""
    root: Traversable = Path(directory) if isinstance(directory, str | Path) else directory
    out = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.endswith((".yaml", ".yml")):
            data = yaml.safe_load(entry.read_text(encoding="utf-8"))
            out.append((entry.name, _check(entry.name, data)))
    return out


def lookup(state: Any, path: str) -> Any:
    """The value at a dotted ``path`` ("slots.customer_name", "rows.0.id"), or a sentinel when absent."""
    value = state
    for part in path.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list | tuple) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def _matches(expected: Any, actual: Any) -> bool:
    if expected is None:
        return actual is _MISSING or actual is None
    if isinstance(expected, int | float) and not isinstance(expected, bool):
        return isinstance(actual, int | float) and not isinstance(actual, bool) and expected == actual
    return bool(expected == actual)


def _shown(value: Any) -> str:
    return "absent" if value is _MISSING else repr(value)


def check_state(where: str, expected: Mapping[str, Any], state: Mapping[str, Any]) -> list[str]:
    """Failures of ``state`` against ``expected`` (path -> value)."""
    failures = []
    for path, value in expected.items():
        actual = lookup(state, str(path))
        if not _matches(value, actual):
            failures.append(f"{where}: state {path} is {_shown(actual)}, expected "
                            f"{'absent' if value is None else repr(value)}")
    return failures


def drop_process_resources(agent: Agent) -> None:
    """Close and forget the process-wide checkpointer of ``agent``: the next Agent opens a new
    one, exactly as a restarted process would."""
    from .. import _connections

    _connections.forget(agent.settings.resolved_checkpoint_url)


def run_conversation(name: str, data: Mapping[str, Any], make_agent: Callable[[], Agent], *,
                     session_id: str | None = None,
                     restart: Callable[[Agent], None] = drop_process_resources) -> ConversationResult:
    """Play one conversation against agents built by ``make_agent``; ``restart`` simulates a new
    process at each ``restart: true`` step."""
    agent = make_agent()
    session = agent.session(session_id, **dict(data.get("session_options") or {}))
    result = ConversationResult(name=str(data.get("name", name)), ok=True)
    for i, step in enumerate(data["steps"], 1):
        if step.get("restart"):
            restart(agent)
            agent = make_agent()
            session = agent.get_session(session.id)
            continue
        text = str(step["user"])
        where = f"step {i} ({text!r})"
        reply = session.send(text)
        result.usage.append(reply.usage)
        result.turns += 1
        result.transcript.append((text, reply.text))
        errors = [e.to_dict().get("message") for e in reply.events if e.type == "error"]
        if errors:
            result.failures.append(f"{where}: error events {errors}")
        if "bot" in step and str(step["bot"]) not in reply.text:
            result.failures.append(f"{where}: reply lacks {step['bot']!r}: {reply.text!r}")
        if "bot_re" in step and not re.search(str(step["bot_re"]), reply.text):
            result.failures.append(f"{where}: reply does not match /{step['bot_re']}/: {reply.text!r}")
        if "not_bot" in step and str(step["not_bot"]) in reply.text:
            result.failures.append(f"{where}: reply must not contain {step['not_bot']!r}: {reply.text!r}")
        result.failures.extend(check_state(where, step.get("state") or {}, reply.state))
        if "done" in step and reply.done != bool(step["done"]):
            result.failures.append(f"{where}: done={reply.done}, expected {step['done']}")
    result.state = session.state
    result.values = dict(agent.graph.get_state(session.config).values or {})
    result.failures.extend(check_state("at the end", data.get("final_state") or {}, result.state))
    result.ok = not result.failures
    return result


def run_all(conversations: Iterable[tuple[str, Mapping[str, Any]]],
            make_agent: Callable[[], Agent]) -> list[ConversationResult]:
    """Play every conversation, each in a new session."""
    return [run_conversation(name, data, make_agent) for name, data in conversations]
