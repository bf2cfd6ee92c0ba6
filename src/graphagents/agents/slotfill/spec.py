"""The slotfill AgentSpec: what the registry, CLI and server know about this agent."""

from __future__ import annotations

from typing import Any

from ...errors import InputError
from ...registry import AgentSpec, BuildContext, SessionContext
from .graph import build_graph
from .nodes import public_state

DEMO_PROFILE: dict[str, Any] = {"customer_name": "김민수", "customer_phone": "010-1234-5678"}
"""Used when a session brings no profile, so the demo shows the defaults being applied."""


def make_input(text: str, ctx: SessionContext) -> dict[str, Any]:
    profile = ctx.options.get("profile")
    if profile is None:
        profile = DEMO_PROFILE
    if not isinstance(profile, dict):
        raise InputError('session option "profile" must be an object such as '
                         '{"customer_name": "김민수", "customer_phone": "010-1234-5678"}')
    return {"user_input": text, "session_id": ctx.session_id, "profile": dict(profile),
            "session_options": dict(ctx.options)}


def build(ctx: BuildContext) -> Any:
    return build_graph(ctx)


def _cli() -> Any:
    from .cli import make_cli

    return make_cli()


def _eval_cli() -> Any:
    from .eval import make_eval_command

    return make_eval_command()


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
    options_help={"scenario": "path to a scenario JSON/YAML file (default: the bundled bank account scenario)"},
    session_options_help={
        "profile": 'customer profile defaults, e.g. {"customer_name": "김민수", "customer_phone": "010-1234-5678"}'
    },
    cli=_cli,
    eval_cli=_eval_cli,
)
