"""Slot values: validation against the scenario's rules, and how a value reads in Korean."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .nlu import extract_phone, format_krw, parse_krw_amount
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
            parsed = parse_krw_amount(value) if not value.strip().isdigit() else int(value.strip())
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
    return value, (None if reason is None else _fix_josa(reason))


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


_JOSA = re.compile(r"(?<=[\w)])(을\(를\)|를\(을\)|은\(는\)|는\(은\)|이\(가\)|가\(이\)|과\(와\)|와\(과\)|\(으\)로)")
_JOSA_FORMS = {"을(를)": ("을", "를"), "를(을)": ("을", "를"), "은(는)": ("은", "는"), "는(은)": ("은", "는"),
               "이(가)": ("이", "가"), "가(이)": ("이", "가"), "과(와)": ("과", "와"), "와(과)": ("과", "와"),
               "(으)로": ("으로", "로")}
_DIGIT_BATCHIM = {"0": True, "1": True, "2": False, "3": True, "4": False, "5": False, "6": True,
                  "7": True, "8": True, "9": False}


def _batchim(ch: str) -> bool | None:
    """Whether ``ch`` ends in a final consonant (None: unknown, e.g. Latin letters)."""
    if "가" <= ch <= "힣":
        return (ord(ch) - 0xAC00) % 28 != 0
    if ch.isascii() and ch.isalpha():
        return ch.upper() in "LMNR"  # read as 엘, 엠, 엔, 알
    return _DIGIT_BATCHIM.get(ch)


def _fix_josa(text: str) -> str:
    def pick(m: re.Match[str]) -> str:
        prev = text[m.start() - 1]
        if prev == ")":  # "1일 이체한도(300만원)은(는)": the particle follows the word before the (...)
            opening = text.rfind("(", 0, m.start() - 1)
            if opening <= 0:
                return m.group(1)
            prev = text[opening - 1]
        has, no = _JOSA_FORMS[m.group(1)]
        final = _batchim(prev)
        if final is None:
            return m.group(1)
        rieul = ((ord(prev) - 0xAC00) % 28 == 8) if "가" <= prev <= "힣" else prev.upper() in "LR1780"
        if m.group(1) == "(으)로" and rieul:
            return "로"  # an ㄹ-final takes 로: "1일로", "URL로"
        return has if final else no

    return _JOSA.sub(pick, text)


def render(template: str, values: Mapping[str, str]) -> str:
    """Fill ``%{name}%`` and pick the particle after each value: "연락처를", "300만원으로"."""
    from .scenario import TEMPLATE

    return _fix_josa(TEMPLATE.sub(lambda m: values.get(m.group(1), m.group(0)), template))
