"""Execution-accuracy comparison of a predicted result against gold results.

Modelled on defog sql-eval (``compare_query_results``: exact match, then the gold-columns-are-a-subset
check) and on Spider/BIRD execution accuracy (row multisets; row order only when the gold sorts):

* rows are multisets; order matters only when the gold has a top-level ORDER BY
  (:func:`gold_is_ordered`) and, when the question text is given, the question asks for an order,
  the way defog only orders when the question says so;
* the prediction may carry extra columns and name or order its columns freely: each gold column must
  be matched by the values of a distinct predicted column (defog's ``subset_df``);
* values are normalised so engines and drivers agree: Decimal/int/float compare numerically with a
  tolerance, NaN is NULL, booleans are 0/1, dates compare equal to their ISO strings;
* the defog gold conventions (``{a,b}`` column alternatives, several golds joined by ``;``) are
  expanded by :func:`expand_gold_alternatives`; a prediction is right if it matches any of them.

Unlike defog we do not drop duplicate rows: ``COUNT`` over a wrong join shows up as extra rows.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterator, Sequence
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

import sqlglot
from sqlglot import exp

from ._sqltext import code_positions, split_statements, split_top_level

QueryRows = Sequence[Sequence[Any]]

REL_TOL = 1e-6
ABS_TOL = 1e-9
_MAX_ASSIGNMENTS = 2_000  # bound on column permutations tried for very wide, repetitive results
_GREEDY_LIMIT = 2_000  # rows; above this a float-tolerant pairing falls back to sorted pairing only

_ORDER_CUE = re.compile(
    r"\b(sort(ed|s)?|order(ed)? by|in (\w+ )?order|ordered|arrange[ds]?|rank(ed|ing|s)?|ascending|"
    r"descending|top|bottom|highest|lowest|chronologic(al|ally))\b"
    r"|정렬|순서|순위|순으로|상위|하위|오름차순|내림차순|차례|[은는]\s?순\b|최신순",
    re.IGNORECASE,
)


# ---------------------------------------------------------------- gold SQL conventions


def expand_gold_alternatives(sql: str) -> list[str]:
    """Every concrete gold query a defog-style gold string stands for.

    ``;`` separates alternative golds. Each ``{a, b}`` group stands for every non-empty subset of its
    options in their written order (defog's ``get_all_minimal_queries``), several groups multiply,
    and an empty ``{}`` repeats the choice of the nearest group before it (``GROUP BY {}``).
    Braces, semicolons and commas inside literals, quoted names and comments are left alone.
    """
    expanded: list[str] = []
    for statement in split_statements(sql):
        expanded.extend(_expand_braces(statement))
    return list(dict.fromkeys(expanded))


def _expand_braces(sql: str) -> list[str]:
    groups: list[tuple[int, int]] = []
    opening: int | None = None
    for i in code_positions(sql):
        if sql[i] == "{" and opening is None:
            opening = i
        elif sql[i] == "}" and opening is not None:
            groups.append((opening, i))
            opening = None
    if not groups:
        return [sql]
    options: list[list[str]] = []
    for start, end in groups:
        inner = sql[start + 1 : end].strip()
        if not inner:
            if not options:
                raise ValueError(f"empty {{}} with no column set before it in gold query {sql!r}")
            continue
        choices = [c for c in split_top_level(inner) if c]
        options.append([", ".join(combo) for r in range(1, len(choices) + 1)
                        for combo in itertools.combinations(choices, r)])
    results = []
    for picks in itertools.product(*options):
        out, last, pick_iter, current = [], 0, iter(picks), ""
        for start, end in groups:
            out.append(sql[last:start])
            if sql[start + 1 : end].strip():
                current = next(pick_iter)
            out.append(current)
            last = end + 1
        out.append(sql[last:])
        results.append("".join(out))
    return results


def gold_is_ordered(gold_sql: str, *, dialect: str = "postgres") -> bool:
    """True when the (first) gold query sorts its final result: a top-level ORDER BY.

    An ORDER BY inside a subquery or CTE does not order the output, so a regex is not enough;
    sqlglot tells the levels apart. SQL sqlglot cannot parse falls back to a paren-depth scan.
    """
    alternatives = expand_gold_alternatives(gold_sql)
    if not alternatives:
        return False
    query = alternatives[0]
    try:
        tree = sqlglot.parse_one(query, read=dialect)
    except sqlglot.errors.SqlglotError:
        return _top_level_order_by(query)
    while isinstance(tree, exp.Subquery) and not tree.args.get("order"):
        tree = tree.this
    return bool(tree.args.get("order"))


def _top_level_order_by(sql: str) -> bool:
    depth, code = 0, []
    for i in code_positions(sql):
        ch = sql[i]
        depth += ch == "("
        depth -= ch == ")"
        code.append(ch if depth == 0 or ch == ")" else " ")
    return re.search(r"\border\s+by\b", "".join(code), re.IGNORECASE) is not None


def question_asks_for_order(question: str) -> bool:
    """Whether the wording asks for a sorted answer ("top 5", "sorted by", "높은 순으로", "상위")."""
    return _ORDER_CUE.search(question) is not None


# ---------------------------------------------------------------- values


def normalize_value(value: Any) -> Any:
    """Map driver- and engine-specific values onto one comparable form."""
    if value is None:
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, Decimal):
        if value.is_nan():
            return None
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, datetime):
        if value.tzinfo is None and value.time() == time(0):
            return value.date().isoformat()
        return value.isoformat(sep=" ")
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, memoryview | bytearray):
        return bytes(value)
    if isinstance(value, str | bytes):
        return value
    return str(value)


def _sort_key(value: Any) -> tuple[int, Any]:
    if value is None:
        return (0, 0)
    if isinstance(value, int | float):
        return (1, value)
    if isinstance(value, str):
        return (2, value)
    return (3, value) if isinstance(value, bytes) else (4, repr(value))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, int | float) and isinstance(b, int | float):
            return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)
        return False
    return bool(a == b) and type(a) is type(b)


def _rows_key(row: tuple[Any, ...]) -> tuple[tuple[int, Any], ...]:
    return tuple(_sort_key(v) for v in row)


def _same_row(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))


def _same_rows(gold: list[tuple[Any, ...]], pred: list[tuple[Any, ...]], ordered: bool) -> bool:
    if len(gold) != len(pred):
        return False
    if ordered:
        return all(_same_row(g, p) for g, p in zip(gold, pred, strict=True))
    g_sorted, p_sorted = sorted(gold, key=_rows_key), sorted(pred, key=_rows_key)
    if all(_same_row(g, p) for g, p in zip(g_sorted, p_sorted, strict=True)):
        return True
    has_float = any(isinstance(v, float) for row in (*gold, *pred) for v in row)
    return has_float and len(gold) <= _GREEDY_LIMIT and _greedy_pairing(g_sorted, p_sorted)


def _greedy_pairing(gold: list[tuple[Any, ...]], pred: list[tuple[Any, ...]]) -> bool:
    """Pair rows one by one; needed when float noise sorts near-equal rows differently."""
    unused = list(pred)
    for row in gold:
        hit = next((k for k, cand in enumerate(unused) if _same_row(row, cand)), None)
        if hit is None:
            return False
        unused.pop(hit)
    return True


# ---------------------------------------------------------------- results


def results_match(gold: QueryRows, pred: QueryRows, *, ordered: bool, question: str | None = None) -> bool:
    """Whether ``pred`` answers the question as well as ``gold`` does (see the module docstring)."""
    gold_rows = [tuple(normalize_value(v) for v in row) for row in gold]
    pred_rows = [tuple(normalize_value(v) for v in row) for row in pred]
    if not gold_rows or not pred_rows:
        return not gold_rows and not pred_rows
    if len(gold_rows) != len(pred_rows):
        return False
    g_width, p_width = len(gold_rows[0]), len(pred_rows[0])
    if p_width < g_width:
        return False
    order_matters = ordered and (question is None or question_asks_for_order(question))
    if p_width == g_width and _same_rows(gold_rows, pred_rows, order_matters):
        return True
    gold_cols = [tuple(sorted((r[j] for r in gold_rows), key=_sort_key)) for j in range(g_width)]
    pred_cols = [tuple(sorted((r[k] for r in pred_rows), key=_sort_key)) for k in range(p_width)]
    candidates = [[k for k in range(p_width) if _same_row(col, pred_cols[k])] for col in gold_cols]
    for tried, mapping in enumerate(_assignments(candidates)):
        if tried >= _MAX_ASSIGNMENTS:
            break
        projected = [tuple(row[k] for k in mapping) for row in pred_rows]
        if _same_rows(gold_rows, projected, order_matters):
            return True
    return False


def _assignments(candidates: list[list[int]], taken: tuple[int, ...] = ()) -> Iterator[tuple[int, ...]]:
    """Injective choices of one predicted column per gold column, depth first."""
    if len(taken) == len(candidates):
        yield taken
        return
    for k in candidates[len(taken)]:
        if k not in taken:
            yield from _assignments(candidates, (*taken, k))


def matches_gold(
    gold_sql: str,
    pred: QueryRows,
    run_gold: Callable[[str], QueryRows],
    *,
    question: str | None = None,
    dialect: str = "postgres",
) -> bool:
    """Execution accuracy for one prediction: run each expanded gold and accept any match.

    A gold alternative that fails to run is skipped; if every one fails the last error is raised,
    because then the gold (or the database) is broken, not the prediction.
    """
    failure: Exception | None = None
    ran_any = False
    for alternative in expand_gold_alternatives(gold_sql):
        try:
            gold_rows = run_gold(alternative)
        except Exception as exc:  # a broken alternative must not hide a working one
            failure = exc
            continue
        ran_any = True
        ordered = gold_is_ordered(alternative, dialect=dialect)
        if results_match(gold_rows, pred, ordered=ordered, question=question):
            return True
    if failure is not None and not ran_any:
        raise failure
    return False
