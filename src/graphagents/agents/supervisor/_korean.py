"""The supervisor's one import point for Korean amounts (so that switching source is one edit)."""

from __future__ import annotations

from graphagents.agents.slotfill.nlu.numbers import find_krw_amounts, format_krw


def format_manwon(manwon: int) -> str:
    """``35000`` -> "3억 5,000만원": amounts in this agent are kept in 만원."""
    return str(format_krw(int(manwon) * 10_000))


__all__ = ["find_krw_amounts", "format_manwon"]
