"""Korean questions for the offline planner: analysed with Kiwi, linked to the tables, restated.

The offline rules (:mod:`.rules`) read English patterns. A Korean question is analysed into its
operation words (가장 많은 / 몇 / 평균 / 합계 / 이상 ...) and its content nouns; every noun is linked
to a table, a column or a cell value - exactly (the cell's own text), or with the shared sentence
embedder (multilingual USE, cross-lingual: 직원 -> ``Num_Employees``, 부서 -> ``department``) when
the best match is clearly ahead of the next one. The question is then restated with the linked
names in the rules' English ("which department has the most num employee, and what is its budget
in billion?") and planned like an English question, so every step is the same real pandas code.

Any noun that links to nothing, or to two things equally well, is a decline with the reason, in
Korean: no guessing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .lexicon import PEOPLE_WORDS, english_words
from .linking import ABBREVIATIONS, COLUMN_FILLER, STOP, is_number_column, norm, tokens

__all__ = ["KoreanLink", "restate"]

COLUMN_MIN = 0.5  # cosine of a noun and a column / table name (USE v3)
VALUE_MIN = 0.62  # a cell value needs more: a wrong row is a wrong answer
MARGIN = 0.08  # over the best candidate that names something else
MAX_CELLS = 3000  # distinct text cells embedded per question

_CONTENT = {"NNG", "NNP", "SL", "SH", "XR"}
_FUNCTION_NOUNS = {
    "어디", "얼마", "무엇", "뭐", "누구", "몇", "개", "명", "곳", "것", "중", "가장", "제일", "평균", "합계", "총합",
    "합", "총", "차이", "최대", "최소", "최고", "최저", "최다", "이상", "이하", "초과", "미만", "개수", "전체", "모든",
    "각", "표", "값", "번", "건", "가지", "세", "년", "때", "경우", "정도", "상위", "하위", "수", "목록", "리스트",
    "별", "전부", "다", "모두", "알려", "순서",
}  # fmt: skip
_BIG = r"많|크|큰|높|길|긴|비싸|비싼|무거|무겁|오래|늦"
_SMALL = r"적|작|낮|짧|싸|싼|가벼|가볍|젊|어리|어린|이르|이른"
_MOST = rf"(?:가장|제일)\s*(?:{_BIG})|최대|최고|최다"
_LEAST = rf"(?:가장|제일)\s*(?:{_SMALL})|최소|최저"
_COUNT = r"몇|개수|인원수|(?<![가-힣])수(?:는|를|가|은)?(?:\s|\?|$)"
TOP_K = r"(상위|하위)\s*(\d{1,3})\s*(?:명|개|곳|건|위|개국)?"
GROUP = r"([가-힣A-Za-z_0-9]+)\s*별"
_SUM = r"합계|총합|합은|모두\s*합|총\s"
_MEAN = r"평균"
_COMPARE = {"이상": "at least", "이하": "at most", "초과": "more than", "미만": "less than"}
_COMPARE_VERB = [
    (r"보다\s*(?:많|크|큰|높|길|긴|늦)|넘", "more than"),
    (r"보다\s*(?:적|작|낮|짧|이르|이른)", "less than"),
]


@dataclass(frozen=True)
class KoreanLink:
    phrase: str  # the Korean noun phrase
    kind: str  # "table" | "column" | "value"
    table: int
    name: str  # the table name, column name or cell text
    numeric: bool
    score: float
    start: int  # character offset in the question


def _groups(question: str) -> list[tuple[str, int]]:
    """Noun phrases (runs of content morphemes) with their start offsets; function nouns dropped."""
    from graphagents.korean import tokenize

    out: list[tuple[str, int]] = []
    run: list[Any] = []

    def flush() -> None:
        words = [m for m in run if m.form not in _FUNCTION_NOUNS]
        if words:
            out.append((" ".join(m.form for m in words), words[0].start))
        run.clear()

    for morph in tokenize(question):
        if morph.tag in _CONTENT:
            run.append(morph)
        else:
            flush()
    flush()
    return out


def _numbers(question: str) -> list[tuple[float, str, int]]:
    """Numbers with a comparison after them ("100 이상", "56세보다 많은"): (value, English phrase, offset);
    an empty list when some number is not a comparison (its role would be a guess)."""
    out = []
    question = CODE.sub(lambda m: " " * len(m.group(0)), question)  # E12, O-110: codes, not numbers
    question = re.sub(TOP_K, lambda m: " " * len(m.group(0)), question)  # 상위 3명: how many, not a comparison
    for m in re.finditer(r"\d[\d,]*(?:\.\d+)?", question):
        number = float(m.group(0).replace(",", ""))
        rest = question[m.end(): m.end() + 14]
        scale = re.match(r"\s*(천만|백만|십만|만|억|천|백|조)", rest)
        if scale:  # "300만" is 3,000,000
            number *= {"천만": 1e7, "백만": 1e6, "십만": 1e5, "만": 1e4, "억": 1e8, "천": 1e3, "백": 1e2, "조": 1e12}[
                scale.group(1)]
            rest = rest[scale.end():]
        rest = re.sub(r"^\s*(?:세|살|개|명|년|원|달러|점|위|회|번|%|km|m|kg)?\s*", "", rest)
        phrase = next((p for word, p in _COMPARE.items() if rest.startswith(word)), None)
        if phrase is None:
            phrase = next((p for pattern, p in _COMPARE_VERB if re.match(pattern, rest)), None)
        if phrase is None:
            return []
        out.append((number, phrase, m.start()))
    return out


def _candidates(names: Sequence[str], frames: Sequence[pd.DataFrame]) -> list[tuple[str, int, str, bool, str]]:
    """(kind, table, name, numeric, text to embed) for every table, column and text cell."""
    out: list[tuple[str, int, str, bool, str]] = []
    cells = 0
    for t, (name, frame) in enumerate(zip(names, frames, strict=True)):
        out.append(("table", t, name, False, " ".join(tokens(name))))
        for column in frame.columns:
            numeric = is_number_column(frame, column)
            out.append(("column", t, str(column), numeric, " ".join(tokens(column))))
            if not numeric:
                for value in frame[column].dropna().astype(str).unique():
                    if cells >= MAX_CELLS or not value.strip():
                        break
                    out.append(("value", t, value, False, value))
                    cells += 1
    return out


def link(question: str, names: Sequence[str], frames: Sequence[pd.DataFrame],
         embedder: Callable[[], Any] | None) -> list[KoreanLink] | str:
    """Every noun phrase linked, or the reason (Korean) why one cannot be."""
    links: list[KoreanLink] = []
    pending: list[tuple[str, int]] = []
    for m in CODE.finditer(question):  # "E12", "O-110", "Q4": cells named by their code
        exact = _exact_value(m.group(0), frames)
        if exact is not None:
            links.append(KoreanLink(m.group(0), "value", exact[0], exact[1], False, 1.0, m.start()))
    masked = CODE.sub(lambda m: " " * len(m.group(0)) if any(k.start == m.start() for k in links) else m.group(0),
                      question)
    for phrase, start in _groups(masked):
        found = _sure_link(phrase, start, names, frames)
        if found is None and " " in phrase:
            # "부산 지역 주문 금액", "영업부 급여": the words that are sure link on their own, and only
            # the rest goes to the embedder (a whole phrase could link by one word and drop the other)
            words = [(w, start + phrase.index(w)) for w in phrase.split() if w not in _FUNCTION_NOUNS]
            parts = [(w, at, _sure_link(w, at, names, frames)) for w, at in words]
            if any(part is not None for _, _, part in parts):
                links.extend(part for _, _, part in parts if part is not None)
                unsure = [(w, at) for w, at, part in parts if part is None]
                if unsure:
                    pending.append((" ".join(w for w, _ in unsure), unsure[0][1]))
                continue
        if found is not None:
            links.append(found)
        else:
            pending.append((phrase, start))
    if not pending:
        return links
    try:
        model = embedder() if embedder is not None else None
    except Exception as exc:  # a configured provider without its key or extra: decline, do not fail the turn
        return f"'{pending[0][0]}'을(를) 연결할 문장 임베딩을 쓸 수 없어 답하지 않습니다 ({type(exc).__name__})."
    if model is None:
        return f"'{pending[0][0]}'이(가) 표의 어느 열인지 알려면 문장 임베딩이 필요합니다 (no embedder configured)."
    candidates = _candidates(names, frames)
    vectors = np.asarray(model.embed([c[4] for c in candidates]), dtype=np.float32)
    queries = np.asarray(model.embed([p for p, _ in pending]), dtype=np.float32)
    scores = queries @ vectors.T
    schema = [i for i, c in enumerate(candidates) if c[0] != "value"]
    cells = [i for i, c in enumerate(candidates) if c[0] == "value"]
    claimed: set[int] = set()
    # one noun names one thing, and one thing is named once: the surest noun claims its target
    # first, and a later noun does not compete for it (직원 takes Num_Employees, so 부서 is department)
    todo = sorted(range(len(pending)), key=lambda k: -float(scores[k][schema].max()) if schema else 0.0)
    for k in todo:
        phrase, start = pending[k]
        row = scores[k]
        free = [i for i in schema if i not in claimed]
        # names of tables and columns first (a generic noun such as 부서 names a table, not a cell);
        # a cell value only when no name is clearly meant, and then it must be clearly ahead of all
        chosen = _clear_winner(row, free, candidates, COLUMN_MIN)
        best_cell = max((float(row[i]) for i in cells), default=0.0)
        if isinstance(chosen, int) and best_cell > float(row[chosen]) + MARGIN:
            chosen = None
        if not isinstance(chosen, int):
            chosen_cell = _clear_winner(row, free + cells, candidates, VALUE_MIN)
            if isinstance(chosen_cell, int) and candidates[chosen_cell][0] == "value":
                chosen = chosen_cell
            elif isinstance(chosen, tuple) or isinstance(chosen_cell, tuple):
                a, b = chosen if isinstance(chosen, tuple) else chosen_cell  # type: ignore[misc]
                return f"'{phrase}'이(가) '{a}'인지 '{b}'인지 모델 없이는 확실하지 않아 답하지 않습니다."
            else:
                return f"'{phrase}'에 해당하는 열이나 값을 표에서 찾지 못해 모델 없이는 답하지 않습니다."
        claimed.add(chosen)
        best = candidates[chosen]
        links.append(KoreanLink(phrase, best[0], best[1], best[2], best[3], float(row[chosen]), start))
    return sorted(links, key=lambda k: k.start)


CODE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{1,4}-?\d{1,6}(?![A-Za-z0-9])")
"""An alphanumeric code (E12, O-110, Q4): a cell when a cell is spelled so, never a number to compare."""


def _sure_link(phrase: str, start: int, names: Sequence[str], frames: Sequence[pd.DataFrame]) -> KoreanLink | None:
    """The phrase's table, column or cell by its exact name, or by the lexicon when its English
    words name exactly one thing; None when neither is sure (then the embedder decides)."""
    named = _exact_name(phrase, names, frames)
    if named is not None:
        return KoreanLink(phrase, named[0], named[1], named[2], named[3], 1.0, start)
    exact = _exact_value(phrase, frames)
    if exact is not None:
        return KoreanLink(phrase, "value", exact[0], exact[1], False, 1.0, start)
    found = _lexicon_target(phrase, names, frames)
    if found is not None:
        return KoreanLink(phrase, found[0], found[1], found[2], found[3], 1.0, start)
    return None


def _lexicon_target(phrase: str, names: Sequence[str],
                    frames: Sequence[pd.DataFrame]) -> tuple[str, int, str, bool] | None:
    from .rules import _lists_people

    word = phrase.replace(" ", "")
    # 직원, 인원: a table or column its English names (Num_Employees), else the rows of the one table
    # of people; never a cell its English happens to spell (인원 is not the grade "Staff")
    people_word = word in PEOPLE_WORDS or word.rstrip("들") in PEOPLE_WORDS
    for english in english_words(word.rstrip("들") if people_word else phrase):
        wanted = [ABBREVIATIONS.get(w, w) for w in tokens(english)]
        tables = [t for t, n in enumerate(names) if _contains([ABBREVIATIONS.get(w, w) for w in tokens(n)], wanted)]
        if len(tables) == 1:  # 부서 -> the department table (its rows), before any of its columns
            return "table", tables[0], names[tables[0]], False
        key_word = bool(set(wanted) & {"id", "number", "no", "code"})
        columns = {(t, str(c), is_number_column(f, c)) for t, f in enumerate(frames) for c in f.columns
                   if _contains([ABBREVIATIONS.get(w, w) for w in tokens(c)], wanted)
                   and (key_word or "id" not in tokens(c))}
        if len({c for _, c, _ in columns}) == 1:  # one column (a join key may be in two tables)
            t, column, numeric = min(columns)
            return "column", t, column, numeric
        if columns:
            return None  # several columns fit: the embedder, or a decline, decides
        value = None if people_word else _exact_value(english, frames)
        if value is not None:
            return "value", value[0], value[1], False
    if people_word:
        people = [t for t, f in enumerate(frames) if _lists_people(names[t], f)]
        return ("table", people[0], names[people[0]], False) if len(people) == 1 else None
    return None


def _contains(words: list[str], wanted: list[str]) -> bool:
    n = len(wanted)
    return n > 0 and any(words[i : i + n] == wanted for i in range(len(words) - n + 1))


def _clear_winner(row: np.ndarray, pool: list[int], candidates: list[tuple[str, int, str, bool, str]],
                  floor: float) -> int | tuple[str, str] | None:
    """The best candidate of ``pool`` when it passes ``floor`` and leads every candidate naming
    something else by ``MARGIN``; the two names when it is too close; None below the floor."""
    if not pool:
        return None
    ranked = sorted(pool, key=lambda i: -float(row[i]))
    best = ranked[0]
    if float(row[best]) < floor:
        return None
    for i in ranked[1:]:
        if candidates[i][:3] == candidates[best][:3] or _same_target(candidates[i], candidates[best]):
            continue
        if float(row[best]) - float(row[i]) < MARGIN:
            return (candidates[best][2], candidates[i][2])
        break
    return best


def _same_target(a: tuple[str, int, str, bool, str], b: tuple[str, int, str, bool, str]) -> bool:
    """A table and one of its own text columns count as one target ("부서": department / its Name,
    "도시": cities / its 도시 column): either way the answer is read from that table's rows."""
    return {a[0], b[0]} == {"table", "column"} and a[1] == b[1] and not a[3] and not b[3]


def _exact_name(phrase: str, names: Sequence[str],
                frames: Sequence[pd.DataFrame]) -> tuple[str, int, str, bool] | None:
    """A phrase that is literally a column's or a table's name (one of them, unambiguously)."""
    def key(text: object) -> str:
        return norm(text).replace(" ", "").replace("_", "")

    wanted = key(phrase)
    found = [("column", t, str(c), is_number_column(f, c))
             for t, f in enumerate(frames) for c in f.columns if key(c) == wanted]
    found += [("table", t, n, False) for t, n in enumerate(names) if key(n) == wanted]
    return found[0] if len(found) == 1 else None


def _exact_value(phrase: str, frames: Sequence[pd.DataFrame]) -> tuple[int, str] | None:
    wanted = norm(phrase).replace(" ", "")
    if len(wanted) < 2:
        return None
    found = []
    for t, frame in enumerate(frames):
        for column in frame.columns:
            if pd.api.types.is_numeric_dtype(frame[column]):
                continue
            for value in frame[column].dropna().astype(str).unique():
                if norm(value).replace(" ", "") == wanted:
                    found.append((t, value))
    distinct = {v for _, v in found}
    return found[0] if len(distinct) == 1 else None


def restate(question: str, names: Sequence[str], frames: Sequence[pd.DataFrame],
            embedder: Callable[[], Any] | None) -> str | tuple[str]:
    """The question in the rules' English, or ``(reason,)`` when it cannot be restated honestly."""
    most, least = re.search(_MOST, question), re.search(_LEAST, question)
    count, total, mean = re.search(_COUNT, question), re.search(_SUM, question), re.search(_MEAN, question)
    if sum(x is not None for x in (most or least, count, total or mean)) > 1:
        return ("이 질문은 여러 연산이 섞여 있어 모델 없이는 답하지 않습니다.",)
    numbers = _numbers(question)
    bare = CODE.sub(" ", re.sub(TOP_K, " ", question))  # the digits of codes and of "상위 3" are not numbers
    if re.search(r"\d", bare) and not numbers:
        return ("질문의 숫자가 무엇과 비교되는지 모델 없이는 알 수 없어 답하지 않습니다.",)
    linked = link(question, names, frames, embedder)
    if isinstance(linked, str):
        return (linked,)
    entity = next((k for k in linked if k.kind == "table"), None)
    values = [k for k in linked if k.kind == "value"]
    # "ENG 부서": a column named next to one of its own values says where the value is, nothing more
    columns = [k for k in linked if k.kind == "column"
               and not any(v.table == k.table and _value_in(v.name, frames[k.table], k.name) for v in values)]
    guessed = entity if entity is not None and entity.score < 1.0 else None  # a table named by the embedder
    top, group = re.search(TOP_K, question), re.search(GROUP, question)
    if group is not None:
        return _restate_group(question, group, names, entity, values, columns, count, total, mean, numbers)
    if top is not None:
        measures = [c for c in columns if c.numeric]
        others = [c for c in columns if not c.numeric]
        if len(measures) != 1 or len(others) > 1 or values or numbers or guessed:
            return ("상위/하위 몇 개를 고를 숫자 열을 모델 없이는 정할 수 없어 답하지 않습니다.",)
        direction = "top" if top.group(1) == "상위" else "bottom"
        subject = entity.name if entity else others[0].name if others else ""
        wh = f"which {_words(subject)}" if subject else ("who" if re.search(r"누구|누가", question) else "what")
        return f"{wh} are the {direction} {top.group(2)} by {_words(measures[0].name)}?"
    value_text = " ".join(f"{v.name}" for v in values)
    filters = []
    for number, phrase, offset in numbers:
        before = [c for c in columns if c.numeric and c.start < offset]
        if not before:
            return ("비교할 숫자 열을 모델 없이는 정할 수 없어 답하지 않습니다.",)
        column = before[-1]
        columns.remove(column)
        shown = str(int(number)) if float(number).is_integer() else repr(number)
        filters.append(f"with {_words(column.name)} {phrase} {shown}")
    where = " ".join(filters)
    if most or least:
        mark = (most or least).start()  # type: ignore[union-attr]
        measures = [c for c in columns if c.numeric and c.start < mark] or [c for c in columns if c.numeric]
        if not measures:
            return ("무엇이 가장 많은지(큰지) 정할 숫자 열을 찾지 못해 모델 없이는 답하지 않습니다.",)
        measure = measures[-1]
        rest = [c for c in columns if c is not measure]
        word = "most" if most else "least"
        follow = [c for c in rest if c.start > mark and re.search(r"그\s|그리고|이고|,", question[mark:c.start])]
        asked = [c for c in rest if c not in follow and not c.numeric]
        subject = entity.name if entity else (asked[0].name if asked else "")
        if not subject and (follow or asked):
            return ("무엇을 답해야 하는지 모델 없이는 정할 수 없어 답하지 않습니다.",)
        head = f"which {_words(subject)} {('with ' + value_text) if value_text else ''}".strip() if subject else ""
        text = (f"{head} has the {word} {_words(measure.name)}" if head
                else f"what is the {'highest' if most else 'lowest'} {_words(measure.name)}")
        if follow:
            text += f", and what is its {_words(follow[0].name)}"
        if len(follow) > 1 or len(asked) > (0 if entity else 1):
            return ("질문이 묻는 항목이 많아 모델 없이는 답하지 않습니다.",)
        return text + "?"
    if count and len(values) == 1 and len(columns) == 1 and columns[0].numeric and not numbers:
        return f"what is the {_words(columns[0].name)} of {values[0].name}?"  # "서울의 인구는 몇 명": a lookup
    if count:
        extra = [c for c in columns if not c.numeric]
        if len(extra) > (0 if entity else 1) or [c for c in columns if c.numeric]:
            return ("무엇을 세는지 모델 없이는 정할 수 없어 답하지 않습니다.",)
        subject = entity.name if entity else extra[0].name if extra else names[0]  # "도시는 몇 개": the 도시 rows
        return " ".join(p for p in ["how many", _words(subject), value_text, where] if p) + "?"
    if guessed is not None:
        return (f"'{guessed.phrase}'이(가) 무엇을 가리키는지 모델 없이는 확실하지 않아 답하지 않습니다 "
                f"(표 '{guessed.name}'과(와) 비슷하지만 질문에서 쓰이지 않습니다).",)
    if total or mean:
        numeric = [c for c in columns if c.numeric]
        if len(numeric) != 1 or len(columns) != 1:
            return ("합계나 평균을 낼 열을 모델 없이는 정할 수 없어 답하지 않습니다.",)
        func = "total" if total else "average"
        of = f" of {value_text}" if value_text else ""
        return f"what is the {func} {_words(numeric[0].name)}{of}?"
    if len(values) == 1 and len(columns) == 1 and not numbers:
        return f"what is the {_words(columns[0].name)} of {values[0].name}?"
    return ("모델 없이는 개수, 합계, 평균, 가장 큰/작은 값, 한 행의 값 조회만 답할 수 있습니다 "
            "(offline: this Korean question needs a model).",)


def _value_in(value: str, frame: pd.DataFrame, column: str) -> bool:
    return column in frame.columns and bool((frame[column].astype(str) == value).any())


def _restate_group(question: str, group: re.Match[str], names: Sequence[str], entity: KoreanLink | None,
                   values: list[KoreanLink], columns: list[KoreanLink], count: Any, total: Any, mean: Any,
                   numbers: list[tuple[float, str, int]]) -> str | tuple[str]:
    """"부서별 직원 수", "직급별 인원", "지역별 평균 인구": one row per group, in the rules' English."""
    by = [c for c in columns if c.start == group.start(1) and not c.numeric]
    if len(by) != 1 or values or numbers:
        return (f"'{group.group(1)}별'로 묶을 열을 모델 없이는 정할 수 없어 답하지 않습니다.",)
    rest = [c for c in columns if c is not by[0]]
    measures = [c for c in rest if c.numeric]
    people = entity is not None and entity.score == 1.0
    if (total or mean) and len(measures) == 1 and len(rest) == 1:
        func = "total" if total else "average"
        return f"what is the {func} {_words(measures[0].name)} by {_words(by[0].name)}?"
    if (count or people) and not rest and not total and not mean:
        subject = entity.name if entity else names[0] if len(names) == 1 else ""
        if not subject:
            return ("무엇을 세는지 모델 없이는 정할 수 없어 답하지 않습니다.",)
        return f"how many {_words(subject)} are there by {_words(by[0].name)}?"
    return (f"'{group.group(1)}별'로 무엇을 세거나 더할지 모델 없이는 정할 수 없어 답하지 않습니다.",)


def _words(name: str) -> str:
    """A column's name as the rules' words (fillers such as "num", "in" left out: they link nothing)."""
    words = [w for w in tokens(name) if w not in COLUMN_FILLER and w not in STOP]
    return " ".join(words or tokens(name))
