"""Stage navigation: which stage comes next, which stages apply, and what to ask there.

Everything here is a pure function of the scenario and a working copy of the state, so the
engine's turn logic can be read (and tested) without LangGraph.
"""

from __future__ import annotations

from typing import Any

from .scenario import END, Scenario, SlotCondition, Stage
from .values import display, render
from .work import Work


def applicable(sc: Scenario, key: str, slots: dict[str, Any]) -> bool:
    """False when the slot's group depends on an answer the user did not give (IB declined)."""
    group = sc.group_of(key)
    if group is None:
        return True
    return all(slots.get(k) == v for k, v in sc.info_groups[group].depends_on.items())


def group_applies(sc: Scenario, group: str | None, slots: dict[str, Any]) -> bool:
    if group is None or group not in sc.info_groups:
        return True
    return all(slots.get(k) == v for k, v in sc.info_groups[group].depends_on.items())


def pending_groups(sc: Scenario, w: Work) -> list[str]:
    """Groups complete and applicable that still need the user's confirmation, by priority."""
    out = []
    for name, g in sorted(sc.info_groups.items(), key=lambda kv: kv[1].priority):
        if (g.confirmation_required and name not in w.confirmed_groups and group_applies(sc, name, w.slots)
                and all(f in w.slots for f in g.fields)):
            out.append(name)
    return out


def next_stage(sc: Scenario, stage: Stage, slots: dict[str, Any], outcome: str | None = None) -> str:
    for t in stage.transitions:
        cond = t.condition
        if isinstance(cond, SlotCondition):
            if slots.get(cond.slot) == cond.equals:
                return t.next_stage_id
        elif cond == "always" or cond == outcome:
            return t.next_stage_id
    if stage.default_next_stage_id:
        return stage.default_next_stage_id
    return stage.transitions[-1].next_stage_id


def collecting_stage(sc: Scenario, key: str) -> str | None:
    """The collection stage that asks for ``key``: where to go when a confirmation finds it missing."""
    for sid, st in sc.stages.items():
        if st.stage_type == "collection" and key in st.keys:
            return sid
    return None


def correction_stage_for(sc: Scenario, key: str) -> str | None:
    """The correction stage that asks ``key`` again: its own group's, else any that takes it."""
    group = sc.group_of(key)
    takes = [sid for sid, st in sc.stages.items() if st.stage_type == "correction" and key in st.keys]
    own = [sid for sid in takes if sc.stages[sid].correction_for_group == group]
    return (own or takes)[0] if takes else None


def confirmation_stage(sc: Scenario, group: str) -> str | None:
    for sid, st in sc.stages.items():
        if st.stage_type == "confirmation" and st.confirmation_group == group:
            return sid
    return None


def stage_fields(sc: Scenario, stage: Stage, w: Work) -> list[str]:
    """The slots a user may give at this stage (correction stages narrow to the correction context)."""
    if stage.stage_type == "confirmation":
        return [f for f in stage.fields_to_confirm if applicable(sc, f, w.slots)]
    keys = stage.keys
    if not keys and stage.correction_for_group in sc.info_groups:
        keys = sc.info_groups[stage.correction_for_group].fields
    return [k for k in keys if applicable(sc, k, w.slots)]


def missing_batch(sc: Scenario, stage: Stage, w: Work) -> list[str]:
    """The next missing slots to ask, at most the group's ``max_items`` at once."""
    missing = [k for k in stage_fields(sc, stage, w) if k not in w.slots]
    if not missing:
        return []
    group = sc.group_of(missing[0])
    limit = sc.info_groups[group].max_items if group else len(missing)
    return missing[:limit] if stage.collect_multiple_info else missing[:1]


def values_for_template(sc: Scenario, stage: Stage, w: Work) -> dict[str, str]:
    values = {k: display(sc, k, v) for k, v in w.slots.items() if k in sc.slots}
    lines = [f"- {sc.slots[f].label}: {display(sc, f, w.slots.get(f))}"
             for f in stage.fields_to_confirm if applicable(sc, f, w.slots) and f in w.slots]
    values["fields"] = "\n".join(lines)
    return values


def stage_question(sc: Scenario, stage: Stage, w: Work, *, first: bool) -> str:
    """The question asked at ``stage``: its prompt, plus the asks of the slots still missing."""
    values = values_for_template(sc, stage, w)
    if stage.stage_type == "confirmation":
        return render(stage.prompt, values)
    if stage.stage_type == "correction":
        fields = [f for f in w.correction_context.get("fields", []) if f in stage_fields(sc, stage, w)]
        if len(fields) == 1:
            slot = sc.slots[fields[0]]
            return render(sc.messages.ask_correction_field, {"label": slot.label, "ask": render(slot.ask, values)})
        return render(stage.prompt, values)
    batch = missing_batch(sc, stage, w)
    asks = [render(sc.slots[k].ask if first or not sc.slots[k].reask else sc.slots[k].reask or "", values)
            for k in batch]
    if stage.collect_multiple_info or not batch:
        parts = [render(stage.prompt, values)] if stage.prompt and first else []
        return "\n".join(parts + [" ".join(asks)]).strip()
    if stage.prompt and first:
        return render(stage.prompt, values)
    return " ".join(asks)


def is_terminal(stage_id: str) -> bool:
    return stage_id == END
