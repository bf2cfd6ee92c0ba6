"""A state the question asks about that no column expressed: "Which businesses are *closed*?",
"*문을 닫은* 가게". The composer ignores words it cannot place, which is right for verbs that only
link two things it did place ("reviews *received* by a product", "리뷰가 *달린* 상품"), and wrong for
a word that is itself the condition: dropped, the SQL lists every business, open or closed.

English: an unplaced word right after a copula ("are closed", "is currently open", "were not
shipped"). Korean: an unplaced verb or adjective that modifies the head noun while nothing it could
link is in front of it ("문을 닫은 가게": 문 is not placed either).
"""

from __future__ import annotations

import re

from .link import ColumnRef, Piece, TableRef, Unknown, ValueRef
from .meaning import Problem
from .plan import Planner

__all__ = ["unplaced_predicates"]

_COPULA = re.compile(r"\b(?:is|are|was|were|be|been|being)\s+(?:(?:currently|still|now|already|permanently"
                     r"|temporarily|presently|actually|all|also)\s+)*$", re.I)


def unplaced_predicates(p: Planner) -> list[Problem]:
    pieces = p.roles.pieces
    text = p.frame.text
    for i, q in enumerate(pieces):
        if not isinstance(q, Unknown):
            continue
        if p.korean:
            if _korean_state(pieces, i):
                return [_problem(q.text)]
        elif _COPULA.search(text[:q.start]) and not _followed_by_object(text, q):
            nxt = pieces[i + 1] if i + 1 < len(pieces) else None
            adverb = q.text.lower().endswith("ly") and isinstance(nxt, Unknown)
            return [_problem(nxt.text if adverb and nxt is not None else q.text)]
    return []


def _followed_by_object(text: str, q: Unknown) -> bool:
    """'are located in X', 'were shipped to Y': a relation that other words place; 'are closed?' is a state."""
    rest = text[q.start + len(q.text):].strip().lower()
    return bool(re.match(r"(?:in|at|to|by|from|with|on|for|of|into|under|over|than)\b", rest))


def _korean_state(pieces: list[Piece], i: int) -> bool:
    q = pieces[i]
    if not q.text.endswith("다"):
        return False  # a noun, not a verb or an adjective
    head = pieces[i + 1] if i + 1 < len(pieces) else None
    if not isinstance(head, TableRef):
        return False
    before = pieces[i - 1] if i else None
    return not isinstance(before, TableRef | ColumnRef | ValueRef)


def _problem(word: str) -> Problem:
    return Problem(f"'{word}' 가 나타내는 상태를 어느 컬럼의 조건으로 표현해야 하는지 찾지 못했습니다.",
                   f"I could not tell which column expresses {word!r}; without it the SQL would answer "
                   "for every row.")
