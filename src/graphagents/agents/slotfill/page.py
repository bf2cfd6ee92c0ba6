"""What the web page needs to draw a slot-filling state for people (``AgentSpec.view_data``): the
scenario's groups in order, each slot's Korean label, type and display values, and which group
each stage works on. The page's slotfill view (``view.js``) reads it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["view_data"]


def view_data(options: Mapping[str, Any]) -> dict[str, Any]:
    from .scenario import load_scenario

    sc = load_scenario(options.get("scenario"))
    groups = []
    for gid, group in sorted(sc.info_groups.items(), key=lambda kv: kv[1].priority):
        groups.append({
            "id": gid,
            "fields": list(group.fields),
            "depends_on": dict(group.depends_on),
            "confirmation_required": group.confirmation_required,
        })
    slots = {sid: {"label": s.label, "type": s.type, "display": dict(s.display)} for sid, s in sc.slots.items()}
    stages = {}
    for stid, stage in sc.stages.items():
        fields = [stage.slot] if stage.slot else list(stage.expected_info_keys or stage.fields_to_confirm)
        group_id = stage.confirmation_group or (sc.group_of(fields[0]) if fields else None)
        stages[stid] = {"type": stage.stage_type, "group": group_id, "fields": fields}
    return {"scenario": {"name": sc.name, "title": sc.title, "groups": groups, "slots": slots, "stages": stages}}
