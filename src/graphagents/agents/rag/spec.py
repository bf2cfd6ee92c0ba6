"""The rag AgentSpec: registered through the ``graphagents.agents`` entry point."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphagents.registry import AgentSpec, SessionContext
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


def _export(scope: UserScope) -> Mapping[str, Any]:
    from graphagents.store import database_for

    from .profiles import profile_store_for

    record = profile_store_for(database_for(scope.settings.resolved_database_url)).get(scope.user_id)
    return {"profile": record.profile, "updated_at": record.updated_at}


def _delete(scope: UserScope) -> int:
    from graphagents._connections import semantic_caches
    from graphagents.store import database_for

    from .nodes import CACHE_NAMESPACE
    from .profiles import profile_store_for

    removed = profile_store_for(database_for(scope.settings.resolved_database_url)).delete(scope.user_id)
    for cache in semantic_caches(scope.settings.cache_url, CACHE_NAMESPACE):
        removed += cache.delete_scope(scope.user_id)
    if scope.settings.cache_url and not semantic_caches(scope.settings.cache_url, CACHE_NAMESPACE):
        from graphagents._connections import semantic_cache_for
        from graphagents.retrieval import FakeEmbedder

        # Redis entries are shared by every process: delete them even if this process never opened the cache
        removed += semantic_cache_for(scope.settings.cache_url, CACHE_NAMESPACE, FakeEmbedder()).delete_scope(
            scope.user_id)
    return removed


def _evaluation() -> Any:
    from .eval import EVALUATION

    return EVALUATION


def _cli() -> Any:
    from .cli import app

    return app


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
    user_data=UserData(export=_export, delete=_delete),
)
