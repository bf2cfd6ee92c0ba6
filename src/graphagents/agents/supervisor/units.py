"""Amounts in this agent are kept in 만원 (the unit Korean real-estate data uses)."""

from __future__ import annotations

from graphagents.korean import format_krw


def format_manwon(manwon: int) -> str:
    """``35000`` -> "3억 5,000만원"."""
    return str(format_krw(int(manwon) * 10_000))
