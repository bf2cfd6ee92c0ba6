"""Agents and sessions: the public way to run a registered graph, turn by turn.

A session is a LangGraph thread on the configured checkpointer, so it resumes after a restart.
Each turn either resumes a pending ``interrupt()`` with the user's text or starts a run with
``spec.make_input``; LangGraph's stream is turned into typed events, and every failure,
including the step cap, ends the turn with an ``error`` event and a polite reply.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphRecursionError
from langgraph.types import Command, StreamMode

from . import resources
from .errors import ConfigError, GraphAgentsError, InputError, UnknownSessionError
from .events import ErrorEvent, Event, FinalEvent, StepEvent, jsonable
from .llm import load_chat_model
from .registry import AgentSpec, BuildContext, SessionContext, get_spec
from .settings import Settings, get_settings

log = logging.getLogger("graphagents")

CAP_REPLY = "죄송합니다. 이번 요청은 처리 단계가 너무 많아 여기서 마무리했어요. 다시 말씀해 주시겠어요?"
STREAM_MODES: list[StreamMode] = ["custom", "tasks"]
ERROR_REPLY = "죄송합니다. 처리 중 문제가 생겨 이번 요청을 마치지 못했어요. 잠시 후 다시 시도해 주세요."


@dataclass(frozen=True)
class Reply:
    text: str
    state: dict[str, Any]
    events: list[Event] = field(default_factory=list)
    done: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "done": self.done,
            "state": self.state,
            "events": [e.to_dict() for e in self.events],
        }


def load(name: str, llm: str | BaseChatModel | None = None, *, settings: Settings | None = None,
         **options: Any) -> Agent:
    """Build a registered agent: ``load("slotfill")``, ``load("text2sql", llm="openai:gpt-4o-mini", db=...)``."""
    return Agent(get_spec(name), llm=llm, settings=settings, **options)


class Agent:
    def __init__(self, spec: AgentSpec, *, llm: str | BaseChatModel | None = None,
                 settings: Settings | None = None, checkpoint_url: str | None = None, **options: Any) -> None:
        self.spec = spec
        self.settings = settings or get_settings()
        unknown = set(options) - set(spec.options_help)
        if unknown:
            allowed = ", ".join(sorted(spec.options_help)) or "none"
            raise ConfigError(f"agent {spec.name!r} has no option {sorted(unknown)[0]!r}; options: {allowed}")
        self.options = dict(options)
        self.llm = load_chat_model(llm if llm is not None else self.settings.llm)
        self.checkpointer = resources.checkpointer_for(checkpoint_url or self.settings.resolved_checkpoint_url)
        self.sessions = resources.session_store_for(self.settings.resolved_database_url)
        self.graph = spec.build(BuildContext(self.llm, self.checkpointer, self.settings, self.options))
        self.step_cap = spec.step_cap or self.settings.step_cap
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    @property
    def name(self) -> str:
        return self.spec.name

    def session(self, session_id: str | None = None, **options: Any) -> Session:
        """A new session (``session()``), or the named one, created if it does not exist yet."""
        if session_id is not None:
            record = self.sessions.get(self.name, session_id)
            if record is not None:
                return Session(self, session_id, record.options)
        sid = session_id or uuid.uuid4().hex[:16]
        _check_session_id(sid)
        unknown = set(options) - set(self.spec.session_options_help)
        if unknown:
            allowed = ", ".join(sorted(self.spec.session_options_help)) or "none"
            raise ConfigError(
                f"agent {self.name!r} sessions take no option {sorted(unknown)[0]!r}; options: {allowed}"
            )
        self.sessions.create(self.name, sid, dict(options))
        return Session(self, sid, dict(options))

    def get_session(self, session_id: str) -> Session:
        """An existing session; UnknownSessionError when there is none with that id."""
        record = self.sessions.get(self.name, session_id)
        if record is None:
            raise UnknownSessionError(f"agent {self.name!r} has no session {session_id!r}")
        return Session(self, session_id, record.options)

    def _lock_for(self, session_id: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(session_id, threading.Lock())


def _check_session_id(sid: str) -> None:
    if not (1 <= len(sid) <= 64) or not all(c.isalnum() or c in "-_" for c in sid):
        raise InputError(f"bad session id {sid!r}: use 1-64 letters, digits, '-' or '_'")


class Session:
    def __init__(self, agent: Agent, session_id: str, options: Mapping[str, Any]) -> None:
        self.agent = agent
        self.id = session_id
        self.options = dict(options)

    @property
    def config(self) -> RunnableConfig:
        return {
            "configurable": {"thread_id": f"{self.agent.name}:{self.id}", "session_options": self.options},
            "recursion_limit": self.agent.step_cap,
        }

    @property
    def state(self) -> dict[str, Any]:
        snapshot = self.agent.graph.get_state(self.config)
        return jsonable(self.agent.spec.public_state(snapshot.values or {}))

    @property
    def pending(self) -> str | None:
        """The question the agent is waiting on, if any."""
        snapshot = self.agent.graph.get_state(self.config)
        return _interrupt_text(snapshot.interrupts) if snapshot.interrupts else None

    def _validate(self, text: str) -> str:
        if not isinstance(text, str):
            raise InputError("message must be a string")
        stripped = text.strip()
        if not stripped:
            raise InputError("message is empty: type something for the agent")
        limit = self.agent.settings.max_message_chars
        if len(text) > limit:
            raise InputError(f"message is {len(text)} characters long; the limit is {limit}")
        return stripped

    def stream(self, text: str) -> Iterator[Event]:
        """Events of one turn as they happen; the last one is a FinalEvent. Bad input raises now."""
        clean = self._validate(text)
        return self._run(clean)

    def _run(self, text: str) -> Iterator[Event]:
        agent = self.agent
        graph, config = agent.graph, self.config
        with agent._lock_for(self.id):
            snapshot = graph.get_state(config)
            if snapshot.interrupts:
                graph_input: Any = Command(resume=text)
            else:
                ctx = SessionContext(self.id, self.options, first_turn=not snapshot.values)
                graph_input = agent.spec.make_input(text, ctx)
            failure: str | None = None
            try:
                for mode, chunk in graph.stream(graph_input, config, stream_mode=STREAM_MODES):
                    if mode == "custom" and isinstance(chunk, Event):
                        yield chunk
                    elif mode == "tasks" and isinstance(chunk, dict) and not chunk["name"].startswith("__"):
                        if "input" in chunk:
                            yield StepEvent(chunk["name"], "start")
                        else:
                            err = chunk.get("error")
                            yield StepEvent(chunk["name"], "end", None if err is None else str(err))
            except GraphRecursionError:
                failure = CAP_REPLY
                yield ErrorEvent(f"step cap of {agent.step_cap} reached; the turn was ended", code="step_cap")
            except GraphAgentsError as exc:
                failure = ERROR_REPLY
                yield ErrorEvent(str(exc), code=type(exc).__name__)
            except Exception as exc:  # the session must survive any bug in a node
                log.exception("agent %s session %s failed", agent.name, self.id)
                failure = ERROR_REPLY
                yield ErrorEvent(f"internal error: {type(exc).__name__}: {exc}", code="internal")
            snapshot = graph.get_state(config)
            values = snapshot.values or {}
            if failure is not None:
                reply, done = failure, False
            elif snapshot.interrupts:
                reply, done = _interrupt_text(snapshot.interrupts), False
            else:
                reply, done = str(values.get("reply", "")), not snapshot.next
            yield FinalEvent(reply, done, jsonable(agent.spec.public_state(values)))

    def send(self, text: str) -> Reply:
        events = list(self.stream(text))
        final = events[-1]
        assert isinstance(final, FinalEvent)
        return Reply(final.text, final.state, events, final.done)

    def astream(self, text: str) -> AsyncIterator[Event]:
        """The async twin of ``stream``: the graph runs in a worker thread, events cross a queue.

        Bad input raises here, before anything is streamed."""
        return self._bridge(self.stream(text))

    async def _bridge(self, events: Iterator[Event]) -> AsyncIterator[Event]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        end = object()

        def put(item: Any) -> None:
            # If the loop is gone the consumer left; the turn still finishes and is checkpointed.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(queue.put_nowait, item)

        def worker() -> None:
            try:
                for ev in events:
                    put(ev)
            except BaseException as exc:
                put(exc)
            finally:
                put(end)

        loop.run_in_executor(None, worker)
        while True:
            item = await queue.get()
            if item is end:
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    async def asend(self, text: str) -> Reply:
        events = [ev async for ev in self.astream(text)]
        final = events[-1]
        assert isinstance(final, FinalEvent)
        return Reply(final.text, final.state, events, final.done)


def _interrupt_text(interrupts: Any) -> str:
    value = interrupts[0].value
    if isinstance(value, Mapping):
        return str(value.get("text") or value.get("question") or value.get("reply") or "")
    return str(value)
