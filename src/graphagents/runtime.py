"""Agents and sessions: the public way to run a registered graph, turn by turn.

A session is a LangGraph thread on the configured checkpointer, so it resumes after a restart.
Each turn either answers the first pending ``interrupt()`` with the user's text (by interrupt id
when parallel branches wait on several) or starts a run with ``spec.make_input``. LangGraph's
stream, subgraphs included, is turned into typed events that carry their namespace; the turn ends
with a ``FinalEvent`` (reply, every pending question, artifacts, usage).

Two ways to run a turn, one behaviour:

* ``send``/``stream`` run ``graph.stream`` in the caller's thread on the sync checkpointer;
* ``asend``/``astream`` run ``graph.astream`` on the turn loop (see ``_loop``) with the async
  checkpointer, so ``async def`` nodes are awaited. ``send``/``stream`` take this path too when
  the graph has async nodes.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import re
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph.pregel import Pregel

from . import _connections, _loop
from ._checkpoint import flush_turn_writes, turn_reads
from ._locks import SessionLocks, shared_locks_for
from ._options import validate_options
from ._sessions import SessionRecord
from ._turn import Turn, questions_of
from .artifacts import Artifact
from .errors import BusyError, ConfigError, GraphAgentsError, InputError, SessionExistsError, UnknownSessionError
from .events import Event, FinalEvent, Question, jsonable
from .llm import load_chat_model
from .registry import ANONYMOUS, AgentSpec, BuildContext, EmbedderFactory, EmbedderLike, SessionContext, get_spec
from .settings import Settings, get_settings
from .usage import Usage

__all__ = ["Agent", "Reply", "Session", "check_text_values", "check_user_id", "has_async_nodes", "load",
           "text_problem"]

T = TypeVar("T")
_background: set[asyncio.Future[None]] = set()
STARTED = object()
"""Handed to the caller when the turn holds its session lock (never shown as an event)."""
_END = object()
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_USER_ID = re.compile(r"[A-Za-z0-9_.@:+-]{1,128}")


@dataclass(frozen=True)
class Reply:
    """One turn's outcome. ``text`` is the reply (the first pending question when the agent waits);
    ``questions`` every pending question; ``usage`` model calls, tokens, latency and steps."""

    text: str
    state: dict[str, Any]
    events: list[Event] = field(default_factory=list)
    done: bool = False
    artifacts: Sequence[Artifact] = ()
    questions: Sequence[Question] = ()
    usage: Usage = field(default_factory=Usage)

    @classmethod
    def from_events(cls, events: list[Event]) -> Reply:
        final = events[-1]
        assert isinstance(final, FinalEvent)
        return cls(final.text, final.state, events, final.done, final.artifacts, final.questions,
                   final.usage or Usage())

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "done": self.done,
            "state": self.state,
            "artifacts": jsonable(list(self.artifacts)),
            "questions": jsonable(list(self.questions)),
            "usage": jsonable(self.usage),
            "events": [e.to_dict() for e in self.events],
        }


def load(name: str, llm: str | BaseChatModel | None = None, *, settings: Settings | None = None,
         models: Mapping[str, str | BaseChatModel] | None = None, embedder: EmbedderFactory | str | None = None,
         **options: Any) -> Agent:
    """Build a registered agent: ``load("slotfill")``, ``load("text2sql", llm="openai:gpt-4o-mini", db=...)``.

    ``models`` names a model per role (``{"judge": "anthropic:claude-..."}``) for agents that use
    several; ``embedder`` is an embedder spec (``"offline"``, ``"fake"``, ``"openai:..."``) or a
    zero-argument factory; unset, the ``GRAPHAGENTS_EMBEDDER`` setting decides."""
    return Agent(get_spec(name), llm=llm, settings=settings, models=models, embedder=embedder, **options)


def has_async_nodes(graph: Any) -> bool:
    """True when any node or edge function of ``graph`` or its subgraphs is ``async def``."""
    seen: set[int] = set()

    def visit(obj: Any) -> bool:
        if id(obj) in seen:
            return False
        seen.add(id(obj))
        if isinstance(obj, Pregel):
            nodes = [node.bound for node in obj.nodes.values()]
            builder = getattr(obj, "builder", None)
            branches = getattr(builder, "branches", {}) or {}
            edges = [b.path for per_node in branches.values() for b in per_node.values()]
            return any(visit(x) for x in (*nodes, *edges))
        if getattr(obj, "func", True) is None and getattr(obj, "afunc", None) is not None:
            return True
        steps = getattr(obj, "steps", None) or ()  # RunnableSeq / RunnableSequence
        return any(visit(s) for s in steps)

    return visit(graph)


def _embedder_factory(embedder: EmbedderFactory | str | None, settings: Settings) -> EmbedderFactory:
    """The agent's embedder is built on first use, so agents that never embed pay nothing."""
    if callable(embedder):
        return embedder
    spec = embedder or settings.embedder

    def factory() -> EmbedderLike:
        from .retrieval import load_embedder

        return load_embedder(spec)

    return factory


class Agent:
    def __init__(self, spec: AgentSpec, *, llm: str | BaseChatModel | None = None,
                 settings: Settings | None = None, checkpoint_url: str | None = None,
                 models: Mapping[str, str | BaseChatModel] | None = None,
                 embedder: EmbedderFactory | str | None = None, **options: Any) -> None:
        self.spec = spec
        self.settings = settings or get_settings()
        for model in (spec.options_model, spec.session_options_model):
            if model is not None and model.model_config.get("extra") != "forbid":
                raise ConfigError(f"agent {spec.name!r}: {model.__name__} must set extra='forbid'")
        self.options, typed = validate_options(spec.options_model, options, agent=spec.name, session=False)
        self.llm = load_chat_model(llm if llm is not None else self.settings.llm, settings=self.settings)
        role_specs: dict[str, str | BaseChatModel] = {**self.settings.models, **(models or {})}
        self.models = {role: load_chat_model(m, settings=self.settings) for role, m in role_specs.items()}
        self.checkpoint_url = checkpoint_url or self.settings.resolved_checkpoint_url
        self.checkpointer = _connections.checkpointer_for(self.checkpoint_url)
        self.sessions = _connections.session_store_for(self.settings.resolved_database_url)
        self.build_context = BuildContext(
            self.llm, self.checkpointer, self.settings, self.options, agent=spec.name, typed_options=typed,
            models=self.models, embedder_factory=_embedder_factory(embedder, self.settings),
        )
        self.graph: CompiledStateGraph = spec.build(self.build_context)
        self.async_nodes = has_async_nodes(self.graph)
        self.step_cap = spec.step_cap or self.settings.step_cap
        shared = shared_locks_for(self.checkpoint_url, self.settings.cache_url, self.settings.session_lock_lease,
                                  self.settings.turn_connections)
        self._locks = SessionLocks(shared, wait=self.settings.session_wait_seconds,
                                   max_waiting=self.settings.max_session_queue)
        self._agraph: CompiledStateGraph | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    async def agraph(self) -> CompiledStateGraph:
        """The same graph on the async checkpointer; await it on the turn loop (opened on first use)."""
        if self._agraph is None:
            saver = await _connections.async_checkpointer_for(self.checkpoint_url)
            self._agraph = self.graph if saver is self.checkpointer else self.graph.copy({"checkpointer": saver})
        return self._agraph

    def session(self, session_id: str | None = None, *, user_id: str = ANONYMOUS, **options: Any) -> Session:
        """A new session (``session()``), or the named one, created if it does not exist yet.

        An existing session is returned only to its owner (UnknownSessionError otherwise)."""
        check_user_id(user_id)
        if session_id is not None:
            _check_session_id(session_id)  # before any store lookup: the id goes into SQL parameters
            record = self.sessions.get(self.name, session_id)
            if record is not None:
                if record.user_id != user_id:
                    raise UnknownSessionError(f"agent {self.name!r} has no session {session_id!r}")
                return self._open(record)
        sid = session_id or uuid.uuid4().hex[:16]
        check_text_values(options, "session option")
        validate_options(self.spec.session_options_model, options, agent=self.name, session=True)
        return self._open(self.sessions.create(self.name, sid, dict(options), user_id))

    def create(self, session_id: str | None = None, *, user_id: str = ANONYMOUS, **options: Any) -> Session:
        """A new session; SessionExistsError when the caller already has ``session_id`` (the options of
        an existing session are never changed silently), UnknownSessionError when someone else has
        it (as for any other id of theirs: another user's ids are never confirmed)."""
        check_user_id(user_id)
        sid = session_id or uuid.uuid4().hex[:16]
        _check_session_id(sid)
        check_text_values(options, "session option")
        checked, _ = validate_options(self.spec.session_options_model, options, agent=self.name, session=True)
        if self.spec.check_session is not None:  # what the options name must be the user's (404 otherwise)
            from .userdata import UserScope

            self.spec.check_session(UserScope(user_id, self.settings, self.name, options=dict(self.options)), checked)

        def taken(record: SessionRecord) -> GraphAgentsError:
            if record.user_id != user_id:
                return UnknownSessionError(f"agent {self.name!r} has no session {sid!r}")
            return SessionExistsError(f"session {sid!r} exists already: open it, or create one with another id")

        if (record := self.sessions.get(self.name, sid)) is not None:
            raise taken(record)
        try:
            created = self.sessions.create(self.name, sid, dict(options), user_id)
        except Exception:
            if (record := self.sessions.get(self.name, sid)) is not None:  # created meanwhile by another request
                raise taken(record) from None
            raise
        return self._open(created)

    async def read_records(self, read: Callable[[], T]) -> T:
        """Run a read of the session records from a coroutine: inline when they are in a local SQLite
        file (a WAL read takes microseconds and waits for no writer), in a thread otherwise."""
        if getattr(self.sessions.db, "dialect", None) == "sqlite":
            return read()
        return await asyncio.to_thread(read)

    async def aget_session(self, session_id: str, user_id: str | None = None) -> Session:
        """``get_session`` from a coroutine (see :meth:`read_records`), answered without a query when
        this process read or created the session lately (the message path: its turn checks the
        record against the database under the session's lock)."""
        _check_session_id(session_id)
        record = self.sessions.recent(self.name, session_id)
        if record is not None and (user_id is None or record.user_id == user_id):
            return self._open(record)
        return await self.read_records(lambda: self.get_session(session_id, user_id))

    def get_session(self, session_id: str, user_id: str | None = None) -> Session:
        """An existing session; UnknownSessionError when there is none with that id (for that user,
        when ``user_id`` is given)."""
        _check_session_id(session_id)  # before any store lookup
        record = self.sessions.get(self.name, session_id)
        if record is None or (user_id is not None and record.user_id != user_id):
            raise UnknownSessionError(f"agent {self.name!r} has no session {session_id!r}")
        return self._open(record)

    def _options(self, record: SessionRecord) -> dict[str, Any]:
        options, _ = validate_options(self.spec.session_options_model, record.options, agent=self.name, session=True)
        return dict(options)

    def _open(self, record: SessionRecord) -> Session:
        return Session(self, record.session_id, self._options(record), record.user_id, created_at=record.created_at)


def _check_session_id(sid: str) -> None:
    if not isinstance(sid, str) or not sid.isascii() or not _ID.fullmatch(sid):
        raise InputError("bad session id: use 1-64 ASCII letters, digits, '-' or '_'")


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored or analysed (a NUL or a lone surrogate), or None."""
    if "\x00" in text:
        return "contains a NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate (not valid Unicode text)"
    return None


def check_text_values(value: Any, what: str) -> None:
    """InputError when any string in ``value`` (keys included, nested) has a NUL or a lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            problem = text_problem(item)
            if problem:
                raise InputError(f"a {what} {problem}")
        elif isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)


def check_user_id(user_id: str) -> None:
    if not isinstance(user_id, str) or not _USER_ID.fullmatch(user_id):
        raise InputError(f"bad user id {user_id!r}: use 1-128 ASCII letters, digits or . _ @ : + -")


class Session:
    def __init__(self, agent: Agent, session_id: str, options: Mapping[str, Any], user_id: str = ANONYMOUS, *,
                 created_at: float | None = None) -> None:
        self.agent = agent
        self.id = session_id
        self.options = dict(options)
        self.user_id = user_id
        self.created_at = created_at  # of the record this object was opened from (None: not known)

    @property
    def thread_id(self) -> str:
        return f"{self.agent.name}:{self.id}"

    @property
    def config(self) -> RunnableConfig:
        return {
            "configurable": {"thread_id": self.thread_id, "session_options": self.options,
                             "user_id": self.user_id},
            "recursion_limit": self.agent.step_cap,
        }

    @property
    def state(self) -> dict[str, Any]:
        snapshot = self.agent.graph.get_state(self.config)
        return jsonable(self.agent.spec.public_state(snapshot.values or {}))

    @property
    def artifacts(self) -> list[Artifact]:
        """The typed artifacts of the session's state as it is now (the last answer's SQL, tables ...):
        what a reopened conversation shows under its last reply."""
        snapshot = self.agent.graph.get_state(self.config)
        return list(self.agent.spec.artifacts(snapshot.values or {}))

    def settle(self) -> bool:
        """Finish a run that a crash cut short, so that reading the session shows every message it
        took (the next message would finish it too, but the last message of a conversation has no
        next one). Skipped while a turn holds the session: that turn finishes the run itself. True
        when a run was finished."""
        agent = self.agent
        if agent.async_nodes:
            return False  # finished by the next message on the turn loop
        graph = agent.graph
        try:
            with agent._locks.hold(self.thread_id, wait=0.2):
                turn = self._new_turn()
                snapshot = graph.get_state(turn.config)
                if not turn.cut_short(snapshot):
                    return False
                for _chunk in graph.stream(None, turn.begin(snapshot), **turn.stream_options):
                    pass  # nobody is streaming this session: the events of a recovery are not shown
                return True
        except BusyError:
            return False

    @property
    def questions(self) -> list[Question]:
        """Every question the agent is waiting on; the next message answers the first."""
        graph, config = self.agent.graph, self.config
        return questions_of(graph.get_state(config), lambda: graph.get_state(config, subgraphs=True))

    @property
    def pending(self) -> str | None:
        """The text of the first pending question (the one the next message answers), if any."""
        questions = self.questions
        return questions[0].text if questions else None

    def _still_there(self) -> None:
        self._check_record(self.agent.sessions.get(self.agent.name, self.id))

    def _check_record(self, record: SessionRecord | None) -> None:
        """Checked with the turn lock held, against the database: a session erased while this
        message waited (or since this process last read it) takes no turn (its thread would
        otherwise come back with this turn's writes), nor one created again under the same id by
        someone else; created again by the same user, it runs with the new record's options."""
        if record is None or record.user_id != self.user_id:
            raise UnknownSessionError(f"agent {self.agent.name!r} has no session {self.id!r}")
        if record.created_at != self.created_at:
            self.options, self.created_at = self.agent._options(record), record.created_at

    def _new_turn(self) -> Turn:
        agent = self.agent
        return Turn(agent.spec, self.config, agent.step_cap, durability=agent.settings.durability,
                    deadline_seconds=agent.settings.turn_deadline_seconds)

    def _validate(self, text: str) -> str:
        if not isinstance(text, str):
            raise InputError("message must be a string")
        limit = self.agent.settings.max_message_chars
        if len(text) > limit:
            raise InputError(f"message is {len(text)} characters long; the limit is {limit}")
        problem = text_problem(text)
        if problem:
            raise InputError(f"message {problem}: send plain text")
        stripped = text.strip()
        if not stripped:
            raise InputError("message is empty: type something for the agent")
        return stripped

    def _context(self, first_turn: bool) -> SessionContext:
        return SessionContext(self.id, self.options, first_turn=first_turn, user_id=self.user_id)

    # -- sync ------------------------------------------------------------------------------------

    def stream(self, text: str) -> Iterator[Event]:
        """Events of one turn as they happen; the last one is a FinalEvent. Bad input raises now."""
        clean = self._validate(text)
        if self.agent.async_nodes:
            return self._bridge_to_thread(clean)
        return self._run(clean)

    def _run(self, text: str) -> Iterator[Event]:
        agent = self.agent
        graph = agent.graph
        with agent._locks.hold(self.thread_id):
            self._still_there()
            turn = self._new_turn()
            snapshot = graph.get_state(turn.config)
            try:
                if turn.cut_short(snapshot):  # finish what a crash interrupted before reading the text
                    yield from self._events(turn, graph.stream(None, turn.begin(snapshot), **turn.stream_options))
                    snapshot = graph.get_state(turn.config)
                graph_input = turn.graph_input(snapshot, text, self._context(not snapshot.values))
                chunks = graph.stream(graph_input, turn.begin(snapshot), **turn.stream_options)
                yield from self._events(turn, chunks)
            except Exception as exc:  # the session must survive any bug in a node
                yield turn.failed(exc, agent.name, self.id)
            config = self.config
            yield turn.final(graph.get_state(config), lambda: graph.get_state(config, subgraphs=True))

    @staticmethod
    def _events(turn: Turn, chunks: Iterator[Any]) -> Iterator[Event]:
        for ns, mode, chunk in chunks:
            event = turn.event(ns, mode, chunk)
            if event is not None:
                yield event

    def send(self, text: str) -> Reply:
        return Reply.from_events(list(self.stream(text)))

    def _bridge_to_thread(self, text: str) -> Iterator[Event]:
        """Run the turn on the turn loop and hand its events to this (sync) caller."""
        items: queue.SimpleQueue[Any] = queue.SimpleQueue()
        end = object()

        async def produce() -> None:
            try:
                await self._arun(text, items.put)
            except BaseException as exc:
                items.put(exc)
            finally:
                items.put(end)

        _loop.submit(produce(), self.agent.settings.turn_workers)
        while (item := items.get()) is not end:
            if isinstance(item, BaseException):
                raise item
            if item is not STARTED:
                yield item  # type: ignore[misc]

    # -- async -----------------------------------------------------------------------------------

    async def _arun(self, text: str, put: Callable[[Any], None]) -> None:
        """The turn with ``graph.astream``; runs on the turn loop, hands each event to ``put``."""
        agent = self.agent
        graph = await agent.agraph()
        # the lock keeps other writers off the thread until the turn ends; the connection that holds
        # it (Postgres) runs the turn's checkpoint statements and its session check
        linger = agent.settings.checkpoint_linger_ms / 1000
        async with agent._locks.ahold(self.thread_id) as conn, turn_reads(self.thread_id, conn, linger):
            await self._arun_locked(graph, text, put, conn)

    async def _arun_locked(self, graph: CompiledStateGraph, text: str, put: Callable[[Any], None],
                           conn: Any) -> None:
        agent = self.agent
        if conn is not None and agent.settings.resolved_database_url == agent.checkpoint_url:
            self._check_record(await agent.sessions.aget_on(conn, agent.name, self.id))
        else:
            await agent.read_records(self._still_there)
        put(STARTED)
        turn = self._new_turn()
        snapshot = await graph.aget_state(turn.config)
        try:
            if turn.cut_short(snapshot):  # finish what a crash interrupted before reading the text
                recovery = graph.astream(None, turn.begin(snapshot), **turn.stream_options)
                async for ns, mode, chunk in recovery:
                    if (event := turn.event(ns, mode, chunk)) is not None:
                        put(event)
                await flush_turn_writes()
                snapshot = await graph.aget_state(turn.config)
            graph_input = turn.graph_input(snapshot, text, self._context(not snapshot.values))
            achunks = graph.astream(graph_input, turn.begin(snapshot), **turn.stream_options)
            async for ns, mode, chunk in achunks:
                if (event := turn.event(ns, mode, chunk)) is not None:
                    put(event)
            await flush_turn_writes()  # the run's last writes (its interrupt), or the error they meet
        except Exception as exc:
            put(turn.failed(exc, agent.name, self.id))
        config = self.config
        final = await graph.aget_state(config)
        deep = await graph.aget_state(config, subgraphs=True) if _needs_deep(final) else None
        put(turn.final(final, None if deep is None else (lambda: deep)))

    def astream(self, text: str) -> AsyncIterator[Event]:
        """The async twin of ``stream``: the turn runs on the turn loop with ``graph.astream``; events
        cross to the caller's loop. Bad input raises here, before anything is streamed. A caller that
        stops listening does not stop the turn: it finishes and is checkpointed."""
        return _flatten(self._submit(self._validate(text)).bursts())

    async def astart(self, text: str) -> AsyncIterator[Event]:
        """Like ``astream``, but returns only once the turn holds its session lock, so that bad input,
        a busy session (``BusyError``) or a store outage raise here, before any response starts.
        Waiting for the lock holds no thread."""
        return _flatten(await self.astart_bursts(text))

    async def astart_bursts(self, text: str, *, linger: float = 0.0) -> AsyncIterator[list[Event]]:
        """``astart`` for a caller that writes events out (the server): the events come in bursts,
        every event the turn emitted since the caller last looked, so that one write (one SSE chunk)
        carries them all; ``linger`` seconds lets events wait for the ones that follow (the final
        event never waits). Raises like ``astart``."""
        pipe = self._submit(self._validate(text), linger)
        first = await pipe.get()
        if isinstance(first, BaseException):
            raise first
        if first is _END:
            raise RuntimeError("the turn ended before it started")
        return pipe.bursts()

    def _submit(self, text: str, linger: float = 0.0) -> _Pipe:
        pipe = _Pipe(asyncio.get_running_loop(), linger)

        async def produce() -> None:
            try:
                await self._arun(text, pipe.put)
            except BaseException as exc:
                pipe.put(exc)
            finally:
                pipe.put(_END)

        if _loop.on_turn_loop():  # called from inside another turn (an async node)
            task = asyncio.ensure_future(produce())
            _background.add(task)  # the loop keeps only a weak reference to tasks
            task.add_done_callback(_background.discard)
        else:
            _loop.submit(produce(), self.agent.settings.turn_workers)
        return pipe

    async def asend(self, text: str) -> Reply:
        return Reply.from_events([ev async for ev in self.astream(text)])


class _Pipe:
    """A turn's items crossing from the turn loop to the caller's loop, a burst at a time: the
    caller's loop is woken once per burst, however many events the turn put meanwhile (the put of
    each event used to wake it, and each event was a write of its own).

    With ``linger`` (seconds), events wait up to that long for the ones that follow, so that a turn
    is a few bursts rather than one per step (each burst is a socket write and a pass through the
    server's layers). STARTED, the final event, an exception and the end are delivered at once."""

    def __init__(self, loop: asyncio.AbstractEventLoop, linger: float = 0.0) -> None:
        self._loop = loop
        self._linger = linger
        self._bursts: asyncio.Queue[list[Any]] = asyncio.Queue()
        self._pending: list[Any] = []
        self._guard = threading.Lock()
        self._head: list[Any] = []
        self._timer: asyncio.TimerHandle | None = None  # touched on the caller's loop only

    def put(self, item: Any) -> None:
        """From any thread: an event, STARTED, an exception, or _END."""
        urgent = (self._linger <= 0 or item is STARTED or item is _END
                  or isinstance(item, BaseException | FinalEvent))
        with self._guard:
            self._pending.append(item)
            first = len(self._pending) == 1
        if urgent:
            self._wake(self._deliver)
        elif first:
            self._wake(self._arm)

    def _wake(self, callback: Callable[[], None]) -> None:
        if _running_loop() is self._loop:  # the server's turns: no self-pipe write to wake the loop
            self._loop.call_soon(callback)
            return
        with contextlib.suppress(RuntimeError):  # the caller's loop is gone; the turn still ends
            self._loop.call_soon_threadsafe(callback)

    def _arm(self) -> None:
        if self._timer is None and self._pending:
            self._timer = self._loop.call_later(self._linger, self._deliver)

    def _deliver(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        with self._guard:
            burst, self._pending = self._pending, []
        if burst:  # an urgent item may already have taken what a timer was armed for
            self._bursts.put_nowait(burst)

    async def get(self) -> Any:
        """The next single item (how ``astart`` waits for STARTED or the error that came instead)."""
        while not self._head:
            self._head = await self._bursts.get()
        return self._head.pop(0)

    async def bursts(self) -> AsyncIterator[list[Event]]:
        """Bursts of events until the turn ends; an exception the turn put is raised here."""
        ended = False
        while not ended:
            burst, self._head = self._head or await self._bursts.get(), []
            events: list[Event] = []
            for item in burst:
                if item is _END:
                    ended = True
                    break
                if isinstance(item, BaseException):
                    if events:
                        yield events
                    raise item
                if item is not STARTED:
                    events.append(item)
            if events:
                yield events


async def _flatten(bursts: AsyncIterator[list[Event]]) -> AsyncIterator[Event]:
    async for burst in bursts:
        for event in burst:
            yield event


def _needs_deep(snapshot: Any) -> bool:
    return any(task.state is not None and task.interrupts for task in snapshot.tasks)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
