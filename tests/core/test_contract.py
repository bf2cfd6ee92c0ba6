"""The agent contract: BuildContext services, SessionContext.user_id, options models."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, TypedDict

import numpy as np
import pytest
from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from pydantic import BaseModel, ConfigDict, Field

import graphagents as ga
from graphagents.registry import SessionContext, unregister
from graphagents.store import Database


class MemState(TypedDict, total=False):
    user_input: str
    user_id: str
    reply: str


class MemOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    greeting: str = Field("hi", description="the first word of every reply")


class MemSession(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tone: str = Field("plain", description="how to say it")


seen_contexts: list[SessionContext] = []


def _memory_build(ctx: ga.BuildContext) -> Any:
    """Remembers the last thing each *user* said, across sessions, in the LangGraph store."""

    async def remember(state: MemState) -> dict[str, Any]:
        store = get_store()
        ns = ("memo", state["user_id"])
        before = await store.aget(ns, "last")
        await store.aput(ns, "last", {"text": state["user_input"]})
        said = before.value["text"] if before else "nothing"
        return {"reply": f"{ctx.options['greeting']}; last time you said {said}"}

    g = StateGraph(MemState)
    g.add_node("remember", remember)
    g.add_edge(START, "remember")
    g.add_edge("remember", END)
    return g.compile(checkpointer=ctx.checkpointer, store=ctx.store)


def _memory_input(text: str, session: SessionContext) -> dict[str, Any]:
    seen_contexts.append(session)
    return {"user_input": text, "user_id": session.user_id}


MEMORY = ga.AgentSpec(name="memo", title="memo", description="long-term memory per user", build=_memory_build,
                      make_input=_memory_input, options_model=MemOptions, session_options_model=MemSession)


@pytest.fixture
def memo() -> Any:
    ga.register(MEMORY)
    seen_contexts.clear()
    yield MEMORY
    unregister(MEMORY.name)


def test_store_is_long_term_memory_across_sessions_per_user(memo: Any) -> None:
    agent = ga.load("memo", greeting="hello")
    assert type(agent.build_context.store).__name__ == "ThreadedSqliteStore"
    assert agent.session(user_id="ann").send("tea").text == "hello; last time you said nothing"
    assert agent.session(user_id="ann").send("cake").text == "hello; last time you said tea"
    assert agent.session(user_id="bob").send("soup").text == "hello; last time you said nothing"
    item = agent.build_context.store.get(("memo", "ann"), "last")
    assert item is not None and item.value == {"text": "cake"}


def test_store_url_memory_and_postgres(memo: Any, tmp_path: Path, pg_database: str) -> None:
    mem = ga.load("memo", settings=ga.Settings(data_dir=tmp_path, store_url="memory"))
    assert isinstance(mem.build_context.store, InMemoryStore)
    pg = ga.load("memo", settings=ga.Settings(data_dir=tmp_path, database_url=pg_database))
    store = pg.build_context.store
    assert type(store).__name__ == "PostgresStore" and isinstance(store, BaseStore)
    assert pg.session(user_id="cy").send("one").text.endswith("nothing")
    assert pg.session(user_id="cy").send("two").text.endswith("said one")


def test_session_context_carries_user_and_validated_options(memo: Any) -> None:
    agent = ga.load("memo")
    assert agent.options == {"greeting": "hi"}  # defaults filled in
    s = agent.session(user_id="dana@example.com", tone="warm")
    s.send("x")
    ctx = seen_contexts[-1]
    assert (ctx.user_id, dict(ctx.options), ctx.first_turn, ctx.session_id) == (
        "dana@example.com", {"tone": "warm"}, True, s.id)
    agent.session().send("y")
    assert seen_contexts[-1].user_id == "anonymous" and dict(seen_contexts[-1].options) == {"tone": "plain"}


def test_sessions_belong_to_their_user(memo: Any) -> None:
    agent = ga.load("memo")
    s = agent.session("owned-1", user_id="erin")
    assert agent.get_session("owned-1").user_id == "erin"  # no user given: the record says who owns it
    assert agent.get_session("owned-1", "erin").id == s.id
    with pytest.raises(ga.UnknownSessionError):
        agent.get_session("owned-1", "mallory")
    with pytest.raises(ga.UnknownSessionError):
        agent.session("owned-1", user_id="mallory")
    for bad in ("", "has space", "ｆｕｌｌ", "x" * 129, "a/b"):
        with pytest.raises(ga.InputError, match="bad user id"):
            agent.session(user_id=bad)


def test_options_are_validated_at_load_and_session_creation(memo: Any) -> None:
    with pytest.raises(ga.ConfigError, match="^agent 'memo' has no option 'colour'; options: greeting$"):
        ga.load("memo", colour="red")
    with pytest.raises(ga.ConfigError, match="^agent 'memo' option 'greeting': Input should be a valid string$"):
        ga.load("memo", greeting=3)
    agent = ga.load("memo")
    with pytest.raises(ga.InputError, match="^agent 'memo' sessions take no option 'mood'; options: tone$"):
        agent.session(mood="x")
    assert agent.spec.options_help == {"greeting": "the first word of every reply"}
    assert agent.spec.session_options_help == {"tone": "how to say it"}


def test_an_options_model_must_forbid_extra_keys() -> None:
    class Loose(BaseModel):
        x: int = 1

    spec = ga.AgentSpec(name="loose", title="l", description="d", build=_memory_build, options_model=Loose)
    with pytest.raises(ga.ConfigError, match="Loose must set extra='forbid'"):
        ga.Agent(spec)


def test_build_context_services(memo: Any, tmp_path: Path) -> None:
    calls: list[int] = []

    class Fake:
        name, dim = "fake", 3

        def embed(self, texts: Any) -> np.ndarray:
            return np.ones((len(texts), 3), dtype=np.float32)

        def embed_one(self, text: str) -> np.ndarray:
            return np.ones(3, dtype=np.float32)

    def factory() -> Fake:
        calls.append(1)
        return Fake()

    agent = ga.load("memo", embedder=factory)
    ctx = agent.build_context
    assert calls == []  # lazy: nothing built until an agent asks
    assert ctx.embedder is ctx.embedder and len(calls) == 1
    # unset, the GRAPHAGENTS_EMBEDDER setting decides; a spec string names one
    assert ga.load("memo", embedder="fake").build_context.embedder.name.startswith("fake")
    db: Database = ctx.database
    assert db.dialect == "sqlite" and db is ga.load("memo").build_context.database
    cache = ctx.cache("answers")
    cache.set("k", {"v": 1})
    assert ga.load("memo").build_context.cache("answers").get("k") == {"v": 1}  # shared in the process
    assert ctx.cache("other").get("k") is None  # namespaced
    assert ctx.agent == "memo" and ctx.typed_options == MemOptions()


def test_old_session_tables_get_the_user_column(memo: Any, tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE ga_sessions (agent TEXT NOT NULL, session_id TEXT NOT NULL, options TEXT NOT NULL,"
                     " created_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (agent, session_id))")
        conn.execute("INSERT INTO ga_sessions VALUES ('memo', 'legacy', '{}', 0)")
    agent = ga.load("memo", settings=ga.Settings(data_dir=tmp_path, database_url=f"sqlite:///{path}"))
    assert agent.get_session("legacy").user_id == "anonymous"
    assert agent.session("fresh", user_id="fay").user_id == "fay"
