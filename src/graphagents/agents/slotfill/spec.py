"""The slotfill AgentSpec: what the registry, CLI and server know about this agent."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...registry import AgentSpec, BuildContext, DoctorContext, SessionContext
from ...userdata import UserData, UserScope
from .graph import build_graph
from .nodes import public_state
from .page import view_data

DEMO_PROFILE: dict[str, Any] = {"customer_name": "김민수", "customer_phone": "010-1234-5678"}
"""Used when a session brings no profile, so the demo shows the defaults being applied."""


class SlotfillOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scenario: str | None = Field(
        None, description="path to a scenario JSON/YAML file (default: the bundled bank account scenario)"
    )


class SlotfillSessionOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    profile: dict[str, Any] | None = Field(
        None,
        description='customer profile defaults, e.g. {"customer_name": "김민수", "customer_phone": "010-1234-5678"}',
    )


def make_input(text: str, ctx: SessionContext) -> dict[str, Any]:
    profile = ctx.options.get("profile")
    if profile is None:
        profile = DEMO_PROFILE
    return {"user_input": text, "session_id": ctx.session_id, "profile": dict(profile),
            "session_options": dict(ctx.options)}


def build(ctx: BuildContext) -> Any:
    return build_graph(ctx)


def _record_table(scope: UserScope) -> str:
    from .scenario import load_scenario

    return load_scenario(scope.options.get("scenario")).record_table


def _export_user(scope: UserScope) -> dict[str, Any]:
    """The applications a user's sessions submitted (their slots hold name, phone, limits)."""
    from .records import export_applications

    return {"applications": export_applications(scope.database, _record_table(scope), list(scope.session_ids))}


def _delete_user(scope: UserScope) -> int:
    from .records import delete_applications

    return delete_applications(scope.database, _record_table(scope), list(scope.session_ids))


def _cli() -> Any:
    from .cli import make_cli

    return make_cli()


def _evaluation() -> Any:
    from .eval import EVALUATION

    return EVALUATION


def _doctor(ctx: DoctorContext) -> Any:
    from .doctor import checks

    return checks(ctx)


SPEC = AgentSpec(
    name="slotfill",
    title="Slot filling (입출금통장)",
    description="Scenario-driven Korean slot filling: collects, confirms and corrects a bank account application.",
    build=build,
    samples=[
        ["안녕하세요", "네 맞아요", "네", "아니요", "네 맞아요"],
        ["통장 만들래요", "번호가 틀렸어요 010-9876-5432", "네", "네", "아니요", "네"],
        ["안녕하세요", "네", "네", "네", "OTP로 하고 1회 300만원", "하루 천만원", "네", "모두 사용할게요", "네", "네"],
    ],
    make_input=make_input,
    public_state=public_state,
    step_cap=12,
    chat_fields=("stage", "slots"),
    options_model=SlotfillOptions,
    session_options_model=SlotfillSessionOptions,
    cli=_cli,
    evaluation=_evaluation,
    user_data=UserData(export=_export_user, delete=_delete_user),
    page_view="graphagents.agents.slotfill:view.js",
    view_data=view_data,
    doctor=_doctor,
)
