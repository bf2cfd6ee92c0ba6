"""The turn logic: read one answer, update slots, pick the next stage, set the next question.

Each call handles exactly one user utterance (``handle``). Repairs come first and never change a
slot: a question is answered and the pending question asked again; leaving is confirmed before
anything is cancelled; a handoff is offered after the caps and "no" to it always moves on. What
the user says about other items is applied wherever it is said (a correction of a confirmed
field, a declined optional item, an answer given ahead), then the stage's own answer.
"""

from __future__ import annotations

from typing import Any

from ...korean import question_topic
from ...privacy import loggable
from . import flow
from .logs import log
from .navigation import Navigator
from .reading import Interpretation, Reader, clean
from .scenario import Scenario, Stage
from .understanding import Understanding
from .values import display, render, validate
from .work import Work

__all__ = ["Engine", "Interpretation"]


class Engine(Navigator):
    def __init__(self, scenario: Scenario, understanding: Understanding) -> None:
        super().__init__(scenario, understanding)
        self.reader = Reader(scenario, understanding)

    # ----------------------------------------------------------------- starting
    def start(self, w: Work, profile: dict[str, Any], opening: str = "") -> None:
        """A new application; ``opening`` is the user's first message, read for values given ahead."""
        w.profile = dict(profile)
        w.stage_id = ""
        if opening:
            start_keys = set(self.sc.stages[self.sc.start_stage_id].keys)
            for key, value in self.reader.opening(opening, w.slots).items():
                value, reason = validate(self.sc, key, value, w.slots)
                if reason is None:
                    w.slots[key] = value
                    if key not in start_keys:
                        w.volunteered.append(key)
        self.enter(w, self.sc.start_stage_id)

    def interpret(self, w: Work, text: str) -> Interpretation:
        """What the utterance means at the current stage, without changing anything."""
        return self.reader.interpret(w, text)

    # ----------------------------------------------------------------- one turn
    def handle(self, w: Work, text: str) -> None:
        text = clean(text)  # the one normalisation policy, once, where the user's text comes in
        w.bump("turns")
        st = self.sc.stages[w.stage_id]
        if w.offer is not None:
            self._handle_offer(w, st, text)
            return
        meaning = self.interpret(w, text)
        w.last_intent = meaning.intent
        if meaning.intent in ("cancel", "help", "repeat", "handoff"):
            self._repair(w, st, meaning, text)
            return
        fields = flow.stage_fields(self.sc, st, w)
        changed = self._apply_asides(w, {k: v for k, v in meaning.values.items() if k not in fields})
        if meaning.detour is not None:
            self._detour(w, st, meaning.detour)
            return
        own = {k: v for k, v in meaning.values.items() if k in fields}
        if not flow.stage_fields(self.sc, st, w):  # an answer about another item closed this stage
            self.enter(w, st.id, counts=False)
        elif st.stage_type == "confirmation":
            self._confirmation(w, st, meaning, own, progress=bool(changed))
        elif st.stage_type == "correction":
            self._correction(w, st, meaning, own)
        else:
            self._collection(w, st, meaning, own, progress=bool(changed))

    # ----------------------------------------------------------------- repairs
    def _repair(self, w: Work, st: Stage, meaning: Interpretation, text: str) -> None:
        msgs = self.sc.messages
        if meaning.intent == "cancel":
            log.info("cancel asked at stage %s", st.id)
            w.offer = {"kind": "cancel"}
            self.ask_aside(w, msgs.confirm_cancel)
        elif meaning.intent == "handoff":
            w.status, w.reply, w.question = "handoff", msgs.handoff, ""
            log.info("handoff requested at stage %s", st.id)
        elif meaning.intent == "help":
            w.bump("help")
            w.notices.append(self._answer(w, st, text, question=meaning.question))
            self.ask(w, w.base_question)
        else:
            w.bump("repeats")
            w.notices.append(msgs.repeat_prefix)
            self.ask(w, w.base_question)

    def _answer(self, w: Work, st: Stage, text: str, *, question: bool) -> str:
        """The scenario's answer to a question; a question about something it does not cover (fees,
        documents) gets "I can't answer that here", never an item's description instead."""
        faq = self.sc.faq_answer(text)
        if faq is not None:
            return faq
        mentioned = self.nlu.mentioned_fields(text, list(self.sc.slots), self.sc)
        if question and (question_topic(text) is not None or not mentioned):
            return self.sc.messages.cannot_answer
        return self._help_text(w, st, text)

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
        if offer.get("kind") == "cancel":
            if answer == "yes" or (repair == "cancel" and answer is None):
                w.offer = None
                w.status, w.reply, w.question = "cancelled", msgs.cancelled, ""
                log.info("cancelled at stage %s", st.id)
            elif answer == "no" or offer.get("asked_again"):  # never cancel on an unclear answer
                w.offer = None
                w.notices.append(msgs.cancel_withdrawn)
                self.ask(w, w.base_question)
            else:
                w.offer = {**offer, "asked_again": True}
                self.ask_aside(w, f"{msgs.yes_no_hint} {msgs.confirm_cancel}")
            return
        if repair == "cancel":
            w.offer = {"kind": "cancel"}
            self.ask_aside(w, msgs.confirm_cancel)
            return
        # Yes, or no answer twice after being asked again: a person can help where the bot cannot.
        if answer == "yes" or repair == "handoff" or (answer is None and offer.get("asked_again")):
            w.offer = None
            w.status, w.reply, w.question = "handoff", msgs.handoff, ""
            return
        if answer is None:
            w.offer = {**offer, "asked_again": True}
            self.ask_aside(w, f"{msgs.yes_no_hint} {msgs.offer_handoff}")
            return
        w.offer = None  # "no" always moves on, however often the offer comes back
        self._move_on_with_defaults(w, st)

    def _move_on_with_defaults(self, w: Work, st: Stage) -> None:
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
                else:
                    # No default to fall back on: another round of tries; "no" never hands off.
                    if key in w.handoff_declined:
                        w.notices.append(msgs.continue_without_handoff)
                    else:
                        w.handoff_declined.append(key)
                    w.slot_retries[key] = 0
            w.stage_visit_count[st.id] = 0
            if all(k in w.slots for k in flow.stage_fields(sc, st, w)):
                self.enter(w, flow.next_stage(sc, st, w.slots))
            else:
                self.enter(w, st.id)
            return
        # Confirmation or correction: keep the values as they are and continue as confirmed.
        conf_id = st.id if st.stage_type == "confirmation" else st.default_next_stage_id or st.id
        conf = sc.stages.get(conf_id, st)
        w.confirm(conf.confirmation_group or conf.id)
        w.stage_visit_count[conf.id] = 0
        w.notices.append(msgs.kept_as_is)
        self.enter(w, flow.next_stage(sc, conf, w.slots, "confirmed"))

    # ----------------------------------------------------------------- values
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
                w.slot_retries[key] = w.slot_retries.get(key, 0) + 1
                log.info("rejected %s at stage %s: %s", key, w.stage_id, loggable(reason))
                continue
            changed = w.slots.get(key) != value
            w.slots[key] = value
            w.slot_retries.pop(key, None)
            if changed:
                set_keys.append(key)
                log.info("slot %s set to %s at stage %s", key, loggable(display(self.sc, key, value)), w.stage_id)
        return set_keys, reasons

    def _apply_asides(self, w: Work, found: dict[str, Any]) -> list[str]:
        """Values for items outside the stage: a changed earlier answer is said back as a correction,
        an answer given ahead is kept for its question (which is then skipped, and says so)."""
        sc = self.sc
        before = {k: w.slots.get(k) for k in found}
        set_keys, reasons = self._apply(w, found, [k for k in sc.slots if k in found])
        w.notices.extend(reasons)
        for key in set_keys:
            if before[key] is None:
                w.volunteered.append(key)
                continue
            w.bump("corrections_requested")
            w.bump("corrections_handled")
            w.notices.append(render(sc.messages.corrected, {"label": sc.slots[key].label,
                                                            "value": display(sc, key, w.slots[key])}))
        self._follow_up_group(w, set_keys)
        return set_keys

    def _detour(self, w: Work, st: Stage, key: str) -> None:
        """An earlier item named as wrong without its new value: ask for it, then come back here."""
        sc = self.sc
        w.bump("corrections_requested")
        target = flow.correction_stage_for(sc, key)
        if target is None:  # no correction stage: ask its own question again
            w.slots.pop(key, None)
            w.unconfirm(sc.group_of(key))
            self.enter(w, flow.collecting_stage(sc, key) or st.id, counts=False)
            return
        w.correction_context = {"group": sc.group_of(key), "fields": [key], "open": True, "return_to": st.id}
        self.enter(w, target)

    def _retry_cap_hit(self, w: Work, keys: list[str]) -> str | None:
        for key in keys:
            if w.slot_retries.get(key, 0) >= self.sc.slots[key].max_retries:
                return key
        return None

    # ----------------------------------------------------------------- stage types
    def _collection(self, w: Work, st: Stage, meaning: Interpretation, own: dict[str, Any], *,
                    progress: bool) -> None:
        sc, msgs = self.sc, self.sc.messages
        fields = flow.stage_fields(sc, st, w)
        batch = flow.missing_batch(sc, st, w)
        set_keys, reasons = self._apply(w, own, fields)
        if not set_keys and not reasons and not progress:
            for key in batch:
                w.slot_retries[key] = w.slot_retries.get(key, 0) + 1
        w.notices.extend(reasons)
        for key in [k for k in meaning.approximate if k in set_keys]:
            w.notices.append(render(msgs.approximate, {"label": sc.slots[key].label,
                                                       "value": display(sc, key, w.slots[key])}))
        if all(k in w.slots for k in flow.stage_fields(sc, st, w)):
            w.slot_retries = {k: v for k, v in w.slot_retries.items() if k not in fields}
            self.enter(w, flow.next_stage(sc, st, w.slots))
            return
        capped = self._retry_cap_hit(w, [k for k in fields if k not in w.slots])
        if capped is not None:
            w.bump("retry_caps")
            self.offer_handoff(w, {"kind": "retry_cap", "stage": st.id, "slot": capped})
            return
        self.reask(w, progress=bool(set_keys) or progress)

    def _confirmation(self, w: Work, st: Stage, result: Interpretation, own: dict[str, Any], *,
                      progress: bool) -> None:
        sc, msgs = self.sc, self.sc.messages
        fields = flow.stage_fields(sc, st, w)
        group = st.confirmation_group or st.id
        if result.intent == "confirmed":
            w.confirm(group)
            w.stage_visit_count[st.id] = 0
            w.correction_context = {}
            self.enter(w, flow.next_stage(sc, st, w.slots, "confirmed"))
            return
        if result.intent == "unclear":
            if not progress:
                w.notices.append(msgs.unclear_confirmation)
            self.reask(w, progress=progress)
            return
        w.bump("corrections_requested")
        if result.intent == "specific_correction" and own:
            set_keys, reasons = self._apply(w, own, fields)
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
        w.correction_context = {**w.correction_context, "group": group, "fields": targets, "open": True}
        w.correction_context.pop("return_to", None)
        self.enter(w, flow.next_stage(sc, st, w.slots, "needs_correction"))

    def _correction(self, w: Work, st: Stage, meaning: Interpretation, own: dict[str, Any]) -> None:
        sc, msgs = self.sc, self.sc.messages
        fields = flow.stage_fields(sc, st, w)
        focus = [f for f in w.correction_context.get("fields", []) if f in fields]
        set_keys, reasons = self._apply(w, own, fields)
        if set_keys or meaning.intent == "keep" or (own and not reasons):
            for key in set_keys:
                w.notices.append(render(msgs.corrected, {"label": sc.slots[key].label,
                                                         "value": display(sc, key, w.slots[key])}))
            if w.correction_context.pop("open", False):
                w.bump("corrections_handled")
            w.correction_context.pop("fields", None)
            back = w.correction_context.pop("return_to", None)
            if st.correction_for_group not in sc.info_groups:
                self._follow_up_group(w, set_keys)
            if back is not None:  # a detour: straight back to the question that was pending
                self.enter(w, back, counts=False)
            else:
                self.enter(w, flow.next_stage(sc, st, w.slots))
            return
        if not reasons:
            for key in focus or fields[:1]:
                w.slot_retries[key] = w.slot_retries.get(key, 0) + 1
        w.notices.extend(reasons)
        capped = self._retry_cap_hit(w, focus or fields)
        if capped is not None:
            w.bump("retry_caps")
            self.offer_handoff(w, {"kind": "retry_cap", "stage": st.id, "slot": capped})
            return
        self.reask(w, progress=False)

    def _follow_up_group(self, w: Work, set_keys: list[str]) -> None:
        """A change made outside its own group's correction (at the summary, or while answering
        something else) keeps groups confirmed, except that groups it makes applicable (internet
        banking switched on) must be collected and confirmed."""
        for key in set_keys:
            for name, group in self.sc.info_groups.items():
                if key in group.depends_on:
                    w.unconfirm(name)
