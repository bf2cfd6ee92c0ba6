"""``notes`` (keeps the user's notes) and ``shout`` (a sub-agent): every hook of ``AgentSpec``.

* routes: ``GET/POST/DELETE /api/agents/notes/notes`` over the caller's store namespace, with a
  body limit of its own;
* page_view: ``view.js`` in this package (state view, an add-a-note box, a session option);
* view_data: the agent option ``label`` for the page;
* user_text: the user's words are under ``said`` (not ``user_input``);
* user_data: the last note, kept in the agent's cache, exported and erased;
* doctor: a check of the store;
* cli: ``graphagents notes count --user U``;
* evaluation: ``graphagents eval notes`` on the dev cases it ships;
* a sub-agent handle: ``shout: ...`` asks ``shout`` and forwards its reply and artifacts.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Annotated, Any, TypedDict

import typer
from fastapi import APIRouter, Depends
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, ConfigDict, Field

from graphagents.artifacts import TableArtifact
from graphagents.registry import AgentSpec, BuildContext, Check, DoctorContext, SessionContext, subagent
from graphagents.routes import AgentRoutes, caller_scope, error_response
from graphagents.userdata import UserData, UserScope

NOTE_BODY_LIMIT = 512
"""Bytes a POST /notes body may carry (the server's own limit is larger)."""


class NotesOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str = Field("메모", min_length=1, max_length=20, description="what the page calls a note")


class NotesSessionOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tag: str = Field("", max_length=20, description="a tag put on the notes of this session")


class NotesState(TypedDict, total=False):
    said: str
    user_id: str
    tag: str
    reply: str
    notes: list[str]
    artifacts: list[dict[str, Any]]


def make_input(text: str, session: SessionContext) -> dict[str, Any]:
    return {"said": text, "user_id": session.user_id, "tag": str(session.options.get("tag") or "")}


def user_text(values: Mapping[str, Any]) -> str:
    said = values.get("said")
    return said if isinstance(said, str) else ""


def notes_of(store: Any, namespace: tuple[str, ...]) -> list[str]:
    items = sorted(store.search(namespace, limit=100), key=lambda item: item.created_at)
    return [str(item.value.get("text", "")) for item in items]


def build(ctx: BuildContext) -> Any:
    shout = subagent("shout", ctx, llm=None)
    label = str(ctx.options.get("label") or "메모")

    def answer(state: NotesState, config: RunnableConfig) -> dict[str, Any]:
        text, user = state["said"].strip(), state.get("user_id") or "anonymous"
        namespace = ctx.user_namespace(user, "notes")
        if text.startswith("shout:"):
            result = shout.invoke(text.removeprefix("shout:").strip(), config)
            return {"reply": result.reply, "artifacts": [a.to_dict() for a in result.artifacts],
                    "notes": notes_of(ctx.store, namespace)}
        ctx.store.put(namespace, uuid.uuid4().hex[:12], {"text": text, "tag": state.get("tag", "")}, index=False)
        ctx.cache("last").set(user, text)
        notes = notes_of(ctx.store, namespace)
        return {"reply": f"{label} {len(notes)}개: {text}", "notes": notes, "artifacts": []}

    g: StateGraph[Any] = StateGraph(NotesState)
    g.add_node("answer", answer)
    g.add_edge(START, "answer")
    g.add_edge("answer", END)
    return g.compile(checkpointer=ctx.checkpointer)


def public_state(values: Mapping[str, Any]) -> dict[str, Any]:
    return {"notes": list(values.get("notes") or []), "tag": values.get("tag", ""), "reply": values.get("reply", "")}


# -- routes ----------------------------------------------------------------------------------------

class NewNote(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(..., max_length=200)


Scope = Annotated[UserScope, Depends(caller_scope("notes"))]


def make_routes() -> AgentRoutes:
    router = APIRouter()

    @router.get("/notes", summary="The caller's notes")
    async def list_notes(scope: Scope) -> dict[str, Any]:
        return {"user_id": scope.user_id, "notes": notes_of(scope.store, scope.user_namespace("notes"))}

    @router.post("/notes", status_code=201, summary="Add a note for the caller")
    async def add_note(body: NewNote, scope: Scope) -> Any:
        if not body.text.strip():
            return error_response(422, "the note is empty: write something")
        scope.store.put(scope.user_namespace("notes"), uuid.uuid4().hex[:12], {"text": body.text.strip(), "tag": "api"},
                        index=False)
        return {"notes": notes_of(scope.store, scope.user_namespace("notes"))}

    @router.delete("/notes", summary="Delete the caller's notes")
    async def clear_notes(scope: Scope) -> dict[str, Any]:
        items = scope.store.search(scope.user_namespace("notes"), limit=100)
        for item in items:
            scope.store.delete(tuple(item.namespace), item.key)
        return {"deleted": len(items)}

    return AgentRoutes(router, body_limits={"/notes": lambda settings: NOTE_BODY_LIMIT})


# -- user data, doctor, view data, CLI ----------------------------------------------------------

def export_last(scope: UserScope) -> dict[str, Any]:
    return {"last": scope.cache("last").get(scope.user_id)}


def delete_last(scope: UserScope) -> int:
    cache = scope.cache("last")
    existed = cache.get(scope.user_id) is not None
    cache.delete(scope.user_id)
    return int(existed)


def doctor(ctx: DoctorContext) -> list[Check]:
    def store() -> str:
        ctx.store.search(("users",), limit=1)
        return f"the store answers; notes are called {ctx.options.get('label')!r}"

    return [Check("notes store", store)]


def view_data(options: Mapping[str, Any]) -> dict[str, Any]:
    return {"label": str(options.get("label") or "메모")}


def evaluation() -> Any:
    from .evaluation import EVALUATION

    return EVALUATION


def make_cli() -> Any:
    from graphagents.settings import get_settings

    app = typer.Typer(no_args_is_help=True, help="the notes agent's own commands")

    @app.command("count")
    def count(user: Annotated[str, typer.Option("--user")]) -> None:
        """How many notes a user has."""
        scope = UserScope(user, get_settings(), "notes")
        typer.echo(str(len(notes_of(scope.store, scope.user_namespace("notes")))))

    return app


NOTES = AgentSpec(
    name="notes",
    title="Notes (third-party example)",
    description="Keeps your notes; 'shout: …' asks the shout agent.",
    build=build,
    samples=[["note: 우유 사기"], ["shout: hello there"]],
    make_input=make_input,
    public_state=public_state,
    options_model=NotesOptions,
    session_options_model=NotesSessionOptions,
    step_cap=6,
    cli=make_cli,
    evaluation=evaluation,
    user_data=UserData(export=export_last, delete=delete_last),
    routes=make_routes,
    page_view="notes_agent:view.js",
    view_data=view_data,
    user_text=user_text,
    doctor=doctor,
)


# -- shout: the sub-agent ----------------------------------------------------------------------

class ShoutState(TypedDict, total=False):
    words: str
    reply: str
    loud: list[list[Any]]


def build_shout(ctx: BuildContext) -> Any:
    def shout(state: ShoutState) -> dict[str, Any]:
        words = state["words"].split()
        return {"reply": " ".join(w.upper() for w in words) + "!", "loud": [[w, len(w)] for w in words]}

    g: StateGraph[Any] = StateGraph(ShoutState)
    g.add_node("shout", shout)
    g.add_edge(START, "shout")
    g.add_edge("shout", END)
    return g.compile(checkpointer=ctx.checkpointer)


SHOUT = AgentSpec(
    name="shout",
    title="Shout (third-party sub-agent)",
    description="Repeats what you say, loudly.",
    build=build_shout,
    make_input=lambda text, session: {"words": text},
    user_text=lambda values: str(values.get("words") or ""),
    public_state=lambda values: {"words": values.get("words", ""), "status": "shouted"},
    artifacts=lambda values: [TableArtifact(columns=["word", "length"], rows=list(values.get("loud") or []),
                                            title="words")],
)
