"""Scenario files: the pydantic model, the checks pydantic cannot express, and loading.

A scenario is data: stages, transitions, slots and info groups. A bad file must fail at load
time with the JSON path and the reason, never halfway through a customer's conversation, so
every cross-reference (stage ids, slot names in templates, groups) is checked here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ...errors import ConfigError

END = "END_SCENARIO"
"""The pseudo stage a transition names to finish the scenario (and save the application)."""

RESERVED_TEMPLATE_NAMES = frozenset({"fields"})
"""``%{fields}%`` renders the stage's fields_to_confirm as a bulleted list."""

TEMPLATE = re.compile(r"%\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}%")

SlotType = Literal["person_name", "phone", "boolean", "enum", "amount", "text"]
StageType = Literal["collection", "confirmation", "correction"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Validation(_Strict):
    choices: list[str] | None = None
    min: int | None = Field(default=None, description="smallest allowed amount (amount slots)")
    max: int | None = Field(default=None, description="largest allowed amount (amount slots)")
    regex: str | None = Field(default=None, description="the normalised value must match (full match)")
    gte_slot: str | None = Field(default=None, description="amount must be >= this other amount slot")
    message: str | None = Field(default=None, description="reason told to the user when validation fails")

    @model_validator(mode="after")
    def _regex_compiles(self) -> Validation:
        if self.regex is not None:
            try:
                re.compile(self.regex)
            except re.error as exc:
                raise ValueError(f"regex {self.regex!r} does not compile: {exc}") from None
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min} is larger than max {self.max}")
        return self


class SlotDef(_Strict):
    type: SlotType
    label: str = Field(description="Korean name of the item, used in summaries and corrections")
    ask: str = Field(description="the question for this slot")
    reask: str | None = Field(default=None, description="asked again after an unusable answer")
    help: str = Field(default="", description="answer to '...가 뭐예요?' about this item")
    synonyms: dict[str, list[str]] = Field(default_factory=dict, description="enum: value -> Korean synonyms")
    display: dict[str, str] = Field(default_factory=dict, description='how values read: {"true": "사용"}')
    mentions: list[str] = Field(default_factory=list, description="words naming this item in a correction")
    validation: Validation = Field(default_factory=Validation)
    default_from_profile: str | None = Field(default=None, description="profile key for apply_defaults")
    default_value: Any = Field(default=None, description="value used when the user never gives one")
    max_retries: int = Field(default=3, ge=1, le=10)

    @model_validator(mode="after")
    def _enum_has_values(self) -> SlotDef:
        if self.type == "enum" and not (self.validation.choices or self.synonyms):
            raise ValueError("an enum slot needs validation.choices or synonyms")
        return self

    @property
    def choices(self) -> list[str]:
        return list(self.validation.choices or self.synonyms)


class SlotCondition(_Strict):
    slot: str
    equals: Any


class Transition(_Strict):
    next_stage_id: str
    condition: Literal["confirmed", "needs_correction", "always"] | SlotCondition = "always"
    intent_keywords: list[str] = Field(default_factory=list)


class Stage(_Strict):
    id: str
    stage_type: StageType = "collection"
    prompt: str = ""
    slot: str | None = None
    collect_multiple_info: bool = False
    expected_info_keys: list[str] = Field(default_factory=list)
    apply_defaults: bool = False
    fields_to_confirm: list[str] = Field(default_factory=list)
    confirmation_group: str | None = None
    correction_for_group: str | None = None
    transitions: list[Transition] = Field(default_factory=list)
    default_next_stage_id: str | None = None
    max_visits: int | None = Field(default=None, ge=1, le=20)
    help: str = ""

    @property
    def keys(self) -> list[str]:
        """The slots this stage collects (collection and correction stages)."""
        return list(self.expected_info_keys) if self.expected_info_keys else ([self.slot] if self.slot else [])

    def next_ids(self) -> list[str]:
        ids = [t.next_stage_id for t in self.transitions]
        return ids + ([self.default_next_stage_id] if self.default_next_stage_id else [])


class InfoGroup(_Strict):
    fields: list[str]
    priority: int = 100
    max_items: int = Field(default=3, ge=1)
    depends_on: dict[str, Any] = Field(default_factory=dict)
    confirmation_required: bool = True


class Faq(_Strict):
    """An answer to a question customers ask at any step ("OTP는 발급 비용 있어요?")."""

    keywords: list[str] = Field(min_length=1, description="any of these in the question (spacing ignored)")
    answer: str


class Messages(_Strict):
    """Engine sentences; templates may use %{label}%, %{value}%, %{reason}%, %{help}%."""

    unclear_confirmation: str = (
        "죄송해요, 잘 이해하지 못했어요. 맞으면 '네', 고칠 부분이 있으면 '아니요'라고 말씀해 주세요."
    )
    corrected: str = "%{label}%을(를) %{value}%(으)로 수정했어요."
    invalid: str = "%{reason}%"
    no_help: str = "이 단계에서는 질문에 답해 주시면 다음으로 넘어가요."
    cancelled: str = "신청을 취소했어요. 필요하실 때 언제든 다시 찾아 주세요."
    handoff: str = "상담원을 연결해 드릴게요. 잠시만 기다려 주세요."
    offer_handoff: str = "여러 번 진행이 어려웠어요. 상담원을 연결해 드릴까요? (네/아니요)"
    moved_on_default: str = "%{label}%은(는) 기본값 %{value}%(으)로 진행할게요."
    completed: str = "신청이 완료되었어요. 이용해 주셔서 감사합니다."
    yes_no_hint: str = "'네' 또는 '아니요'로 답해 주세요."
    ask_correction_field: str = "%{label}%을(를) 어떻게 바꿀까요? %{ask}%"
    repeat_prefix: str = "다시 말씀드릴게요."
    kept_as_is: str = "지금 내용 그대로 진행할게요."
    cannot_answer: str = "죄송해요, 그 질문에는 여기서 답변드리기 어려워요."
    confirm_cancel: str = "지금까지 말씀하신 신청을 취소할까요? (네/아니요)"
    cancel_withdrawn: str = "취소하지 않고 계속 진행할게요."
    continue_without_handoff: str = "상담원 연결 없이 계속 진행할게요."
    volunteered: str = "앞서 말씀하신 대로 %{label}%은(는) %{value}%(으)로 할게요."
    approximate: str = "%{label}%은(는) %{value}%(으)로 정할게요. 다른 금액을 원하시면 말씀해 주세요."
    closing: str = "이용해 주셔서 감사합니다. 새로 신청하시려면 '새로 신청할게요'라고 말씀해 주세요."
    closing_inactive: str = "진행 중인 신청이 없어요. 새로 신청하시려면 '새로 신청할게요'라고 말씀해 주세요."


class Scenario(_Strict):
    name: str
    title: str = ""
    version: str = "1"
    start_stage_id: str
    max_stage_visits: int = Field(default=3, ge=1, le=20)
    slots: dict[str, SlotDef]
    info_groups: dict[str, InfoGroup] = Field(default_factory=dict)
    stages: dict[str, Stage]
    messages: Messages = Field(default_factory=Messages)
    faq: list[Faq] = Field(default_factory=list, description="answers to questions asked at any step")
    record_table: str = Field(default="slotfill_applications", pattern=r"^[a-z_][a-z0-9_]{0,62}$")

    @model_validator(mode="after")
    def _cross_references(self) -> Scenario:
        problems = list(_check(self))
        if problems:
            path, reason = problems[0]
            raise ScenarioPathError(path, reason)
        return self

    def faq_answer(self, text: str) -> str | None:
        """The answer of the first FAQ entry whose keyword the question contains."""
        from ...korean import compact, loose

        asked = loose(compact(text))
        for entry in self.faq:
            if any(loose(compact(k)) in asked for k in entry.keywords if compact(k)):
                return entry.answer
        return None

    def group_of(self, slot: str) -> str | None:
        for name, group in self.info_groups.items():
            if slot in group.fields:
                return name
        return None

    def ordered_slots(self) -> list[str]:
        """Slots ordered by their group's priority, then by declaration order."""
        order = {s: i for i, s in enumerate(self.slots)}

        def key(s: str) -> tuple[int, int]:
            g = self.group_of(s)
            return (self.info_groups[g].priority if g else 10**6, order[s])

        return sorted(self.slots, key=key)


class ScenarioPathError(ValueError):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


class ScenarioError(ConfigError):
    """A scenario file that cannot be used; the message has the JSON path and the reason."""


def _check(sc: Scenario) -> Iterable[tuple[str, str]]:
    slots, stages = sc.slots, sc.stages
    if sc.start_stage_id not in stages:
        yield "$.start_stage_id", f"unknown stage {sc.start_stage_id!r}; stages: {', '.join(stages)}"
    for name, slot in slots.items():
        if slot.validation.gte_slot and slot.validation.gte_slot not in slots:
            yield f"$.slots.{name}.validation.gte_slot", f"unknown slot {slot.validation.gte_slot!r}"
        for key, path in ((slot.ask, "ask"), (slot.reask or "", "reask")):
            for used in TEMPLATE.findall(key):
                if used not in slots:
                    yield f"$.slots.{name}.{path}", f"template uses slot {used!r}, which is not defined"
    for gname, group in sc.info_groups.items():
        for i, f in enumerate(group.fields):
            if f not in slots:
                yield f"$.info_groups.{gname}.fields[{i}]", f"unknown slot {f!r}"
        for dep in group.depends_on:
            if dep not in slots:
                yield f"$.info_groups.{gname}.depends_on.{dep}", f"unknown slot {dep!r}"
    for sid, st in stages.items():
        base = f"$.stages.{sid}"
        if st.id != sid:
            yield f"{base}.id", f"stage id {st.id!r} differs from its key {sid!r}"
        for used in TEMPLATE.findall(st.prompt):
            if used not in slots and used not in RESERVED_TEMPLATE_NAMES:
                yield f"{base}.prompt", f"template uses slot {used!r}, which is not defined"
        for attr in ("expected_info_keys", "fields_to_confirm"):
            for i, f in enumerate(getattr(st, attr)):
                if f not in slots:
                    yield f"{base}.{attr}[{i}]", f"unknown slot {f!r}"
        if st.slot is not None and st.slot not in slots:
            yield f"{base}.slot", f"unknown slot {st.slot!r}"
        for i, t in enumerate(st.transitions):
            if t.next_stage_id != END and t.next_stage_id not in stages:
                yield f"{base}.transitions[{i}].next_stage_id", f"unknown stage {t.next_stage_id!r}"
            if isinstance(t.condition, SlotCondition) and t.condition.slot not in slots:
                yield f"{base}.transitions[{i}].condition.slot", f"unknown slot {t.condition.slot!r}"
        nxt = st.default_next_stage_id
        if nxt is not None and nxt != END and nxt not in stages:
            yield f"{base}.default_next_stage_id", f"unknown stage {nxt!r}"
        if not st.next_ids():
            yield base, "stage has neither transitions nor default_next_stage_id"
        if st.stage_type == "collection" and not st.keys and not st.apply_defaults:
            yield base, "a collection stage needs slot or expected_info_keys"
        if st.stage_type == "confirmation":
            if not st.fields_to_confirm:
                yield f"{base}.fields_to_confirm", "a confirmation stage needs fields to confirm"
            conds = {t.condition for t in st.transitions if isinstance(t.condition, str)}
            if "confirmed" not in conds and not st.default_next_stage_id:
                yield f"{base}.transitions", "a confirmation stage needs a 'confirmed' transition"
        if st.stage_type == "correction":
            if not st.keys and not st.correction_for_group:
                yield base, "a correction stage needs expected_info_keys or correction_for_group"
            target = st.correction_for_group
            if target is not None and target not in sc.info_groups and target not in _confirmation_groups(sc):
                yield f"{base}.correction_for_group", f"unknown group {target!r}"
    yield from _check_exits(sc)


def _confirmation_groups(sc: Scenario) -> set[str]:
    return {st.confirmation_group for st in sc.stages.values() if st.confirmation_group}


def _check_exits(sc: Scenario) -> Iterable[tuple[str, str]]:
    """Every stage must be able to reach END_SCENARIO; otherwise a cycle would trap the user."""
    can_end: set[str] = set()
    changed = True
    while changed:
        changed = False
        for sid, st in sc.stages.items():
            if sid not in can_end and any(n == END or n in can_end for n in st.next_ids()):
                can_end.add(sid)
                changed = True
    for sid in sc.stages:
        if sid not in can_end:
            cycle = _find_cycle(sc, sid)
            detail = f" (cycle {' -> '.join(cycle)})" if cycle else ""
            yield f"$.stages.{sid}", f"stage can never reach {END}: a cycle with no exit{detail}"
            return


def _find_cycle(sc: Scenario, start: str) -> list[str]:
    path: list[str] = []
    node: str | None = start
    while node is not None and node in sc.stages and node not in path:
        path.append(node)
        nxt = sc.stages[node].next_ids()
        node = nxt[0] if nxt else None
    return [*path[path.index(node):], node] if node in path else []


def _format_pydantic(exc: ValidationError) -> tuple[str, str]:
    err = exc.errors()[0]
    path = "$"
    for part in err["loc"]:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    ctx_error = (err.get("ctx") or {}).get("error")
    if isinstance(ctx_error, ScenarioPathError):
        return ctx_error.path, ctx_error.reason
    msg = str(ctx_error) if ctx_error else err["msg"]
    return path, msg.removeprefix("Value error, ")


def parse_scenario(data: Any, source: str = "scenario") -> Scenario:
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        path, reason = _format_pydantic(exc)
        raise ScenarioError(f"{source}: {path}: {reason}") from None


def load_scenario(path: str | Path | None = None) -> Scenario:
    """The bundled bank-account scenario, or the JSON/YAML file at ``path``."""
    if path is None:
        text = resources.files(__package__).joinpath("scenarios", "bank_account.json").read_text("utf-8")
        return parse_scenario(json.loads(text), "bank_account.json")
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"cannot read scenario {str(p)!r}: {exc}") from None
    return parse_scenario_text(text, p.name, yaml_ok=p.suffix in {".yaml", ".yml"})


def parse_scenario_text(text: str, source: str, *, yaml_ok: bool = True) -> Scenario:
    """A scenario from JSON text (or YAML, a superset of JSON, when ``yaml_ok``); ``source`` names it
    in errors (a file name, or ``<stdin>``)."""
    try:
        data = yaml.safe_load(text) if yaml_ok else json.loads(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ScenarioError(f"{source}: not valid {'YAML' if yaml_ok else 'JSON'}: "
                            f"{' '.join(str(exc).split())}") from None
    if data is None:
        raise ScenarioError(f"{source}: empty: no scenario to check")
    return parse_scenario(data, source)


def json_schema() -> dict[str, Any]:
    return Scenario.model_json_schema()
