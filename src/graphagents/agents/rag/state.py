"""The design note's ``AgentState``: 7 categories of fields, and the reducers that merge node updates.

Nodes return updates (new dicts and lists) and never mutate the state they are given. A session is
one LangGraph thread, so the state of the last turn is still there when the next one starts: the
first node (``check_similarity``) resets what belongs to one question (``PER_TURN_RESET``);
``retrieved_docs`` accumulates within a turn through its add reducer (the note's
``Annotated[List, add]``), is emptied by a ``None`` update and replaced by an ``Overwrite``.
"""

from __future__ import annotations

from typing import Annotated, Any

from graphagents.steps import StepState

__all__ = ["AgentState", "add_docs", "PER_TURN_RESET"]


def add_docs(left: list[dict[str, Any]] | None, right: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The note's ``add`` with a reset: ``None`` empties the list (a new question), a list is appended."""
    if right is None:
        return []
    return [*(left or []), *right]


class AgentState(StepState, total=False):
    # ----- 1. input -----
    user_text: str
    mode: str  # "ai_agent" | "llm"
    session_id: str
    user_id: str
    conversation_history: str | None

    # ----- 2. context engineering -----
    slot_out: dict[str, Any]  # this turn's extraction: 6 slots + removals
    profile: dict[str, Any]  # the merged, stored profile (6 slots)
    profile_summary: str
    profile_changes: list[str]  # this turn's profile changes and unreadable names, said in the reply
    profile_store: Any  # the note keeps the store object here; we keep its description (JSON-able)
    system_prompt: str
    user_prompt: str
    context_prompt: str
    token_plan: dict[str, Any]
    quality_score: float
    quality_feedback: dict[str, Any] | None

    # ----- 3. retrieval -----
    query_for_retrieval: str
    query_vector: list[float]
    retrieved_docs: Annotated[list[dict[str, Any]], add_docs]
    dynamic_k: int | None
    query_complexity: str | None  # greeting / simple / moderate / complex
    intent_reason: str

    # ----- 4. generation -----
    answer: str
    reply: str
    citations: list[dict[str, Any]]
    emergency: dict[str, Any] | None
    not_found: bool

    # ----- 5. self-refine -----
    needs_retrieval: bool
    iteration_count: int
    retrieved_docs_history: list[list[str]] | None
    quality_score_history: list[float] | None
    query_rewrite_history: list[str] | None
    refine_iteration_logs: list[dict[str, Any]] | None
    refine_stop_reason: str
    best_answer: dict[str, Any]  # the best-scoring answer of this turn's rounds (kept if a later one is worse)
    safety_concerns: list[str]  # the judge's safety concerns this turn: the reply carries a warning
    evidence_ids: list[str]  # the passages that fit the evidence budget (what the answer may cite)
    retrieved_iteration: int  # the iteration whose retrieval is done (-1: none yet)

    # ----- 6. response cache -----
    cache_hit: bool
    cached_response: str | None
    cache_similarity_score: float | None
    skip_pipeline: bool
    cache_signature: str
    cache_slots: dict[str, str]

    # ----- 7. settings -----
    feature_flags: dict[str, Any]
    agent_config: dict[str, Any]
    session_options: dict[str, Any]
    artifacts: list[dict[str, Any]]


PER_TURN_RESET: dict[str, Any] = {
    "slot_out": {},
    "profile_changes": [],
    "system_prompt": "",
    "user_prompt": "",
    "context_prompt": "",
    "token_plan": {},
    "quality_score": 0.0,
    "quality_feedback": None,
    "query_for_retrieval": "",
    "query_vector": [],
    "retrieved_docs": None,  # add_docs: None empties the list
    "dynamic_k": None,
    "query_complexity": None,
    "intent_reason": "",
    "answer": "",
    "reply": "",
    "citations": [],
    "emergency": None,
    "not_found": False,
    "needs_retrieval": False,
    "iteration_count": 0,
    "retrieved_docs_history": [],
    "quality_score_history": [],
    "query_rewrite_history": [],
    "refine_iteration_logs": [],
    "refine_stop_reason": "",
    "best_answer": {},
    "safety_concerns": [],
    "evidence_ids": [],
    "retrieved_iteration": -1,
    "cache_hit": False,
    "cached_response": None,
    "cache_similarity_score": None,
    "skip_pipeline": False,
    "cache_signature": "",
    "cache_slots": {},
    "artifacts": [],
    "stop_reason": None,
}
"""What the first node resets at the start of every question (the profile and history stay)."""
