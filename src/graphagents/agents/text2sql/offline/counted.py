"""What a count counts: the noun next to "how many" / "수" must be the thing the SQL counts.

Two ways a count answers another question with full confidence:

* the counted noun was not understood ("저자별 *논문* 수" with no table for 논문, "how many
  *check-ins*"): the composer counted the rows of whatever table the other words named, authors
  instead of papers;
* the counted table stores a count per row (``checkin.count``, ``num_orders``, ``quantity``):
  ``COUNT(*)`` counts records while "how many check-ins happened" asks for the sum of the stored
  counts. Which one is meant is not in the words, so the composer declines and says both readings.
"""

from __future__ import annotations

import re

from sqlglot import exp

from .link import Piece, TableRef, Unknown
from .meaning import Problem
from .plan import Planner

__all__ = ["count_problems"]

_EN_SKIP = frozenset({"of", "the", "a", "an", "distinct", "different", "unique", "total", "all", "our", "their"})
# A column that stores how many of the row's own events there were: "count", "qty", or a count named
# after the table ("checkin_count" in checkin). "num_semesters" in course counts something else.
_COUNT_COLUMN = re.compile(r"^(?:count|cnt|counts|quantity|qty|num|number|times|frequency)$", re.I)


def count_problems(p: Planner, tree: exp.Expr) -> list[Problem]:
    out: list[Problem] = []
    for func, pos in p.frame.aggs:
        if func != "count":
            continue
        noun = _counted_piece(p, pos)
        if isinstance(noun, Unknown):
            out.append(Problem(f"'{noun.text}' 가 무엇을 세는지 (어느 테이블인지) 찾지 못했습니다.",
                               f"I could not tell what {noun.text!r} counts: no table or column matches it."))
            break
    out += _stored_counts(p, tree)
    return out


def _counted_piece(p: Planner, pos: int) -> Piece | None:
    """English: the first content piece after "how many" / "number of"; Korean: the piece just before "수" / "몇"."""
    pieces = p.roles.pieces
    text = p.frame.text
    if p.korean:
        before = [q for q in pieces if q.start + len(q.text) <= pos]
        if not before:
            return None
        last = before[-1]
        gap = text[last.start + len(last.text):pos]
        # "논문 수", "논문은 몇 편", "저자는 몇 명": only particles or spaces between the noun and the count word
        return last if re.fullmatch(r"\s*(?:[은는이가을를의도]|들|들은|들이|들의)?\s*", gap) else None
    after = [q for q in pieces if q.start >= pos]
    if not after:
        return None
    first = after[0]
    words = [w.lower() for w in re.findall(r"[A-Za-z']+", text[pos:first.start])]
    if words[:2] in (["how", "many"], ["number", "of"], ["count", "of"]):
        words = words[2:]
    elif words[:1] == ["count"]:
        words = words[1:]
    return first if all(w in _EN_SKIP for w in words) else None


def _stored_counts(p: Planner, tree: exp.Expr) -> list[Problem]:
    for count in tree.find_all(exp.Count):
        if not isinstance(count.this, exp.Star):
            continue
        select = count.find_ancestor(exp.Select)
        if select is None:
            continue
        tables = [t.name for t in select.find_all(exp.Table) if t.find_ancestor(exp.Select) is select]
        if len(tables) != 1:
            continue
        info = p.catalog.tables.get(tables[0])
        if info is None or not _counted_is(p, tables[0]):
            continue
        stem = tables[0].lower().rstrip("s")
        stored = [c for c in info.columns if (_COUNT_COLUMN.match(c.name) or _names_own_count(c.name, stem))
                  and not c.primary_key
                  and c.name not in info.fks and _numeric(c.type)]
        if stored:
            c = stored[0]
            return [Problem(f"{c.table} 테이블의 각 행에 횟수({c.name})가 저장되어 있어, 행 수(COUNT)와 "
                            f"{c.name}의 합계 중 무엇을 묻는지 알 수 없습니다.",
                            f"each row of {c.table} stores a count ({c.name}), so I cannot tell whether you "
                            f"mean the number of rows or the sum of {c.table}.{c.name}; ask for one of them.")]
    return []


def _names_own_count(column: str, stem: str) -> bool:
    name = column.lower()
    return bool(stem) and stem in name and re.search(r"(?:^|_)(?:count|cnt|num|qty)(?:_|$)", name) is not None


def _counted_is(p: Planner, table: str) -> bool:
    """The question counts ``table`` itself (a word for it, or an unplaced noun), not e.g. its groups."""
    return any(isinstance(q, TableRef) and q.table == table for q in p.roles.tables) or not p.roles.tables


def _numeric(type_name: str) -> bool:
    t = type_name.lower()
    return any(k in t for k in ("int", "num", "dec", "real", "double", "float"))
