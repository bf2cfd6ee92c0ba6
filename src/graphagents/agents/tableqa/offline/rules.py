"""Question patterns the offline planner answers, each as real Retrieve/Operate steps.

Supported: counts with value and number filters, sums and averages, largest/smallest values,
the row with the largest/smallest value (and another of its attributes: "..., and what is its
budget?"), lookups of one attribute of one row, "A or B" choices, and differences between two
rows; over one table or two tables joined on a detected key. Anything else, and any question
word the pattern does not account for, is a decline with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import pandas as pd

from .linking import (
    ABBREVIATIONS,
    ADJECTIVE_COLUMNS,
    STOP,
    ColumnLink,
    ValueLink,
    is_number_column,
    link_columns,
    link_values,
    norm,
    numberish,
    to_number_code,
    tokens,
)

__all__ = ["Decline", "Plan", "Planned", "plan_question"]

MAX_WORDS = 28
_MAX = r"most|highest|largest|biggest|greatest|maximum|max|top|longest|tallest|heaviest|oldest|busiest|best"
_MIN = r"least|lowest|smallest|fewest|minimum|min|shortest|lightest|youngest|worst"
_MORE = r"more|higher|larger|greater|bigger|taller|longer|heavier|older"
_LESS = r"less|fewer|lower|smaller|shorter|lighter|younger"
_COMPARE = {
    "at least": ">=", "no less than": ">=", "more than": ">", "over": ">", "greater than": ">",
    "above": ">", "at most": "<=", "no more than": "<=", "less than": "<", "fewer than": "<",
    "under": "<", "below": "<", "after": ">", "before": "<", "older than": ">", "younger than": "<",
    "higher than": ">", "lower than": "<", "larger than": ">", "smaller than": "<",
}  # fmt: skip
_OP_WORDS = set(
    [
        "how", "many", "much", "number", "count", "total", "sum", "combined", "average", "mean", "difference", "than",
        "more", "less", "fewer", "higher", "lower", "larger", "smaller", "greater", "most", "least", "highest",
        "lowest", "largest", "smallest", "biggest", "fewest", "maximum", "minimum", "max", "min", "top", "longest",
        "shortest", "tallest", "heaviest", "oldest", "youngest", "busiest", "best", "worst", "lightest", "at", "over",
        "under", "above", "below", "after", "before", "no", "greater", "amount", "value", "values", "there",
        "represented", "had", "has", "have", "got", "received", "scored", "won", "earned", "taller", "longer",
        "heavier", "older", "younger", "bigger",
    ]
)


@dataclass(frozen=True)
class Planned:
    kind: Literal["Retrieve", "Operate"]
    instruction: str
    code: str
    thought: str = ""


@dataclass(frozen=True)
class Plan:
    steps: tuple[Planned, ...]
    many: bool = False  # the answer may be several values
    source: tuple[str, ...] = field(default=())
    table_answer: bool = False  # the answer is the last table itself (Finish[df]): one row per group
    rows: int | None = None  # top-k: exactly this many rows, or the answer would hide a tie


@dataclass(frozen=True)
class Decline:
    reason: str


class _Context:
    def __init__(self, question: str, names: Sequence[str], frames: Sequence[pd.DataFrame]) -> None:
        self.question = question
        self.text = norm(question)
        self.toks = tokens(question)
        self.names = list(names)
        self.frames = list(frames)
        compared = {len(self.text[: m.end(1)].split()) - 1 for phrase in _COMPARE
                     for m in re.finditer(rf"\b{phrase} ([\d,]+(?:\.\d+)?)\b", self.text)}
        # "before 2011" compares; it does not name the cell 2011
        self.values = [v for v in link_values(self.toks, frames)
                       if v.start not in compared and str(v.value).strip().lower().rstrip("*:") not in _TOTAL_WORDS]
        self.columns = link_columns(self.toks, frames, question)
        self.values += self._number_cells(compared)
        self.covered: set[int] = set()
        for v in self.values:
            self.covered.update(v.span)
        for c in self.columns:  # "the DEV department", "order O-108": the word names the value's column
            if any(v.table == c.table and v.column == c.column for v in self.values):
                self.covered.update(c.positions)
        self.row_nouns = self._row_nouns()

    def _number_cells(self, compared: set[int]) -> list[ValueLink]:
        """"floor 7", "season 2004": a number right after the name of a number column that holds
        it is that cell (an equality filter), when exactly one such column does."""
        out = []
        taken = {i for v in self.values for i in v.span}
        for i in range(1, len(self.toks)):
            word = self.toks[i]
            if i in compared or i in taken or not re.fullmatch(r"\d+(?:\.\d+)?", word):
                continue
            number = float(word)
            hits = []
            for c in self.columns:
                if not c.numeric or i - 1 not in c.positions:
                    continue
                series = pd.to_numeric(self.frames[c.table][c.column], errors="coerce")
                if (series == number).any():
                    hits.append(c)
            if len(hits) == 1:
                value = int(number) if number.is_integer() else number
                out.append(ValueLink(hits[0].table, hits[0].column, value, i, i + 1))
                taken.add(i)
        return out

    def _row_nouns(self) -> dict[int, int]:
        """Question words that name the rows of one table (position -> table): the table's own name
        ("orders"), a generic row word ("rows", "records") when there is one table, and a person
        word ("employees", "staff", "people") for the one table that lists people."""
        out: dict[int, int] = {}
        people = [t for t, f in enumerate(self.frames) if _lists_people(self.names[t], f)]
        for i, w in enumerate(self.toks):
            named = [t for t in range(len(self.frames)) if w in tokens(self.names[t])]
            if len(named) == 1:
                out[i] = named[0]
            elif w in ROW_NOUNS and len(self.frames) == 1:
                out[i] = 0
            elif w in PEOPLE_NOUNS and len(people) == 1:
                out[i] = people[0]
        return out

    def row_noun_values(self) -> str:
        """A word that names a table's rows and is also a cell ("staff" for a table named staff
        with a grade "Staff"): counting the table and filtering on the cell are both readings, so
        the question is declined with both (empty when there is no such word)."""
        for v in self.values:
            for i in v.span:
                if i in self.row_nouns and len(v.span) == 1:
                    t = self.row_nouns[i]
                    return (f"{self.toks[i]!r} names both the rows of {self.names[t]!r} and the value "
                            f"{str(v.value)!r} of its column {v.column!r}; I do not pick one without a model.")
        return ""

    def counted_table(self, head: str) -> int | None:
        """The table whose rows ``head`` (the noun after "how many") names, if one does."""
        for i, w in enumerate(self.toks):
            if w == head and i in self.row_nouns:
                return self.row_nouns[i]
        return None

    def has(self, pattern: str) -> bool:
        return re.search(rf"\b(?:{pattern})\b", self.text) is not None

    def cover_column(self, link: ColumnLink) -> None:
        self.covered.update(link.positions)

    def unexplained(self) -> list[str]:
        return [w for i, w in enumerate(self.toks) if i not in self.covered and w not in STOP and w not in _OP_WORDS
                and w not in NEUTRAL_WORDS and not (i in self.row_nouns and w in ROW_NOUNS | PEOPLE_NOUNS)]


ROW_NOUNS = frozenset({"row", "record", "entry", "item", "line"})
PEOPLE_NOUNS = frozenset({"employee", "staff", "people", "person", "member", "worker", "personnel", "staffer"})
# verbs and nouns that say how rows relate without changing what is computed ("works in", "listed")
NEUTRAL_WORDS = frozenset({"work", "works", "worked", "working", "belong", "belongs", "belonged", "employed",
                           "located", "based", "registered", "recorded", "currently", "altogether", "overall",
                           "everyone", "everybody", "total", "members"})


def _lists_people(name: str, frame: pd.DataFrame) -> bool:
    """A table of people: its name says so, or it has a column of names and none of the other
    tables' markers (an orders table with a customer name is still about orders)."""
    words = set(tokens(name)) | {ABBREVIATIONS.get(w, w) for w in tokens(name)}
    if words & (PEOPLE_NOUNS | {"user", "customer", "student", "player", "people", "hr", "emp"}):
        return True
    columns = {ABBREVIATIONS.get(w, w) for c in frame.columns for w in tokens(c)}
    return "name" in columns and bool(columns & _PERSON_COLUMNS) and not columns & {
        "order", "product", "price", "amount", "quantity", "budget"}


# columns that only a table of people has beside its names
_PERSON_COLUMNS = frozenset({"age", "gender", "sex", "salary", "bonus", "grade", "birth", "born", "email", "phone",
                             "hire", "hired", "joined", "height", "weight", "nationality", "position", "wage"})


def plan_question(question: str, names: Sequence[str], frames: Sequence[pd.DataFrame], *,
                  restated: bool = False) -> Plan | Decline:
    """The plan for ``question``; ``restated`` = a Korean question already put in these patterns'
    English by :mod:`.korean` (its table names and cells may still be Korean)."""
    if not question.strip():
        return Decline("질문이 비어 있습니다 (empty question).")
    if re.search(r"[가-힣]", question) and not restated:  # Korean is restated first (.korean)
        return Decline("모델 없이는 이 한국어 질문을 답하지 않습니다 (offline: this Korean question needs a model).")
    if len(question.split()) > MAX_WORDS:
        return Decline("The question is too long for the offline planner; it needs a model.")
    ctx = _Context(question, names, frames)
    clash = ctx.row_noun_values()
    if clash:
        return Decline(clash)
    for rule in (_top_k, _group_by, _choice, _difference, _count, _aggregate, _superlative, _lookup):
        result = rule(ctx)
        if result is None:
            continue
        if isinstance(result, Decline):
            return result
        left = ctx.unexplained()
        if left:
            words = ", ".join(repr(w) for w in dict.fromkeys(left))
            return Decline(f"Without a model I cannot account for {words} in this question, so I do not answer it.")
        return result
    left = list(dict.fromkeys(ctx.unexplained()))
    unlinked = f"I could not link {', '.join(repr(w) for w in left[:4])} to a table, column or value. " if left else ""
    return Decline(f"{unlinked}This question needs a model: the offline planner answers counts, sums, averages, "
                   "top-k, largest/smallest, lookups and A-or-B comparisons.")


# helpers -------------------------------------------------------------------------------------
def _var(t: int) -> str:
    return f"df_orig_{t + 1}"


def _years(series: pd.Series) -> bool:
    """A number column that holds years (whole numbers from 1000 to 2100)."""
    if not pd.api.types.is_numeric_dtype(series):
        return False
    values = series.dropna()
    return len(values) > 0 and bool(((values % 1 == 0) & (values >= 1000) & (values <= 2100)).all())


def _filter_expr(frame: str, link: ValueLink) -> str:
    return f"({frame}[{link.column!r}] == {link.value!r})"


def _numeric_filters(ctx: _Context, exclude: set[str]) -> list[tuple[ColumnLink, str, float]] | Decline:
    out = []
    for phrase, op in _COMPARE.items():
        for m in re.finditer(rf"\b{phrase} ([\d,]+(?:\.\d+)?)\b", ctx.text):
            number = float(m.group(1).replace(",", ""))
            position = len(ctx.text[: m.start()].split())
            candidates = [c for c in ctx.columns if c.numeric and c.column not in exclude]
            if phrase in ("before", "after"):
                candidates = [c for c in candidates if set(tokens(c.column)) & {"year", "season", "date"}
                              or _years(ctx.frames[c.table][c.column])]
            if not candidates:
                return Decline(f"I cannot tell which column {phrase!r} {m.group(1)} refers to without a model.")
            near = min(candidates, key=lambda c: min(abs(p - position) for p in c.positions))
            ctx.cover_column(near)
            ctx.covered.update(range(position, position + len(phrase.split()) + 1))
            out.append((near, op, number))
    return out


_TOTAL_WORDS = ["total", "totals", "career", "overall", "grand total", "all", "sum", "average"]
SUMMARY_ROW = r"^(?:total|totals|career|overall|grand total|all|sum|average)[*:]?$|^(?:remainder|rest) of\b"


def summary_rows(frame: pd.DataFrame) -> pd.Series:
    """Rows that summarise the others ("Total", "Career", "Remainder of ..."): same rule as the code."""
    text = frame.select_dtypes(exclude="number").astype(str)
    if text.empty:
        return pd.Series(False, index=frame.index)
    return text.apply(lambda c: c.str.strip().str.lower().str.contains(SUMMARY_ROW, regex=True)).any(axis=1)


def _conversions(frame: pd.DataFrame, var: str) -> list[str]:
    return [f"{var} = {var}.assign(**{{{str(c)!r}: {to_number_code(var, str(c))}}})"
            for c in frame.columns if numberish(frame[c])]


def _base(ctx: _Context, t: int) -> tuple[list[Planned], str]:
    """The table to work on: the original, or its rows without summary rows ("Total", "Career")
    and with numbers stored as text ("1,200", "₩3,000", "-") read as numbers."""
    totals = bool(summary_rows(ctx.frames[t]).any())
    conversions = _conversions(ctx.frames[t], "table")
    if not totals and not conversions:
        return [], _var(t)
    lines = [f"table = {_var(t)}"]
    if totals:
        lines += ["text = table.select_dtypes(exclude='number').astype(str)",
                  f"is_total = text.apply(lambda c: c.str.strip().str.lower().str.contains({SUMMARY_ROW!r}))"
                  ".any(axis=1)", "table = table[~is_total]"]
    lines += [*conversions, "new_table = table"]
    what = ", ".join(x for x in ("that are not totals" if totals else "",
                                 "with numbers written as text read as numbers" if conversions else "") if x)
    step = Planned("Retrieve", f"the rows of {ctx.names[t]} {what}", "\n".join(lines),
                   "Leave out summary rows (Total) and read numbers written as text.")
    return [step], "df"


def _one_table(ctx: _Context, tables: set[int]) -> tuple[list[Planned], str, dict[int, str]] | Decline:
    """Steps that give one working table holding ``tables``: the table without summary rows, or a
    join on a detected key."""
    if len(tables) <= 1:
        t = next(iter(tables), 0)
        steps, frame = _base(ctx, t)
        return steps, frame, {t: ""}
    if len(tables) > 2:
        return Decline("The question spans more than two tables; that needs a model.")
    a, b = sorted(tables)
    key = _join_key(ctx.frames[a], ctx.frames[b])
    if key is None:
        return Decline(f"I found no key to join {ctx.names[a]!r} and {ctx.names[b]!r} without a model.")
    left, right = key
    code = f"new_table = {_var(a)}.merge({_var(b)}, left_on={left!r}, right_on={right!r}, suffixes=('', '_2'))"
    conversions = _conversions(_joined_sample(ctx.frames[a], ctx.frames[b], left, right), "new_table")
    if conversions:
        code += "\n" + "\n".join(conversions)
    step = Planned("Retrieve", f"join {ctx.names[a]} and {ctx.names[b]} on {left} = {right}", code,
                   f"The question needs columns of {ctx.names[a]} and {ctx.names[b]}.")
    return [step], "df", {a: "", b: "_2"}


def _joined_sample(a: pd.DataFrame, b: pd.DataFrame, left: str, right: str) -> pd.DataFrame:
    """The join's columns (as the code will name them) with the cells of both sides, to find the
    columns that hold numbers as text."""
    return a.merge(b, left_on=left, right_on=right, suffixes=("", "_2"))


def _join_key(a: pd.DataFrame, b: pd.DataFrame) -> tuple[str, str] | None:
    best: tuple[float, str, str] | None = None
    for ca in a.columns:
        for cb in b.columns:
            if tokens(ca) != tokens(cb) and not (set(tokens(ca)) & set(tokens(cb)) & {"id", "code", "key"}):
                continue
            va, vb = set(a[ca].dropna().astype(str)), set(b[cb].dropna().astype(str))
            if not va or not vb:
                continue
            overlap = len(va & vb) / min(len(va), len(vb))
            if overlap >= 0.5 and (best is None or overlap > best[0]):
                best = (overlap, str(ca), str(cb))
    return None if best is None else (best[1], best[2])


def _col(name: str, t: int, suffixes: dict[int, str], frames: Sequence[pd.DataFrame], other: int | None) -> str:
    """A column's name in the working table (a joined right-hand column may carry a suffix)."""
    suffix = suffixes.get(t, "")
    if suffix and other is not None and name in frames[other].columns:
        return name + suffix
    return name


def _answer_column(ctx: _Context, exclude: set[str], preferred: int | None = None) -> ColumnLink | str | None:
    """The entity column a which/who question asks for: the column its noun names ("which team"),
    a text column the who-question names ("who is the youngest player"), or a name-like column of
    the table the noun names ("which department")."""
    m = re.search(r"\b(which|what)\s+(\w+)", ctx.text)
    noun = tokens(m.group(2))[0] if m else ""
    text_links = [c for c in sorted(ctx.columns, key=lambda c: -c.score)
                  if not c.numeric and c.column not in exclude and (preferred is None or c.table == preferred)]
    for link in text_links:
        if noun and noun in tokens(link.column):
            return link
    if ctx.has("who") and len(text_links) == 1:
        return text_links[0]
    tables = range(len(ctx.frames)) if preferred is None else [preferred]
    for t in tables:
        if (noun and noun in tokens(ctx.names[t])) or ctx.has("who"):
            for column in ctx.frames[t].columns:
                if set(tokens(column)) & {"name", "title", "player", "team", "country", "nation"}:
                    if noun and noun in tokens(ctx.names[t]):  # "which department": the table's own rows
                        ctx.covered.update(i for i, w in enumerate(ctx.toks) if w == noun)
                    return f"{t}:{column}"
    return None


# rules ---------------------------------------------------------------------------------------
def _lists_in_one_row(ctx: _Context, head: str) -> bool:
    """The value filters (one table) pick out a single row, and the column ``head`` names holds a
    list there ("Metro Local: 156, 230, 656"): the question counts inside a cell, not rows."""
    tables = {v.table for v in ctx.values}
    if len(tables) != 1:
        return False
    frame = ctx.frames[next(iter(tables))]
    mask = pd.Series(True, index=frame.index)
    for v in ctx.values:
        mask &= frame[v.column] == v.value
    if int(mask.sum()) != 1:
        return False
    cells = [str(frame.loc[mask, c].iloc[0]) for c in frame.columns if head in tokens(c)]
    return any(re.search(r"[,;\n/]|\d", cell) for cell in cells)


def _count_all(ctx: _Context, head: str, counted: int | None) -> Plan | Decline:
    """"How many employees are there?": every row of the table the noun names (a people word for
    the one table of people, a row word for the only table), or the distinct values of the one
    text column the noun names ("how many nations are listed?")."""
    if counted is not None:
        ctx.covered.update(i for i, w in enumerate(ctx.toks) if w == head)
        steps, frame = _base(ctx, counted)
        steps.append(Planned("Operate" if steps else "Retrieve", f"count the rows of {ctx.names[counted]}",
                             f"new_table = len({frame})", f"Count the rows of {ctx.names[counted]}."))
        return Plan(tuple(steps))
    named = [c for c in ctx.columns if not c.numeric and head and head in tokens(c.column)]
    if len(ctx.frames) == 1 and len(named) == 1:
        link = named[0]
        ctx.cover_column(link)
        steps, frame = _base(ctx, link.table)
        steps.append(Planned("Operate" if steps else "Retrieve", f"count the different {link.column}",
                             f"new_table = {frame}[{link.column!r}].nunique()", f"Count the different {link.column}."))
        return Plan(tuple(steps))
    return Decline(f"I cannot tell what to count without a model: {head!r} names no table, and no value of the "
                   "table is named." if head else "I would have to guess what to count without a model.")


def _count(ctx: _Context) -> Plan | Decline | None:
    if not ctx.has("how many|number of") or ctx.has("how many more|how many less|how many fewer"):
        return None
    numeric_target = [c for c in ctx.columns if c.numeric and c.score == 1.0]
    m = re.search(r"\bhow many (\w+)|\bnumber of (\w+)", ctx.text)
    head = tokens(m.group(1) or m.group(2))[0] if m else ""
    if any(head in tokens(c.column) for c in numeric_target):
        return None  # "how many laps did X run": a lookup of a number, not a count of rows
    if ctx.has("number of") and not ctx.has("how many") and numeric_target:
        return None  # "what number of gold medals did X win": the Gold number, not a count of rows
    entity = {w for t, frame in enumerate(ctx.frames) for w in [*tokens(ctx.names[t]),
              *(x for c in frame.columns if not is_number_column(frame, c) for x in tokens(c))]}
    if head in entity:  # "how many nations": the rows being counted
        ctx.covered.update(i for i, w in enumerate(ctx.toks) if w == head)
    numbers = _numeric_filters(ctx, set())
    if isinstance(numbers, Decline):
        return numbers
    counted = ctx.counted_table(head) if head else None
    if not ctx.values and not numbers:
        return _count_all(ctx, head, counted)
    if counted is None and head and not numbers and _lists_in_one_row(ctx, head):
        # "the number of connections reseda has": one row's cell lists them; counting rows says 1
        return Decline(f"The question names one row; how many {head!r} it has is inside its cells, and counting "
                       "that needs a model.")
    tables = {v.table for v in ctx.values} | {c.table for c, _, _ in numbers}
    if counted is not None:
        tables.add(counted)  # "how many players are in seoul": count players, joined to where Seoul is
        ctx.covered.update(i for i, w in enumerate(ctx.toks) if w == head)
    prefix = _one_table(ctx, tables)
    if isinstance(prefix, Decline):
        return prefix
    steps, frame, suffixes = prefix
    other = next(iter(set(suffixes) - {min(tables) if tables else 0}), None)
    conditions = [_filter_expr(frame, v) for v in ctx.values]
    conditions += [f"({frame}[{_col(c.column, c.table, suffixes, ctx.frames, other)!r}] {op} {n!r})"
                   for c, op, n in numbers]
    words = ", ".join(f"{v.column} = {v.value}" for v in ctx.values) or ", ".join(
        f"{c.column} {op} {n:g}" for c, op, n in numbers)
    steps.append(Planned("Retrieve", f"rows where {words}", f"new_table = {frame}[{' & '.join(conditions)}]",
                         "Find the rows the question counts."))
    steps.append(Planned("Operate", "count the rows of df", "new_table = len(df)", "Count them."))
    return Plan(tuple(steps))


_GROUP = re.compile(r"\b(?:in|for|by|per|of|from|does|do|did|has|have) each ((?:\w+ ){0,2}?\w+?)"
                    r"(?: (?:who|that|which|with|and|in|of|have|has|had|get|gets|got)\b.*)?$"
                    r"|\b(?:by|per) ((?:\w+ )?\w+)$|\bfor every ((?:\w+ )?\w+)$")


def _group_columns(ctx: _Context, phrase: list[str]) -> list[tuple[int, str]]:
    """Columns a group phrase names: the same words, an abbreviation ("department" -> dept), or
    "<noun> name" / "<noun> code" for a one-word phrase."""
    out = []
    for t, frame in enumerate(ctx.frames):
        for c in frame.columns:
            words = [ABBREVIATIONS.get(w, w) for w in tokens(c)]
            if words == phrase or (len(phrase) == 1 and words in ([phrase[0], "name"], [phrase[0], "code"],
                                                                    [phrase[0], "id"])):
                out.append((t, str(c)))
    return out


def _group_by(ctx: _Context) -> Plan | Decline | None:
    """"how many rivers are in each country", "average length of rivers in each country", "total
    population by country", "how many employees does each department have": one row per group,
    counted / summed / averaged, from one table that holds both the group column and what is
    counted or measured."""
    m = _GROUP.search(ctx.text)
    if m is None:
        return None
    raw = m.group(1) or m.group(2) or m.group(3)
    phrase = [ABBREVIATIONS.get(w, w) for w in tokens(raw)]
    func = ("size" if ctx.has("how many|number of|count") else "sum" if ctx.has("total|sum") else
            "mean" if ctx.has("average|mean") else None)
    if func is None:
        return Decline("I can count, sum or average per group without a model, not this.")
    groups = _group_columns(ctx, phrase)
    if not groups and len(phrase) > 1:  # "each department have" -> "department"
        groups = _group_columns(ctx, phrase[:1])
        phrase = phrase[:1] if groups else phrase
    if not groups:
        return Decline(f"I found no column for 'each {' '.join(phrase)}' without a model.")
    start = len(ctx.text[: m.start(m.lastindex or 1)].split())
    ctx.covered.update(range(max(0, start - 2), start + len(phrase)))  # "in each country" / "by country"
    head_m = re.search(r"\b(?:how many|number of|count(?: of)?(?: the)?) (\w+)", ctx.text)
    if func == "size":
        head = tokens(head_m.group(1))[0] if head_m else ""
        counted = ctx.counted_table(head) if head else None
        candidates = [(t, c) for t, c in groups if counted is not None and t == counted]
        if len(candidates) != 1 or ctx.values:
            return Decline("I cannot tell which rows to count per group without a model.")
        t, column = candidates[0]
        ctx.covered.update(i for i, w in enumerate(ctx.toks) if w == head)
        steps, frame = _base(ctx, t)
        code = f"new_table = {frame}.groupby({column!r}, dropna=False).size().reset_index(name='count')"
        what = f"count the rows of {ctx.names[t]} per {column}"
    else:
        measures = [c for c in ctx.columns if c.numeric and c.score == 1.0 and (c.table, c.column) not in groups]
        if len({(c.table, c.column) for c in measures}) != 1 or ctx.values:
            return Decline(f"I cannot tell which column to {func} per group without a model.")
        measure = measures[0]
        ctx.cover_column(measure)
        candidates = [(t, c) for t, c in groups if t == measure.table]
        if len(candidates) != 1:
            return Decline("The group and the measured column are in different tables; that needs a model.")
        t, column = candidates[0]
        for i, w in enumerate(ctx.toks):  # "of rivers", "in cities": the measured table's own name
            if w in tokens(ctx.names[t]) or ctx.row_nouns.get(i) == t:
                ctx.covered.add(i)
        steps, frame = _base(ctx, t)
        code = (f"new_table = {frame}.groupby({column!r}, dropna=False)[{measure.column!r}]"
                f".{func}().reset_index()")
        what = f"{func} of {measure.column} per {column}"
    steps.append(Planned("Operate" if steps else "Retrieve", what, code, "One row per group."))
    return Plan(tuple(steps), many=True, table_answer=True)


def _aggregate(ctx: _Context) -> Plan | Decline | None:
    func = "sum" if ctx.has("total|sum|combined") else "mean" if ctx.has("average|mean") else None
    if func is None:
        return None
    targets = [c for c in ctx.columns if c.numeric]
    if len(targets) != 1:
        return Decline(f"I cannot tell which column to {func} without a model.")
    target = targets[0]
    ctx.cover_column(target)
    tables = {target.table} | {v.table for v in ctx.values}
    prefix = _one_table(ctx, tables)
    if isinstance(prefix, Decline):
        return prefix
    steps, frame, _ = prefix
    if ctx.values:
        conditions = " & ".join(_filter_expr(frame, v) for v in ctx.values)
        steps.append(Planned("Retrieve", "rows where " + ", ".join(f"{v.column} = {v.value}" for v in ctx.values),
                             f"new_table = {frame}[{conditions}]", "Keep the rows the question is about."))
        frame = "df"
    steps.append(Planned("Operate", f"{func} of {target.column}", f"new_table = {frame}[{target.column!r}].{func}()",
                         f"Take the {func} of {target.column}."))
    return Plan(tuple(steps))


_TOP = [
    re.compile(r"\b(top|bottom|first|last) (\d{1,3})\b"),
    re.compile(rf"\b(\d{{1,3}}) ({_MAX}|{_MIN})\b"),
    re.compile(rf"(?<!\bat )(?<!\bno )\b({_MAX}|{_MIN}) (\d{{1,3}})\b"),  # not "at least 3"
    re.compile(rf"\b(\d{{1,3}}) \w+ (?:with|having|by) the ({_MAX}|{_MIN})\b"),
]


def _top_k(ctx: _Context) -> Plan | Decline | None:
    """"who are the top 3 earners by salary", "list the 2 employees with the smallest bonus", "what
    are the 3 largest amounts": the k rows with the largest (smallest) number, and the names of
    their entity or the numbers themselves; a tie at the k-th row is a decline."""
    m = next((found for pattern in _TOP if (found := pattern.search(ctx.text))), None)
    if m is None:
        return None
    k = int(next(g for g in m.groups() if g.isdigit()))
    word = next(g for g in m.groups() if not g.isdigit()).lower()
    if k < 1:
        return Decline("I can list the top 1 or more rows, not 0.")
    if word in ("first", "last"):
        return Decline("'first/last N' depends on the table's order; that needs a model.")
    smallest = word == "bottom" or re.fullmatch(_MIN, word) is not None
    number_at = len(ctx.text[: m.start()].split())
    ctx.covered.update(i for i in range(number_at, len(ctx.text[: m.end()].split()))
                       if ctx.toks[i] in (str(k), word) or ctx.toks[i] in ("the", "with", "having", "by"))
    targets = [c for c in ctx.columns if c.numeric and ("id" not in tokens(c.column) or "id" in ctx.toks)]
    if len({(c.table, c.column) for c in targets}) != 1:
        return Decline("I cannot tell which number ranks the rows without a model.")
    target = targets[0]
    ctx.cover_column(target)
    for i, w in enumerate(ctx.toks):  # "earners by salary": the ranked column's "by"
        if w in ("earner", "by") or ctx.row_nouns.get(i) == target.table:
            ctx.covered.add(i)
    steps, frame = _base(ctx, target.table)
    if ctx.values:
        if any(v.table != target.table for v in ctx.values):
            return Decline("Filters and the ranked column are in different tables; that needs a model.")
        conditions = " & ".join(_filter_expr(frame, v) for v in ctx.values)
        steps.append(Planned("Retrieve" if not steps else "Operate",
                             "rows where " + ", ".join(f"{v.column} = {v.value}" for v in ctx.values),
                             f"new_table = {frame}[{conditions}]", "Keep the rows the question is about."))
        frame = "df"
    method = "nsmallest" if smallest else "nlargest"
    size = "smallest" if smallest else "largest"
    steps.append(Planned("Operate" if steps else "Retrieve", f"the {k} rows with the {size} {target.column}",
                         f"new_table = {frame}.{method}({k}, {target.column!r}, keep='all')",
                         f"Rank by {target.column} and keep {k}."))
    # "top 3 earners", "2 employees with the ...": the word after the count names rows, not numbers
    after = number_at + 1 if m.re is _TOP[3] else len(ctx.text[: m.end()].split())
    rows_noun = after < len(ctx.toks) and (ctx.toks[after] == "earner" or ctx.row_nouns.get(after) == target.table)
    wants_entity = ctx.has("which|who|whom") or (rows_noun and after + 1 not in target.positions)
    noun_m = re.search(r"\b(?:which|what) (\w+)", ctx.text)
    noun = tokens(noun_m.group(1))[0] if noun_m and tokens(noun_m.group(1)) else ""
    named = [c for c in ctx.columns if not c.numeric and c.table == target.table and noun in tokens(c.column)]
    if wants_entity and len(named) == 1:  # "which city are the top 2 by population": the city column
        ctx.cover_column(named[0])
        column: str | None = named[0].column
    elif wants_entity:
        column = _name_column(ctx.frames[target.table])
    else:
        column = target.column
    if column is None:
        return Decline("I cannot tell which column names the rows without a model.")
    keep = column
    steps.append(Planned("Operate", f"keep {keep}", f"new_table = df[[{keep!r}]]", "Read the answer."))
    return Plan(tuple(steps), many=True, rows=k)


def _name_column(frame: pd.DataFrame) -> str | None:
    """The one column that names a table's rows: "name", "title", "*_name", "player", "team" ...."""
    named = [str(c) for c in frame.columns if not is_number_column(frame, c)
             and set(tokens(c)) & {"name", "title", "player", "team", "country", "nation", "city"}]
    exact = [c for c in named if tokens(c) == ["name"]]
    return exact[0] if len(exact) == 1 else named[0] if len(named) == 1 else None


def _superlative(ctx: _Context) -> Plan | Decline | None:
    largest = ctx.has(_MAX)
    if not largest and not ctx.has(_MIN):
        return None
    follow = re.search(r"\band what (is|was|are|were) (its|their|his|her) (.+)$", ctx.text)
    first_part = len(ctx.text[: follow.start()].split()) if follow else len(ctx.toks)
    # the ranked number is named before "..., and what is its X?" (X is what is read, not ranked)
    targets = [c for c in ctx.columns if c.numeric and min(c.positions) < first_part
               and ("id" not in tokens(c.column) or "id" in ctx.toks)]  # an id is a key, never what is ranked
    if not targets:
        return Decline("I cannot tell which number decides 'most/least' without a model.")
    sup = next((i for i, w in enumerate(ctx.toks) if w in _SUPERLATIVE_WORDS or w in ADJECTIVE_COLUMNS), 0)
    # the number named at or after the superlative ("the largest budget"), the best-named, the nearest
    target = max(targets, key=lambda c: (max(c.positions) >= sup, c.score, -min(abs(p - sup) for p in c.positions)))
    word = ctx.toks[sup] if sup < len(ctx.toks) else ""
    if word in _MEASURE_ADJECTIVES and not set(tokens(target.column)) & set(ADJECTIVE_COLUMNS[word]):
        return Decline(f"No column measures {word!r} (I looked for {', '.join(ADJECTIVE_COLUMNS[word])}); "
                       "that needs a model.")
    ctx.cover_column(target)
    method = "nlargest" if largest else "nsmallest"
    wants_entity = ctx.has("which|who") or re.search(r"\bwhat (\w+) (has|had|is|was|scored|won)\b", ctx.text)
    extra: list[str] = []
    if follow:
        asked = [c for c in ctx.columns if c.column != target.column and set(c.positions) & set(
            range(len(ctx.text[: follow.start(3)].split()), len(ctx.toks)))]
        if len(asked) != 1:
            return Decline("I cannot tell which attribute the second part asks for without a model.")
        ctx.cover_column(asked[0])
        extra.append(asked[0].column)
    steps, frame = _base(ctx, target.table)
    if ctx.values:
        conditions = " & ".join(_filter_expr(frame, v) for v in ctx.values if v.table == target.table)
        if len({v.table for v in ctx.values} | {target.table}) > 1:
            return Decline("Filters and the ranked column are in different tables; that needs a model.")
        steps.append(Planned("Retrieve", "rows where " + ", ".join(f"{v.column} = {v.value}" for v in ctx.values),
                             f"new_table = {frame}[{conditions}]", "Keep the rows the question is about."))
        frame = "df"
    steps.append(Planned("Operate", f"rows with the {'largest' if largest else 'smallest'} {target.column}",
                         f"new_table = {frame}.{method}(1, {target.column!r}, keep='all')",
                         f"Find the row with the {'largest' if largest else 'smallest'} {target.column}."))
    asked_for = _asked_attribute(ctx, target)
    if isinstance(asked_for, Decline):
        return asked_for
    if asked_for is not None:  # "what is the name with the largest budget": the ranked row's name
        if isinstance(asked_for, ColumnLink):
            ctx.cover_column(asked_for)
        column = asked_for.column if isinstance(asked_for, ColumnLink) else asked_for
        keep = [column, *extra]
        steps.append(Planned("Operate", f"keep {', '.join(keep)}", f"new_table = df[{keep!r}]", "Read the answer."))
        return Plan(tuple(steps))
    if not wants_entity:
        steps.append(Planned("Operate", f"keep {target.column}", f"new_table = df[[{target.column!r}]]",
                             f"The answer is the {target.column} itself."))
        return Plan(tuple(steps))
    answer = _answer_column(ctx, {target.column}, target.table)
    if answer is None:
        return Decline("I cannot tell which column names the answer without a model.")
    if isinstance(answer, ColumnLink):
        ctx.cover_column(answer)
        column = answer.column
    else:
        column = answer.split(":", 1)[1]
    keep = [column, *extra]
    steps.append(Planned("Operate", f"keep {', '.join(keep)}", f"new_table = df[{keep!r}]", "Read the answer."))
    return Plan(tuple(steps))


_SUPERLATIVE_WORDS = set((_MAX + "|" + _MIN).split("|"))
# superlatives that name their own measure ("the oldest department" ranks an age, not a following noun)
_MEASURE_ADJECTIVES = {"oldest", "youngest", "tallest", "heaviest", "lightest", "busiest", "richest"}


def _asked_attribute(ctx: _Context, target: ColumnLink) -> ColumnLink | str | Decline | None:
    """What "what is the X with the largest Y" asks for when X is not Y itself: a column of the
    ranked table named X, or its name-like column for "name"/"title"; a Decline when X is a word
    that names neither (the old rule answered Y's value: 543.2 for "the name with the largest
    budget"); None when X is Y, a superlative, or absent."""
    m = re.search(r"\bwhat (?:is|was|are|were) the (\w+)", ctx.text)
    if m is None:
        return None
    word = tokens(m.group(1))[0] if tokens(m.group(1)) else ""
    if not word or word in _SUPERLATIVE_WORDS or word in tokens(target.column) or word in ("total", "number"):
        return None
    position = len(ctx.text[: m.start(1)].split())
    named = [c for c in ctx.columns
             if c.table == target.table and c.column != target.column and position in c.positions]
    if len(named) == 1:
        return named[0]
    if word in ("name", "title"):
        frame = ctx.frames[target.table]
        like = [str(c) for c in frame.columns if set(tokens(c)) & {"name", "title"}]
        if len(like) == 1:
            return like[0]
    return Decline(f"I cannot tell which column {word!r} means in this question without a model.")


def _lookup(ctx: _Context) -> Plan | Decline | None:
    """One attribute of the row a value names ("what is the bonus of Eve?", "which dept is on
    floor 7?"), in its own table or, through a join on a shared key, in another one ("the budget
    of the department Bob works in"); "which employee made order O-7": the name of the row."""
    if len(ctx.values) != 1 or ctx.has(_NOT_A_LOOKUP):
        return None
    row = ctx.values[0]
    candidates = [c for c in ctx.columns if (c.table, c.column) != (row.table, row.column)]
    other_tables = {c.table for c in candidates if c.table != row.table}
    keys: set[tuple[int, str]] = set()
    if len(other_tables) == 1:
        other_table = next(iter(other_tables))
        key = _join_key(ctx.frames[row.table], ctx.frames[other_table])
        if key is not None:
            keys = {(row.table, key[0]), (other_table, key[1])}
    asked = [c for c in candidates if (c.table, c.column) not in keys]  # the join key is how, not what
    for c in candidates:
        if (c.table, c.column) in keys:  # "the dept Bob works in": the key's own words
            ctx.cover_column(c)
    if len({(c.table, c.column) for c in asked}) == 1:
        asked_table, asked_column = asked[0].table, asked[0].column
        ctx.cover_column(asked[0])
    elif not asked:
        entity = _entity_column(ctx)
        name = _name_column(ctx.frames[row.table]) if re.search(r"\bwhat (?:is|was|are) (?:the|its|their) name\b",
                                                                 ctx.text) else None
        if entity is None and name is None:
            return None
        asked_table, asked_column = entity if entity is not None else (row.table, str(name))
    else:
        return None
    prefix = _one_table(ctx, {row.table, asked_table})
    if isinstance(prefix, Decline):
        return prefix
    steps, frame, suffixes = prefix
    other = next(iter(set(suffixes) - {asked_table}), None)
    column = _col(asked_column, asked_table, suffixes, ctx.frames, other)
    key_column = _col(row.column, row.table, suffixes, ctx.frames, next(iter(set(suffixes) - {row.table}), None))
    first = not steps
    steps.append(Planned("Retrieve" if first else "Operate", f"the row where {row.column} = {row.value}",
                         f"new_table = {frame}[({frame}[{key_column!r}] == {row.value!r})]",
                         "Find the row the question names."))
    steps.append(Planned("Operate", f"keep {asked_column}", f"new_table = df[[{column!r}]]",
                         f"Read its {asked_column}."))
    return Plan(tuple(steps))


# words that make "what X ... <value>" something other than reading the value's row
_NOT_A_LOOKUP = ("before|after|than|above|below|over|under|next|previous|prior|following|preceding|between|"
                 "behind|ahead|total|sum|average|mean|difference|more|less|fewer|most|least|same|other|another|"
                 "first|last|only|besides|except|not|never|without")


def _entity_column(ctx: _Context) -> tuple[int, str] | None:
    """"which employee ...", "who ...": the name column of the table the noun names."""
    m = re.search(r"\b(?:which|what) (\w+)", ctx.text)
    noun = tokens(m.group(1))[0] if m and tokens(m.group(1)) else ""
    positions = [i for i, w in enumerate(ctx.toks) if w == noun and i in ctx.row_nouns]
    if positions:
        t = ctx.row_nouns[positions[0]]
    elif ctx.has("who"):
        people = {t for t in ctx.row_nouns.values() if _lists_people(ctx.names[t], ctx.frames[t])}
        people |= {t for t, f in enumerate(ctx.frames) if _lists_people(ctx.names[t], f)} if not people else set()
        if len(people) != 1:
            return None
        t = next(iter(people))
    else:
        return None
    column = _name_column(ctx.frames[t])
    if column is None:
        return None
    ctx.covered.update(positions)
    return t, column


def _pair(ctx: _Context) -> tuple[ValueLink, ValueLink] | None:
    if len(ctx.values) != 2 or ctx.values[0].column != ctx.values[1].column:
        return None
    return ctx.values[0], ctx.values[1]


def _choice(ctx: _Context) -> Plan | Decline | None:
    pair = _pair(ctx)
    compares = ctx.has(_MORE + "|" + _MAX) or ctx.has(_LESS + "|" + _MIN)
    if pair is None or not re.search(r"\bor\b", ctx.text) or not compares:
        return None
    a, b = pair
    more = ctx.has(_MORE + "|" + _MAX)
    targets = [c for c in ctx.columns if c.numeric and c.table == a.table]
    frame = _var(a.table)
    pick = f"{frame}[{_filter_expr(frame, a)} | {_filter_expr(frame, b)}]"
    if len(targets) == 1:
        ctx.cover_column(targets[0])
        y = targets[0].column
        steps = (
            Planned("Retrieve", f"the rows of {a.value} and {b.value}", f"new_table = {pick}", "Find both."),
            Planned("Operate", f"the one with the {'larger' if more else 'smaller'} {y}",
                    f"new_table = df.{'nlargest' if more else 'nsmallest'}(1, {y!r}, keep='all')[[{a.column!r}]]",
                    f"Compare their {y}."),
        )
        return Plan(steps)
    if targets:
        return Decline("I cannot tell which number to compare without a model.")
    agg = "idxmax" if more else "idxmin"
    steps = (
        Planned("Retrieve", f"the rows of {a.value} and {b.value}", f"new_table = {pick}", "Find both."),
        Planned("Operate", f"which of them has {'more' if more else 'fewer'} rows",
                f"counts = df[{a.column!r}].value_counts()\n"
                f"new_table = counts.{agg}() if counts.nunique() > 1 else None",
                "Compare how often each appears."),
    )
    return Plan(steps)


def _difference(ctx: _Context) -> Plan | Decline | None:
    pair = _pair(ctx)
    if pair is None or not ctx.has("difference|how many more|how much more|how many fewer|how much less"):
        return None
    a, b = pair
    ctx.covered.update(i for i, w in enumerate(ctx.toks) if w == "between")
    targets = [c for c in ctx.columns if c.numeric and c.table == a.table]
    if len(targets) != 1:
        return Decline("I cannot tell which number to subtract without a model.")
    ctx.cover_column(targets[0])
    y, frame = targets[0].column, _var(a.table)
    code = (f"first = {frame}.loc[{_filter_expr(frame, a)}, {y!r}]\n"
            f"second = {frame}.loc[{_filter_expr(frame, b)}, {y!r}]\n"
            f"new_table = abs(first.iloc[0] - second.iloc[0]) if len(first) == 1 and len(second) == 1 else None")
    steps = (Planned("Operate", f"the difference in {y} between {a.value} and {b.value}", code,
                     f"Subtract their {y}."),)
    return Plan(steps)
