"""Moving between stages: skip what needs no answer, count visits, and set the next question.

The engine never loops on its own input: ``enter`` walks forward through stages that need no
answer (already confirmed, defaults applied, answered ahead, not applicable) with a hard bound, and
a stage asked ``max_stage_visits`` times without progress ends in an offer of a human agent.
"""

from __future__ import annotations

from typing import Any

from . import flow
from .logs import log
from .scenario import END, Scenario, Stage
from .understanding import Understanding
from .values import display, render, validate
from .work import Work


class Navigator:
    def __init__(self, scenario: Scenario, understanding: Understanding) -> None:
        self.sc = scenario
        self.nlu = understanding

    def enter(self, w: Work, stage_id: str, *, counts: bool = True) -> None:
        """Go to ``stage_id``, skipping stages that need no answer, and set the question."""
        sc = self.sc
        for _ in range(len(sc.stages) * 3 + 5):
            if stage_id == END:
                w.previous_stage_id, w.stage_id = w.stage_id, END
                w.status, w.question = "completed", ""
                return
            st = sc.stages[stage_id]
            skip_to = self._skip(w, st)
            if skip_to is not None:
                stage_id = skip_to
                continue
            visits = w.stage_visit_count.get(stage_id, 0)
            limit = st.max_visits or sc.max_stage_visits
            if counts and visits >= limit:
                w.bump("loops_hit")
                log.info("visit cap reached at stage %s (%d visits)", stage_id, visits)
                self._set_stage(w, st)
                self.offer_handoff(w, {"kind": "visit_cap", "stage": stage_id})
                return
            if counts:
                w.stage_visit_count[stage_id] = visits + 1
            first = w.stage_id != stage_id or visits == 0
            self._set_stage(w, st)
            self.ask(w, flow.stage_question(sc, st, w, first=first))
            return
        # Unreachable with a validated scenario (every stage reaches END), kept as a hard stop.
        w.status, w.reply = "handoff", sc.messages.handoff

    def reask(self, w: Work, *, progress: bool) -> None:
        """Ask the current stage again; only a turn without progress counts toward the cap."""
        self.enter(w, w.stage_id, counts=not progress)

    def _skip(self, w: Work, st: Stage) -> str | None:
        sc = self.sc
        if st.stage_type == "collection":
            if st.apply_defaults:
                self._apply_profile_defaults(w, st)
            keys = flow.stage_fields(sc, st, w)
            if not any(k not in w.slots for k in keys):
                if st.prompt and st.apply_defaults and not w.stage_id:  # the opening line, once
                    w.notices.append(st.prompt)
                self._mention_volunteered(w, keys)
                return flow.next_stage(sc, st, w.slots)
            return None
        if st.stage_type == "confirmation":
            group = st.confirmation_group or st.id
            if not flow.group_applies(sc, group, w.slots):
                return flow.next_stage(sc, st, w.slots, "confirmed")
            for f in flow.stage_fields(sc, st, w):
                if f not in w.slots:
                    target = flow.collecting_stage(sc, f)
                    if target is not None and target != st.id:
                        return target
            if group not in sc.info_groups:
                for pending in flow.pending_groups(sc, w):
                    target = flow.confirmation_stage(sc, pending)
                    if target is not None and target != st.id:
                        return target
            if group in w.confirmed_groups:
                return flow.next_stage(sc, st, w.slots, "confirmed")
            return None
        if not flow.stage_fields(sc, st, w):  # correction stage with nothing applicable
            return flow.next_stage(sc, st, w.slots)
        return None

    def _mention_volunteered(self, w: Work, keys: list[str]) -> None:
        """A question skipped because the answer came earlier is not skipped silently."""
        for key in [k for k in keys if k in w.volunteered]:
            w.volunteered.remove(key)
            w.notices.append(render(self.sc.messages.volunteered, {
                "label": self.sc.slots[key].label, "value": display(self.sc, key, w.slots[key])}))

    def _apply_profile_defaults(self, w: Work, st: Stage) -> None:
        profile = w.profile
        for key in st.keys:
            source = self.sc.slots[key].default_from_profile
            if key not in w.slots and source and profile.get(source) not in (None, ""):
                value, reason = validate(self.sc, key, profile[source], w.slots)
                if reason is None:
                    w.slots[key] = value

    def _set_stage(self, w: Work, st: Stage) -> None:
        if w.stage_id != st.id:
            w.previous_stage_id = w.stage_id
        w.stage_id = st.id
        # A detour to correct one field returns to the pending question and keeps its group confirmed.
        if st.stage_type == "correction" and "return_to" not in w.correction_context:
            w.unconfirm(st.correction_for_group)

    def ask(self, w: Work, question: str) -> None:
        """Set the stage's question (what help and repeat ask again), after this turn's notices."""
        w.base_question = question
        w.question = "\n".join([*w.notices, question]).strip()
        w.notices = []

    def ask_aside(self, w: Work, question: str) -> None:
        """Ask the engine's own yes/no (a handoff offer, a cancel) without losing the stage's question."""
        w.question = "\n".join([*w.notices, question]).strip()
        w.notices = []

    def offer_handoff(self, w: Work, offer: dict[str, Any]) -> None:
        w.offer = offer
        self.ask_aside(w, self.sc.messages.offer_handoff)
