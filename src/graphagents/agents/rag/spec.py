"""The rag AgentSpec: registered through the ``graphagents.agents`` entry point."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphagents.registry import AgentSpec, DoctorContext, SessionContext
from graphagents.userdata import UserData, UserScope

from .graph import build
from .options import RagOptions, RagSessionOptions

# 9 steps for one pass (check .. refine), 4 per refine round (retrieve, assemble, generate, refine)
# at the largest max_refine_iterations (5), store_response, and room for step_cap.
STEP_CAP = 9 + 4 * 5 + 6


def make_input(text: str, session: SessionContext) -> dict[str, Any]:
    return {"user_text": text, "session_id": session.session_id, "user_id": session.user_id,
            "session_options": dict(session.options),
            # filled from the agent's and the session's options by the first node
            "feature_flags": {}, "agent_config": {}, "mode": ""}


def _profile_public(values: Mapping[str, Any]) -> dict[str, Any]:
    from .profiles import normalised

    return normalised(dict(values.get("profile") or {}))


def public_state(values: Mapping[str, Any]) -> dict[str, Any]:
    """Exactly the keys the web page renders (coord INTERFACES.md)."""
    from .nodes import _public_doc

    return {
        "intent": values.get("query_complexity"),
        "dynamic_k": values.get("dynamic_k"),
        "emergency": bool(values.get("emergency")),
        "profile": _profile_public(values),
        "profile_summary": values.get("profile_summary") or "",
        "token_plan": {k: v for k, v in (values.get("token_plan") or {}).items()
                       if k in ("window", "sections", "estimator")},
        "retrieved_docs": [_public_doc(d) for d in values.get("retrieved_docs") or []],
        "refine_iteration_logs": list(values.get("refine_iteration_logs") or []),
        "cache_hit": bool(values.get("cache_hit")),
        "cache_similarity_score": values.get("cache_similarity_score"),
        "answer": values.get("answer") or "",
    }


def _erase_cached_answers(scope: UserScope) -> int:
    """The user's cached answers (the profile is in the user's store namespace: the core erases and
    exports it). Cached answers are erased, not exported: they are copies of the agent's replies."""
    from .nodes import CACHE_LABEL

    return scope.erase_semantic_cache(CACHE_LABEL)


def _user_text(values: Mapping[str, Any]) -> str:
    text = values.get("user_text")
    return text if isinstance(text, str) else ""


def _routes() -> Any:
    from .routes import make_routes

    return make_routes()


def _evaluation() -> Any:
    from .eval import EVALUATION

    return EVALUATION


def _cli() -> Any:
    from .cli import app

    return app


def _doctor(ctx: DoctorContext) -> Any:
    from .doctor import checks

    return checks(ctx)


SPEC = AgentSpec(
    name="rag",
    title="Medical RAG (context engineering)",
    description="Personalised medical information: a per-user health profile, hybrid retrieval (BM25 + dense, "
    "RRF) with citations, a token-budgeted context, self-refine, and a slot-guarded semantic cache.",
    build=build,
    samples=[["메트포르민 부작용이 뭐예요?"], ["65세 남성이고 당뇨가 있어요. 메트포르민 500mg 하루 두 번 먹어요.",
                                   "공복혈당 목표는 얼마인가요?"], ["What are the symptoms of type 2 diabetes?"]],
    make_input=make_input,
    public_state=public_state,
    step_cap=STEP_CAP,
    chat_fields=("intent", "cache_hit", "profile_summary"),
    options_model=RagOptions,
    session_options_model=RagSessionOptions,
    cli=_cli,
    evaluation=_evaluation,
    user_data=UserData(delete=_erase_cached_answers),
    routes=_routes,
    page_view="graphagents.agents.rag:view.js",
    user_text=_user_text,
    doctor=_doctor,
)
