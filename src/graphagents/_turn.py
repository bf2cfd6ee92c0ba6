"""One turn, whichever way it runs: the graph input, LangGraph's stream chunks turned into events,
failures turned into an error event, and the final event from the checkpoint afterwards.

``Session`` drives a :class:`Turn` with ``graph.stream`` (sync) or ``graph.astream`` (the turn
loop); everything that decides what the user sees lives here, once.
"""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphRecursionError
from langgraph.types import Command, Durability, StateSnapshot, StreamMode

from .errors import GraphAgentsError
from .events import ErrorEvent, Event, FinalEvent, Question, StepEvent, jsonable
from .registry import AgentSpec, SessionContext
from .usage import UsageRecorder

if TYPE_CHECKING:
    from collections.abc import Callable

log = logging.getLogger("graphagents")

STREAM_MODES: list[StreamMode] = ["custom", "tasks"]
RUN_START_KEY = "ga_run_start"
"""Checkpoint metadata: the step the run that wrote the checkpoint started from."""
CAP_REPLY = "죄송합니다. 이번 요청은 처리 단계가 너무 많아 여기서 마무리했어요. 다시 말씀해 주시겠어요?"
ERROR_REPLY = "죄송합니다. 처리 중 문제가 생겨 이번 요청을 마치지 못했어요. 잠시 후 다시 시도해 주세요."


def readable(ns: Sequence[str]) -> tuple[str, ...]:
    """``("team:1f2e...", "worker:9a8b...")`` -> ``("team", "worker")``."""
    return tuple(part.split(":", 1)[0] for part in ns)


def interrupt_text(value: Any) -> str:
    if isinstance(value, Mapping):
        return str(value.get("text") or value.get("question") or value.get("reply") or "")
    return str(value)


def questions_of(snapshot: StateSnapshot, deep: Callable[[], StateSnapshot] | None = None) -> list[Question]:
    """Every pending interrupt, in LangGraph's order, with the path of the node that asked.

    ``deep`` fetches the snapshot with subgraph states; it is only called when an interrupt sits
    inside a subgraph, so flat graphs pay nothing extra."""
    if not snapshot.interrupts:
        return []
    paths: dict[str, tuple[str, ...]] = {}

    def walk(snap: StateSnapshot, prefix: tuple[str, ...]) -> None:
        for task in snap.tasks:
            if isinstance(task.state, StateSnapshot):
                walk(task.state, (*prefix, task.name))
            for intr in task.interrupts:
                paths.setdefault(intr.id, (*prefix, task.name))

    walk(snapshot, ())
    if deep is not None and any(task.state is not None and task.interrupts for task in snapshot.tasks):
        paths.clear()
        walk(deep(), ())
    return [Question(i.id, interrupt_text(i.value), paths.get(i.id, ()), jsonable(i.value))
            for i in snapshot.interrupts]


class Turn:
    """The bookkeeping of one turn: usage, steps, the failure (if any) and how it ends."""

    def __init__(self, spec: AgentSpec, config: RunnableConfig, step_cap: int, *,
                 durability: Durability = "sync", deadline_seconds: float | None = None) -> None:
        self.spec = spec
        self.step_cap = step_cap
        self.recorder = UsageRecorder(None if deadline_seconds is None else time.monotonic() + deadline_seconds)
        self.config: RunnableConfig = {**config, "callbacks": [self.recorder]}
        self.stream_options: dict[str, Any] = {"stream_mode": STREAM_MODES, "subgraphs": True,
                                               "durability": durability}
        """How the turn calls ``graph.stream`` / ``graph.astream`` (after the input and config)."""
        self.started = time.perf_counter()
        self.steps = 0
        self.failure: str | None = None

    def begin(self, snapshot: StateSnapshot) -> RunnableConfig:
        """The config of a run that starts at ``snapshot``: its checkpoints carry the step this run
        started from, so a later turn can tell a run cut short by the step cap from a crashed one."""
        step = (snapshot.metadata or {}).get("step")
        start = step if isinstance(step, int) else -1
        return {**self.config, "metadata": {**(self.config.get("metadata") or {}), RUN_START_KEY: start}}

    def cut_short(self, snapshot: StateSnapshot) -> bool:
        """True when a crash stopped the last run between steps: the checkpoint still has tasks (run
        or with their writes saved but not yet applied: ``snapshot.next`` omits those), nobody waits
        for the user, no task failed and the run did not end at the step cap.

        Such a run holds writes the user may already have seen (a node's ``state_update``) that a
        new run would discard; the turn finishes it before the user's text is applied."""
        if not snapshot.tasks or snapshot.interrupts:
            return False
        if any(task.error is not None for task in snapshot.tasks):
            return False  # a node failed: that turn ended with an error event, nothing to finish
        meta = snapshot.metadata or {}
        start, step = meta.get(RUN_START_KEY), meta.get("step")
        return not (isinstance(start, int) and isinstance(step, int) and step - start >= self.step_cap - 1)

    def graph_input(self, snapshot: StateSnapshot, text: str, ctx: SessionContext) -> Any:
        """Resume the first pending question (by id when several wait), or start a run."""
        if snapshot.interrupts:
            if len(snapshot.interrupts) == 1:
                return Command(resume=text)
            return Command(resume={snapshot.interrupts[0].id: text})
        return self.spec.make_input(text, ctx)

    def event(self, ns: Sequence[str], mode: str, chunk: Any) -> Event | None:
        if mode == "custom":
            if not isinstance(chunk, Event):
                return None
            if ns and not chunk.namespace:
                return dataclasses.replace(chunk, namespace=readable(ns))
            return chunk
        if mode == "tasks" and isinstance(chunk, dict) and not chunk["name"].startswith("__"):
            if "input" in chunk:
                return StepEvent(chunk["name"], "start", namespace=readable(ns))
            self.steps += 1
            err = chunk.get("error")  # the exception's type only: its text goes to the log, not to clients
            return StepEvent(chunk["name"], "end", None if err is None else type(err).__name__,
                             namespace=readable(ns))
        return None

    def failed(self, exc: Exception, agent: str, session_id: str) -> ErrorEvent:
        if isinstance(exc, GraphRecursionError):
            self.failure = CAP_REPLY
            return ErrorEvent(f"step cap of {self.step_cap} reached; the turn was ended", code="step_cap")
        self.failure = ERROR_REPLY
        if isinstance(exc, GraphAgentsError):  # our own one-line messages, written for the user
            return ErrorEvent(str(exc), code=type(exc).__name__)
        ref = uuid.uuid4().hex[:8]
        log.error("agent %s session %s failed (ref %s)", agent, session_id, ref, exc_info=exc)
        # The exception's text stays in the server log: it may hold internals or the user's input.
        return ErrorEvent(f"internal error (ref {ref}); the server log has the details", code="internal")

    def final(self, snapshot: StateSnapshot, deep: Callable[[], StateSnapshot] | None = None) -> FinalEvent:
        values = snapshot.values or {}
        questions = questions_of(snapshot, deep)
        if self.failure is not None:
            reply, done = self.failure, False
        elif questions:
            reply, done = questions[0].text, False
        else:
            reply, done = str(values.get("reply", "")), not snapshot.next
        try:
            artifacts = list(self.spec.artifacts(values))
        except Exception as exc:  # a broken artifact hook must not lose the reply
            log.error("agent %s: artifacts hook failed", self.spec.name, exc_info=exc)
            artifacts = []
        usage = self.recorder.usage(latency_ms=(time.perf_counter() - self.started) * 1000, steps=self.steps)
        state = jsonable(self.spec.public_state(values))
        return FinalEvent(reply, done, state, tuple(artifacts), tuple(questions), usage)
