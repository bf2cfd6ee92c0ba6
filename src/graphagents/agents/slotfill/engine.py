"""The turn logic: read one answer, update slots, pick the next stage, set the next question.

The engine never loops on its own input: each call handles exactly one user utterance and
walks forward through stages that need no answer (already confirmed, defaults applied, not
applicable) with a hard bound. Repeated questions are capped per stage (``max_stage_visits``)
and per slot (``max_retries``); both caps end in an offer of a human agent, and declining
it moves on with the default, so no conversation can ask the same thing forever.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...privacy import loggable
from . import flow
from .flow import Work
from .logs import log
from .scenario import END, Scenario, Stage
from .understanding import Understanding
from .values import display, render, validate


@dataclass(frozen=True)
class Interpretation:
    intent: str
    """inform | keep | unclear | confirmed | needs_correction | specific_correction | cancel | help | repeat
    | handoff"""
    values: dict[str, Any] = field(default_factory=dict)
    fields: list[str] = field(default_factory=list)


class Engine:
    def __init__(self, scenario: Scenario, understanding: Understanding) -> None:
        self.sc = scenario
        self.nlu = understanding

    # ----------------------------------------------------------------- navigation
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
            visits = w.visits.get(stage_id, 0)
            limit = st.max_visits or sc.max_stage_visits
            if counts and visits >= limit:
                w.bump("loops_hit")
                log.info("visit cap reached at stage %s (%d visits)", stage_id, visits)
                self._set_stage(w, st)
                self._offer_handoff(w, {"kind": "visit_cap", "stage": stage_id})
                return
            if counts:
                w.visits[stage_id] = visits + 1
            first = w.stage_id != stage_id or visits == 0
            self._set_stage(w, st)
            self._ask(w, flow.stage_question(sc, st, w, first=first))
            return
        # Unreachable with a validated scenario (every stage reaches END), kept as a hard stop.
        w.status, w.reply = "handoff", sc.messages.handoff

    def _skip(self, w: Work, st: Stage) -> str | None:
        sc = self.sc
        if st.stage_type == "collection":
            if st.apply_defaults:
                self._apply_profile_defaults(w, st)
            keys = flow.stage_fields(sc, st, w)
            if not any(k not in w.slots for k in keys):
                if st.prompt and st.apply_defaults and not w.stage_id:  # the opening line, once
                    w.notices.append(st.prompt)
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
            if group in w.confirmed:
                return flow.next_stage(sc, st, w.slots, "confirmed")
            return None
        if not flow.stage_fields(sc, st, w):  # correction stage with nothing applicable
            return flow.next_stage(sc, st, w.slots)
        return None

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
        if st.stage_type == "correction":
            w.unconfirm(st.correction_for_group)

    def _ask(self, w: Work, question: str) -> None:
        w.base_question = question
        w.question = "\n".join([*w.notices, question]).strip()
        w.notices = []

    def _offer_handoff(self, w: Work, offer: dict[str, Any]) -> None:
        w.offer = offer
        self._ask(w, self.sc.messages.offer_handoff)

    def reask(self, w: Work, *, progress: bool) -> None:
        """Ask the current stage again; only a turn without progress counts toward the cap."""
        self.enter(w, w.stage_id, counts=not progress)

    # ----------------------------------------------------------------- one turn
    def start(self, w: Work, profile: dict[str, Any]) -> None:
        w.profile = dict(profile)
        w.stage_id = ""
        self.enter(w, self.sc.start_stage_id)

    def interpret(self, w: Work, text: str) -> Interpretation:
        """What the utterance means at the current stage, without changing anything.

        This is the function the labelled utterance set measures (``graphagents eval slotfill``)."""
        sc, st = self.sc, self.sc.stages[w.stage_id]
        fields = flow.stage_fields(sc, st, w)
        asked = flow.missing_batch(sc, st, w) if st.stage_type == "collection" else fields
        expecting_yes_no = st.stage_type == "confirmation" or any(sc.slots[k].type == "boolean" for k in asked)
        repair = self.nlu.repair(text, expecting_yes_no=expecting_yes_no)
        if st.stage_type == "confirmation":
            if repair is not None:
                return Interpretation(repair)
            res = self.nlu.confirmation(text, fields, sc, w.slots, st, question=w.question)
            return Interpretation(res.intent, res.values, res.fields)
        narrowed = [f for f in w.correction.get("fields", []) if f in fields]
        # A correction of everything has no focus: a bare "아니요" there must not set every yes/no slot.
        focus = asked if st.stage_type == "collection" else (narrowed if len(narrowed) < len(fields) else [])
        if repair in ("help", "repeat", "handoff"):
            return Interpretation(repair)
        extra = self.volunteerable(w, st)
        found = self.nlu.extract(text, fields, focus, sc, w.slots, question=w.question, extra=extra)
        if found:  # "해외 IP 차단은 안 할래요" answers the question; it does not cancel
            return Interpretation("inform", found, list(found))
        if repair is not None:
            return Interpretation(repair)
        if st.stage_type == "correction" and self.nlu.keeps_values(text):
            return Interpretation("keep")
        return Interpretation("unclear")

    def volunteerable(self, w: Work, st: Stage) -> list[str]:
        """Slots of later collection stages a user may give ahead at a yes/no question.

        "평생계좌번호 쓸게요 그리고 인터넷뱅킹도 신청해 주세요": the later question is then skipped
        (its confirmation group still confirms it)."""
        sc = self.sc
        if st.stage_type != "collection" or not any(
                sc.slots[k].type == "boolean" for k in flow.missing_batch(sc, st, w)):
            return []
        seen, todo = {st.id}, list(st.next_ids())
        out: list[str] = []
        while todo:
            sid = todo.pop(0)
            if sid == END or sid in seen or sid not in sc.stages:
                continue
            seen.add(sid)
            nxt = sc.stages[sid]
            if nxt.stage_type == "correction":
                continue
            if nxt.stage_type == "collection":
                out.extend(k for k in nxt.keys if k not in st.keys and k not in out)
            todo.extend(nxt.next_ids())
        return out

    def handle(self, w: Work, text: str) -> None:
        w.bump("turns")
        st = self.sc.stages[w.stage_id]
        if w.offer is not None:
            self._handle_offer(w, st, text)
            return
        meaning = self.interpret(w, text)
        w.intent = meaning.intent
        if meaning.intent in ("cancel", "help", "repeat", "handoff"):
            self._repair(w, st, meaning.intent, text)
        elif st.stage_type == "confirmation":
            self._confirmation(w, st, meaning)
        elif st.stage_type == "correction":
            self._correction(w, st, meaning)
        else:
            self._collection(w, st, meaning)

    def _repair(self, w: Work, st: Stage, repair: str, text: str) -> None:
        msgs = self.sc.messages
        if repair == "cancel":
            w.status, w.reply, w.question = "cancelled", msgs.cancelled, ""
            log.info("cancelled at stage %s", st.id)
        elif repair == "handoff":
            w.status, w.reply, w.question = "handoff", msgs.handoff, ""
            log.info("handoff requested at stage %s", st.id)
        elif repair == "help":
            w.bump("help")
            w.notices.append(self._help_text(w, st, text))
            self._ask(w, w.base_question)
        else:
            w.bump("repeats")
            w.notices.append(self.sc.messages.repeat_prefix)
            self._ask(w, w.base_question)

    def _help_text(self, w: Work, st: Stage, text: str) -> str:
        fields = flow.stage_fields(self.sc, st, w)
        mentioned = self.nlu.mentioned_fields(text, fields, self.sc) or self.nlu.mentioned_fields(
            text, list(self.sc.slots), self.sc)
        if mentioned:
            return self.sc.slots[mentioned[0]].help or self.sc.messages.no_help
        if st.help:
            return st.help
        batch = flow.missing_batch(self.sc, st, w) or fields
        helps = [self.sc.slots[k].help for k in batch if self.sc.slots[k].help]
        return " ".join(helps[:2]) or self.sc.messages.no_help

    def _handle_offer(self, w: Work, st: Stage, text: str) -> None:
        offer, msgs = w.offer or {}, self.sc.messages
        answer = self.nlu.yes_no(text)
        repair = self.nlu.repair(text, expecting_yes_no=True)
        if repair == "cancel":
            w.offer = None
            w.status, w.reply, w.question = "cancelled", msgs.cancelled, ""
            return
        if answer == "yes" or repair == "handoff" or (answer is None and offer.get("asked_again")):
            w.offer = None
            w.status, w.reply, w.question = "handoff", msgs.handoff, ""
            return
        if answer is None:
            w.offer = {**offer, "asked_again": True}
            self._ask(w, f"{msgs.yes_no_hint} {msgs.offer_handoff}")
            return
        w.offer = None
        self._move_on_with_defaults(w, st, offer)

    def _move_on_with_defaults(self, w: Work, st: Stage, offer: dict[str, Any]) -> None:
        """The way out of a cap the user chose: defaults where the scenario has them, then onward."""
        sc, msgs = self.sc, self.sc.messages
        if st.stage_type == "collection":
            keys = [k for k in flow.stage_fields(sc, st, w) if k not in w.slots]
            for key in keys:
                slot = sc.slots[key]
                if slot.default_value is not None:
                    w.slots[key] = slot.default_value
                    w.notices.append(render(msgs.moved_on_default, {
                        "label": slot.label, "value": display(sc, key, slot.default_value)}))
                elif key not in w.declined:
                    # No default to fall back on: one more round of tries, then a human.
                    w.declined.append(key)
                    w.retries[key] = 0
                else:
                    w.status, w.reply, w.question = "handoff", msgs.handoff, ""
                    return
            w.visits[st.id] = 0
            if all(k in w.slots for k in flow.stage_fields(sc, st, w)):
                self.enter(w, flow.next_stage(sc, st, w.slots))
            else:
                self.enter(w, st.id)
            return
        # Confirmation or correction: keep the values as they are and continue as confirmed.
        conf_id = st.id if st.stage_type == "confirmation" else st.default_next_stage_id or st.id
        conf = sc.stages.get(conf_id, st)
        w.confirm(conf.confirmation_group or conf.id)
        w.visits[conf.id] = 0
        w.notices.append(msgs.kept_as_is)
        self.enter(w, flow.next_stage(sc, conf, w.slots, "confirmed"))

    # ----------------------------------------------------------------- stage types
    def _apply(self, w: Work, found: dict[str, Any], allowed: list[str]) -> tuple[list[str], list[str]]:
        """Validate and store extracted values; returns (keys set, reasons for rejected values)."""
        set_keys: list[str] = []
        reasons: list[str] = []
        for key in sorted(found, key=lambda k: allowed.index(k) if k in allowed else 99):
            if key not in allowed:
                continue
            value, reason = validate(self.sc, key, found[key], w.slots)
            if reason is not None:
                reasons.append(reason)
                w.retries[key] = w.retries.get(key, 0) + 1
                log.info("rejected %s at stage %s: %s", key, w.stage_id, loggable(reason))
                continue
            changed = w.slots.get(key) != value
            w.slots[key] = value
            w.retries.pop(key, None)
            if changed:
                set_keys.append(key)
                log.info("slot %s set to %s at stage %s", key, loggable(display(self.sc, key, value)), w.stage_id)
        return set_keys, reasons

    def _retry_cap_hit(self, w: Work, keys: list[str]) -> str | None:
        for key in keys:
            if w.retries.get(key, 0) >= self.sc.slots[key].max_retries:
                return key
        return None

    def _collection(self, w: Work, st: Stage, meaning: Interpretation) -> None:
        sc = self.sc
        fields = flow.stage_fields(sc, st, w)
        batch = flow.missing_batch(sc, st, w)
        set_keys, reasons = self._apply(w, meaning.values, [*fields, *self.volunteerable(w, st)])
        if not set_keys and not reasons:
            for key in batch:
                w.retries[key] = w.retries.get(key, 0) + 1
        w.notices.extend(reasons)
        if all(k in w.slots for k in flow.stage_fields(sc, st, w)):
            w.retries = {k: v for k, v in w.retries.items() if k not in fields}
            self.enter(w, flow.next_stage(sc, st, w.slots))
            return
        capped = self._retry_cap_hit(w, [k for k in fields if k not in w.slots])
        if capped is not None:
            w.bump("retry_caps")
            self._offer_handoff(w, {"kind": "retry_cap", "stage": st.id, "slot": capped})
            return
        self.reask(w, progress=bool(set_keys))

    def _confirmation(self, w: Work, st: Stage, result: Interpretation) -> None:
        sc, msgs = self.sc, self.sc.messages
        fields = flow.stage_fields(sc, st, w)
        group = st.confirmation_group or st.id
        if result.intent == "confirmed":
            w.confirm(group)
            w.visits[st.id] = 0
            w.correction = {}
            self.enter(w, flow.next_stage(sc, st, w.slots, "confirmed"))
            return
        if result.intent == "unclear":
            w.notices.append(msgs.unclear_confirmation)
            self.reask(w, progress=False)
            return
        w.bump("corrections_requested")
        if result.intent == "specific_correction" and result.values:
            set_keys, reasons = self._apply(w, result.values, fields)
            for key in set_keys:
                w.notices.append(render(msgs.corrected, {"label": sc.slots[key].label,
                                                         "value": display(sc, key, w.slots[key])}))
            w.notices.extend(reasons)
            if set_keys or not reasons:
                w.bump("corrections_handled")
            else:
                w.bump("corrections_requested", -1)  # the same request stays open: asked again
            self.reask(w, progress=bool(set_keys))
            return
        targets = [f for f in result.fields if f in fields] or fields
        w.correction = {**w.correction, "group": group, "fields": targets, "open": True}
        self.enter(w, flow.next_stage(sc, st, w.slots, "needs_correction"))

    def _correction(self, w: Work, st: Stage, meaning: Interpretation) -> None:
        sc, msgs = self.sc, self.sc.messages
        fields = flow.stage_fields(sc, st, w)
        focus = [f for f in w.correction.get("fields", []) if f in fields]
        set_keys, reasons = self._apply(w, meaning.values, fields)
        back = flow.next_stage(sc, st, w.slots)
        if set_keys or meaning.intent == "keep" or (meaning.values and not reasons):
            for key in set_keys:
                w.notices.append(render(msgs.corrected, {"label": sc.slots[key].label,
                                                         "value": display(sc, key, w.slots[key])}))
            if w.correction.pop("open", False):
                w.bump("corrections_handled")
            w.correction.pop("fields", None)
            self._follow_up_group(w, st, set_keys)
            self.enter(w, back)
            return
        if not reasons:
            for key in focus or fields[:1]:
                w.retries[key] = w.retries.get(key, 0) + 1
        w.notices.extend(reasons)
        capped = self._retry_cap_hit(w, focus or fields)
        if capped is not None:
            w.bump("retry_caps")
            self._offer_handoff(w, {"kind": "retry_cap", "stage": st.id, "slot": capped})
            return
        self.reask(w, progress=False)

    def _follow_up_group(self, w: Work, st: Stage, set_keys: list[str]) -> None:
        """A change made from a wider confirmation (the summary) keeps its group confirmed,
        except that newly applicable groups (internet banking switched on) must be collected."""
        if st.correction_for_group in self.sc.info_groups:
            return
        for key in set_keys:
            for name, group in self.sc.info_groups.items():
                if key in group.depends_on:
                    w.unconfirm(name)
