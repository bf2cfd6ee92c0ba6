"""Slot values: validation against the scenario's rules, and how a value reads in Korean."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...korean import extract_phone, fix_particles, format_krw, parse_amount
from .scenario import Scenario, SlotDef


def normalise(slot: SlotDef, value: Any) -> Any:
    """Coerce a candidate (from the offline extractor or an LLM) to the slot's canonical type.

    Raises ValueError with a user-facing Korean reason when the value cannot be used at all."""
    if slot.type == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in {"true", "yes", "예", "네", "y"}:
            return True
        if isinstance(value, str) and value.strip().lower() in {"false", "no", "아니요", "아니오", "n"}:
            return False
        raise ValueError(slot.reask or slot.ask)
    if slot.type == "amount":
        if isinstance(value, bool):
            raise ValueError(slot.reask or slot.ask)
        if isinstance(value, int | float):
            return int(value)
        if isinstance(value, str):
            parsed = parse_amount(value) if not value.strip().isdigit() else int(value.strip())
            if parsed is not None:
                return parsed
        raise ValueError(slot.reask or slot.ask)
    if slot.type == "phone":
        number = extract_phone(str(value))
        if number is None:
            raise ValueError(slot.validation.message or slot.reask or slot.ask)
        return number
    if slot.type == "enum":
        text = str(value).strip()
        for choice in slot.choices:
            if text.casefold() == choice.casefold():
                return choice
        for choice, words in slot.synonyms.items():
            if text.casefold() in (w.casefold() for w in words):
                return choice
        raise ValueError(f"{slot.label}은(는) {', '.join(slot.choices)} 중에서 골라 주세요.")
    text = " ".join(str(value).split())
    if not text:
        raise ValueError(slot.reask or slot.ask)
    return text


def validate(sc: Scenario, key: str, value: Any, slots: Mapping[str, Any]) -> tuple[Any, str | None]:
    """(canonical value, None) or (None, reason); ``slots`` are the values already collected."""
    value, reason = _validate(sc, key, value, slots)
    return value, (None if reason is None else fix_particles(reason))


def _validate(sc: Scenario, key: str, value: Any, slots: Mapping[str, Any]) -> tuple[Any, str | None]:
    slot = sc.slots[key]
    try:
        value = normalise(slot, value)
    except ValueError as exc:
        return None, str(exc)
    rule = slot.validation
    if rule.choices is not None and slot.type != "enum" and str(value) not in rule.choices:
        return None, rule.message or f"{slot.label}은(는) {', '.join(rule.choices)} 중에서 골라 주세요."
    if rule.regex is not None and not re.fullmatch(rule.regex, str(value)):
        return None, rule.message or f"{slot.label} 형식이 올바르지 않아요."
    if slot.type == "amount":
        if value < 0:  # "-300만원", "마이너스 300만원", or a model's -3000000: never a limit, never made positive
            return None, f"{format_krw(value)}처럼 0보다 작은 금액은 정할 수 없어요. " + (
                rule.message or f"{slot.label}을(를) 다시 말씀해 주세요.")
        if (rule.min is not None and value < rule.min) or (rule.max is not None and value > rule.max):
            return None, (f"{format_krw(value)}은(는) 정할 수 없어요. "
                          + (rule.message or f"{slot.label}을(를) 다시 말씀해 주세요."))
        if rule.gte_slot and isinstance(slots.get(rule.gte_slot), int) and value < slots[rule.gte_slot]:
            other = sc.slots[rule.gte_slot]
            return None, (f"{slot.label}({format_krw(value)})은(는) {other.label}"
                          f"({format_krw(slots[rule.gte_slot])})보다 작을 수 없어요.")
        for other_key, other in sc.slots.items():
            lower = other.validation.gte_slot
            if lower == key and isinstance(slots.get(other_key), int) and slots[other_key] < value:
                return None, (f"{slot.label}({format_krw(value)})은(는) {other.label}"
                              f"({format_krw(slots[other_key])})보다 클 수 없어요.")
    return value, None


def display(sc: Scenario, key: str, value: Any) -> str:
    slot = sc.slots[key]
    if value is None:
        return "-"
    if slot.type == "boolean":
        return slot.display.get("true" if value else "false", "예" if value else "아니요")
    if slot.type == "amount" and isinstance(value, int):
        return format_krw(value)
    return slot.display.get(str(value), str(value))


def render(template: str, values: Mapping[str, str]) -> str:
    """Fill ``%{name}%`` and pick the particle after each value: "연락처를", "300만원으로"."""
    from .scenario import TEMPLATE

    return fix_particles(TEMPLATE.sub(lambda m: values.get(m.group(1), m.group(0)), template))
