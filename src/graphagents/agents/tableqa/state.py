"""Graph state of the tableqa agent: the design note's two table lists, by artifact id.

``original_tables`` is written once per session (when the tables are loaded) and never again:
no node returns it after that, and each entry's id is the content hash of its table, so a changed
table would be a different id (tests recompute the hashes after every step). ``intermediate_tables``
grows by one entry per successful Retrieve/Operate; the last one is the coder's ``df``. Both hold
ids of the :class:`~graphagents.sandbox.ArtifactStore`, never DataFrames: the checkpointer
rewrites the whole state at every step.

Lists that grow during a question use :func:`extend_or_reset`: a node returns new items to append,
or ``{"reset": [...]}`` to start the list over (a new question in the same session).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from graphagents.toolloop import LoopState

__all__ = [
    "IntermediateTable",
    "Status",
    "StepRecord",
    "TableQAState",
    "TableRef",
    "extend_or_reset",
    "reset",
]

Status = Literal["running", "answered", "budget", "declined", "error", "steps"]


class TableRef(TypedDict):
    """An original table: loaded once, never changed."""

    id: str
    name: str
    rows: int
    columns: list[str]
    dtypes: list[str]
    source: str


class IntermediateTable(TypedDict):
    """The result of one Retrieve/Operate step, with what produced it."""

    id: str
    step: int
    action: Literal["Retrieve", "Operate"]
    instruction: str
    code: str
    rows: int
    columns: list[str]
    input_id: str  # the `df` the code saw: proves the chain (MACT's release always saw the original)


class StepRecord(TypedDict, total=False):
    step: int
    thought: str
    action: str
    argument: str
    votes: int  # planner samples that chose this action
    code_votes: int  # coder programs whose results agreed with the chosen one
    candidates: int
    code: str
    observation: str
    ok: bool
    error_type: str
    table_id: str


def extend_or_reset(left: list[Any] | None, right: list[Any] | dict[str, list[Any]] | None) -> list[Any]:
    if right is None:
        return list(left or [])
    if isinstance(right, dict):
        return list(right.get("reset", []))
    return [*(left or []), *right]


def reset(items: list[Any] | None = None) -> dict[str, list[Any]]:
    """The update that replaces a list (see :func:`extend_or_reset`)."""
    return {"reset": list(items or [])}


class TableQAState(LoopState, total=False):
    """The tool loop's keys (``react``, ``transcript``, ``pending``, ``status``, ``answer`` = the
    Finish argument, ``remaining_steps`` ...) plus the design note's tables and MACT's bookkeeping."""

    user_input: str
    session_options: dict[str, Any]
    user_id: str  # the session's owner: session tables are that user's uploads
    question: str
    original_tables: list[TableRef]
    intermediate_tables: Annotated[list[IntermediateTable], extend_or_reset]
    steps: Annotated[list[StepRecord], extend_or_reset]
    candidate_answers: Annotated[list[dict[str, Any]], extend_or_reset]  # scalar results, for a budget answer
    answers: list[str]  # the answer values
    answer_table: str | None  # a table id when the answer is a whole table (Finish[df])
    tables_used: list[str]
    reason: str
    reply: str
