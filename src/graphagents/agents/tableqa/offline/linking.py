"""Linking question words to tables: cell values by exact phrase, columns by name tokens.

Precision first: a value links only when its whole normalised text appears as a phrase in the
question (longest match wins, no fuzzy guesses); a column links when its name tokens (singular,
lower-cased) are in the question or when a known adjective names it ("tallest" -> height). Every
question token a link explains is recorded, so the planner can refuse questions with words it
did not understand.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

__all__ = ["ABBREVIATIONS", "ColumnLink", "ValueLink", "is_number_column", "link_columns", "link_values", "norm",
           "inflected", "numberish", "to_number_code", "tokens"]

_MAX_DISTINCT = 5000

# Adjectives that name a measured column, with the column tokens they point at.
ADJECTIVE_COLUMNS: dict[str, tuple[str, ...]] = {
    "tallest": ("height",), "shortest": ("height", "length", "time"), "heaviest": ("weight",),
    "lightest": ("weight",), "longest": ("length", "time", "duration"), "oldest": ("age",),
    "youngest": ("age",), "busiest": ("passengers", "traffic"), "richest": ("wealth", "worth"),
    "largest": ("area", "size", "population", "capacity"), "biggest": ("area", "size", "population", "capacity"),
    "most populous": ("population",), "taller": ("height",), "heavier": ("weight",), "longer": ("length",),
    "older": ("age",), "younger": ("age",),
}  # fmt: skip


# Abbreviations common in column names, and the word a question uses for them.
ABBREVIATIONS: dict[str, str] = {
    "dept": "department", "dep": "department", "emp": "employee", "qty": "quantity", "amt": "amount",
    "yr": "year", "pct": "percent", "addr": "address", "pop": "population", "mgr": "manager",
    "desc": "description", "cnt": "count", "num": "number", "tel": "phone", "dob": "birth", "avg": "average",
    "org": "organization", "cust": "customer", "prod": "product", "div": "division", "loc": "location",
}  # fmt: skip
_NUMBERISH = re.compile(r"^[-+]?[$€£¥₩]?\s*\d{1,3}(?:,\d{3})+(?:\.\d+)?\s*(?:원|달러|円|%)?$"
                        r"|^[-+]?[$€£¥₩]?\s*\d+(?:\.\d+)?\s*(?:원|달러|円|%)?$")
_MISSING_MARKS = {"", "-", "–", "—", "n/a", "na", "none", "null", "nan", "?"}


def numberish(series: pd.Series) -> bool:
    """A text column whose every filled cell is a number once its thousands separators, currency
    sign or unit are read ("1,200", "₩12,000", "3,900원"; "-" and "n/a" count as missing), with at
    least two numbers: the offline planner converts it with :func:`to_number_code` before using it."""
    if pd.api.types.is_numeric_dtype(series):
        return False
    text = series.dropna().astype(str).str.strip()
    filled = text[~text.str.lower().isin(_MISSING_MARKS)]
    return len(filled) >= 2 and len(filled) <= 100_000 and bool(filled.map(lambda v: bool(_NUMBERISH.match(v))).all())


def is_number_column(frame: pd.DataFrame, column: object) -> bool:
    """Numbers, stored as numbers or as text (:func:`numberish`)."""
    series = frame[column]
    return bool(pd.api.types.is_numeric_dtype(series)) or numberish(series)


def to_number_code(frame: str, column: str) -> str:
    """Pandas code (run in the sandbox) that reads a :func:`numberish` column as numbers."""
    return (f"pd.to_numeric({frame}[{column!r}].astype(str).str.replace(r'[,\\s$€£¥₩원달러円%]', '', regex=True)"
            f".replace({{'-': None, '': None, 'n/a': None, 'N/A': None}}), errors='coerce')")


def norm(text: object) -> str:
    text = unicodedata.normalize("NFKC", str(text)).lower()
    text = re.sub(r"[’'`´]s\b", "", text)
    return re.sub(r"[^\w.%]+|(?<!\d)\.|\.(?!\d)", " ", text).strip()


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def inflected(word: str, base: str) -> bool:
    """``word`` is ``base`` or a regular inflection of it ("hired"/"hiring" of hire, "joined" of
    join, "planned" of plan): how question verbs name a column's noun."""
    if word == base or (word == base + "e" and base.endswith(("s", "x", "z", "ch", "sh"))):
        return True  # "bonuses" reads as bonuse once its plural -s is cut
    if len(base) < 3 or not base.isascii() or not word.startswith(base[:-1]):
        return False
    forms = {base + "s", base + "es", base + "d", base + "ed", base + "ing", base + base[-1] + "ed",
             base + base[-1] + "ing"}
    if base.endswith("e"):
        forms.add(base[:-1] + "ing")
    return word in forms


def tokens(text: object) -> list[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", str(text))
    return [_singular(t) for t in norm(spaced.replace("_", " ")).split()]


@dataclass(frozen=True)
class ValueLink:
    table: int
    column: str
    value: object
    start: int
    end: int  # token span in the question

    @property
    def span(self) -> range:
        return range(self.start, self.end)


@dataclass(frozen=True)
class ColumnLink:
    table: int
    column: str
    positions: tuple[int, ...]  # question tokens that name it
    numeric: bool
    score: float  # share of the column name's tokens found in the question


def link_values(question_tokens: Sequence[str], frames: Sequence[pd.DataFrame]) -> list[ValueLink]:
    """Cells whose whole text is a phrase of the question (text columns; numbers need 3+ digits)."""
    found: list[ValueLink] = []
    for t, frame in enumerate(frames):
        for column in frame.columns:
            series = frame[column].dropna()
            numeric = pd.api.types.is_numeric_dtype(series)
            for value in series.unique()[:_MAX_DISTINCT]:
                cell = tokens(value)
                if not cell or (numeric and (len(str(value)) < 3 or not float(value).is_integer())):
                    continue
                if len(cell) == 1 and (cell[0] in STOP or len(cell[0]) < 2):
                    continue
                for start in _find(question_tokens, cell):
                    found.append(ValueLink(t, str(column), value, start, start + len(cell)))
    found += _loose_links(question_tokens, frames, found)
    longest: list[ValueLink] = []
    for link in sorted(found, key=lambda v: -(v.end - v.start)):
        if not any(link.start >= o.start and link.end <= o.end and (o.end - o.start) > (link.end - link.start)
                   for o in longest):
            longest.append(link)
    return sorted(longest, key=lambda v: v.start)


FUZZY_MIN = 0.88  # difflib ratio of a question phrase and a cell's core text (spelling variants)


def cell_core(value: object) -> list[str]:
    """A cell's name part: its first line without bracketed notes ("South Korea\xa0(KOR)" -> south korea)."""
    text = str(value).split("\n")[0]
    return tokens(re.sub(r"\([^)]*\)|\[[^\]]*\]", " ", text))


def _loose_links(question_tokens: Sequence[str], frames: Sequence[pd.DataFrame],
                 exact: Sequence[ValueLink]) -> list[ValueLink]:
    """Cells named by their core text ("south korea" -> "South Korea (KOR)") or a close spelling
    (difflib ratio >= FUZZY_MIN on the same number of words). A phrase that fits two different cells
    links to neither: the filter would be a guess."""
    taken = {i for link in exact for i in link.span}
    by_span: dict[tuple[int, int], list[tuple[int, str, object]]] = {}
    for t, frame in enumerate(frames):
        for column in frame.columns:
            series = frame[column].dropna()
            if pd.api.types.is_numeric_dtype(series):
                continue
            for value in series.unique()[:_MAX_DISTINCT]:
                core = cell_core(value)
                if not core or (len(core) == 1 and (core[0] in STOP or len(core[0]) < 3)):
                    continue
                n = len(core)
                joined = " ".join(core)
                for start in range(len(question_tokens) - n + 1):
                    window = list(question_tokens[start : start + n])
                    if window == core:
                        if core == tokens(value):
                            continue  # the exact pass has it
                    elif len(joined) < 6 or window[0][:1] != core[0][:1] or difflib.SequenceMatcher(
                            None, " ".join(window), joined).ratio() < FUZZY_MIN:
                        continue
                    if taken & set(range(start, start + n)):
                        continue
                    by_span.setdefault((start, start + n), []).append((t, str(column), value))
    out = []
    for (start, end), cells in by_span.items():
        if len({str(v) for _, _, v in cells}) == 1:
            t, column, value = cells[0]
            out.append(ValueLink(t, column, value, start, end))
    return out


def _find(haystack: Sequence[str], needle: Sequence[str]) -> list[int]:
    n = len(needle)
    return [i for i in range(len(haystack) - n + 1) if list(haystack[i : i + n]) == list(needle)]


def link_columns(question_tokens: Sequence[str], frames: Sequence[pd.DataFrame], question: str) -> list[ColumnLink]:
    """Columns named in the question (some of their name tokens present, scored by how many),
    or named by an adjective ("tallest" -> a height column)."""
    links = []
    text = norm(question)
    for t, frame in enumerate(frames):
        for column in frame.columns:
            numeric = is_number_column(frame, column)
            name = [w for w in tokens(column) if w not in COLUMN_FILLER]

            def named(q: str, w: str) -> bool:  # the word, an inflection, or the abbreviation's long form
                return inflected(q, w) or inflected(w, q) or (w in ABBREVIATIONS and inflected(q, ABBREVIATIONS[w]))

            positions: list[int] = []
            score = 0.0
            hits = [w for w in name if w not in STOP and any(named(q, w) for q in question_tokens)]
            if hits:
                positions = [i for i, q in enumerate(question_tokens) if any(named(q, w) for w in hits)]
                score = len(set(hits)) / len(set(name))
            else:
                for adjective, targets in ADJECTIVE_COLUMNS.items():
                    if re.search(rf"\b{adjective}\b", text) and any(w in targets for w in name):
                        first = adjective.split()[-1]
                        positions = [i for i, w in enumerate(question_tokens) if w == first]
                        score = 1.0
                        break
            if positions:
                links.append(ColumnLink(t, str(column), tuple(positions), numeric, score))
    return links


# Words that carry no meaning a computation must express.
STOP = frozenset(
    [
        "a", "an", "the", "of", "in", "on", "at", "to", "for", "by", "with", "from", "into", "during", "is", "are",
        "was", "were", "be", "been", "being", "am", "did", "does", "do", "has", "have", "had", "what", "which", "who",
        "whom", "whose", "when", "where", "how", "that", "this", "these", "those", "there", "their", "its", "it", "his",
        "her", "he", "she", "they", "them", "and", "or", "as", "all", "any", "each", "per", "listed", "list", "table",
        "shown", "show", "given", "name", "named", "called", "s", "i", "me", "my", "we", "our", "you", "your", "please",
        "tell", "find", "give", "get", "one", "only", "so", "just", "ever", "there's",
    ]
)
COLUMN_FILLER = frozenset({"of", "the", "in", "no", "number", "num", "total", "a", "an", "and", "for", "to", "by"})
