"""Typed access to the entities planning extracted (they travel in state as a plain dict).

Amounts are in 만원 (the unit Korean real-estate data uses), each with the role the query gave
it: deposit (보증금), monthly_rent (월세), price (매매가), income (연소득), senior_debt (선순위 채권),
loan, other. Several amounts may share a role ("월세 80만원 ... 월세 100만원"): order is kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

AMOUNT_ROLES = ("deposit", "monthly_rent", "price", "income", "senior_debt", "loan", "converted", "other")


def amounts(entities: Mapping[str, Any], role: str) -> list[int]:
    return [int(a["manwon"]) for a in entities.get("amounts") or [] if a.get("role") == role]


def amount(entities: Mapping[str, Any], role: str, index: int = 0) -> int | None:
    found = amounts(entities, role)
    return found[index] if len(found) > index else None


def first_date(entities: Mapping[str, Any]) -> date | None:
    for text in entities.get("dates") or []:
        try:
            return date.fromisoformat(text)
        except ValueError:
            continue
    return None


def area_range(entities: Mapping[str, Any]) -> tuple[float, float] | None:
    area = entities.get("area")
    if not area:
        return None
    return float(area["min_m2"]), float(area["max_m2"])


def has_numbers(entities: Mapping[str, Any]) -> bool:
    return bool(entities.get("amounts") or entities.get("percents") or entities.get("dates"))


def old_and_new(entities: Mapping[str, Any], role: str) -> tuple[int | None, int | None]:
    """The amount of a role before and after a change ("나는 월세 80만원이었는데 ... 100만원에 다른 사람")."""
    items = [a for a in entities.get("amounts") or [] if a.get("role") == role]
    old = next((a for a in items if a.get("time") == "old"), None)
    new = next((a for a in items if a.get("time") == "new"), None)
    rest = [a for a in items if a is not old and a is not new]
    if old is None and rest:
        old = rest.pop(0)
    if new is None and rest:
        new = rest.pop(0)
    return (int(old["manwon"]) if old else None, int(new["manwon"]) if new else None)
