"""``memo``: a small agent that keeps a user's words in every kind of store, as rag will.

Each turn writes the text to the checkpointer (state), the long-term store under
``user_namespace(user_id)``, the agent's cache (``ctx.cache``, Redis when CACHE_URL is Redis) and a
table of its own in the application database, and declares a ``UserData`` hook for the last two.
With the option ``reply_words`` it asks a test model for a reply of that many words, so model
tokens are counted.
"""

from __future__ import annotations

from typing import Any, TypedDict

from langchain_core.messages import HumanMessage
from langgraph.config import get_config
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, ConfigDict

from graphagents import AgentSpec, BuildContext, SessionContext
from graphagents.testing import FunctionChatModel
from graphagents.userdata import UserData, UserScope, user_namespace

TABLE = "memo_notes"


class MemoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reply_words: int = 0


class MemoState(TypedDict, total=False):
    user_input: str
    user_id: str
    notes: list[str]
    reply: str


def _table(db: Any) -> None:
    db.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (user_id TEXT NOT NULL, session_id TEXT NOT NULL,"
               " text TEXT NOT NULL)")


def build(ctx: BuildContext) -> Any:
    db, store, cache = ctx.database, ctx.store, ctx.cache("last")
    words = int(ctx.options.get("reply_words", 0))
    llm = FunctionChatModel(function=lambda messages: " ".join(["word"] * words)) if words else None
    _table(db)

    def note(state: MemoState) -> dict[str, Any]:
        text, user = state["user_input"], state["user_id"]
        session_id = get_config()["configurable"]["thread_id"].split(":", 1)[1]
        store.put(user_namespace(user, "memo"), session_id, {"text": text})
        cache.set(user, {"text": text})
        db.execute(f"INSERT INTO {TABLE} (user_id, session_id, text) VALUES (?, ?, ?)", (user, session_id, text))
        reply = f"noted: {text}"
        if llm is not None:
            reply = str(llm.invoke([HumanMessage(text)]).content)
        return {"notes": [*state.get("notes", []), text], "reply": reply}

    graph = StateGraph(MemoState)
    graph.add_node("note", note)
    graph.add_edge(START, "note")
    graph.add_edge("note", END)
    return graph.compile(checkpointer=ctx.checkpointer)


def make_input(text: str, session: SessionContext) -> dict[str, Any]:
    return {"user_input": text, "user_id": session.user_id}


def export_user(scope: UserScope) -> dict[str, Any]:
    _table(scope.database)
    rows = scope.database.fetchall(f"SELECT session_id, text FROM {TABLE} WHERE user_id = ?", (scope.user_id,))
    return {"notes": [{"session_id": s, "text": t} for s, t in rows], "cached": scope.cache("last").get(scope.user_id)}


def delete_user(scope: UserScope) -> int:
    _table(scope.database)
    count = len(scope.database.fetchall(f"SELECT 1 FROM {TABLE} WHERE user_id = ?", (scope.user_id,)))
    scope.database.execute(f"DELETE FROM {TABLE} WHERE user_id = ?", (scope.user_id,))
    scope.cache("last").delete(scope.user_id)
    return count


SPEC = AgentSpec(
    name="memo", title="Memo (test)", description="keeps a user's words everywhere", build=build,
    make_input=make_input, options_model=MemoOptions, user_data=UserData(export=export_user, delete=delete_user),
)
