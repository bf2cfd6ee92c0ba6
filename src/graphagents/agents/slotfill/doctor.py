"""``graphagents doctor``'s check for slotfill (``AgentSpec.doctor``): the scenario it runs."""

from __future__ import annotations

from graphagents.registry import Check, DoctorContext

__all__ = ["checks"]


def checks(ctx: DoctorContext) -> list[Check]:
    return [Check("slotfill scenario", lambda: _scenario(ctx))]


def _scenario(ctx: DoctorContext) -> str:
    from .scenario import load_scenario

    sc = load_scenario(ctx.options.get("scenario"))
    return (f"{sc.title or sc.name}: {len(sc.stages)} stages, {len(sc.slots)} slots in {len(sc.info_groups)} groups"
            f"{'' if ctx.options.get('scenario') else ' (bundled)'}")
