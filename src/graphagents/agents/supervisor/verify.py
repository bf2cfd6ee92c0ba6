"""What code checks in a responder model's answer, whatever the model says (issue 26, item 9).

The model writes the prose; code keeps it honest against the evidence it was given:

* every article the answer cites must be one of the retrieved articles shown to the model (a
  bare "제7조" must be the number of one of them, or appear in their text, as "「국세징수법」
  제109조" does in 공인중개사법 제25조의3);
* every figure in it — a won amount, a percentage, a date, a period or count ("2개월", "1회") — must come
  from the evidence: the question, the analysis results, the cited articles' text (where
  "20분의 1" is 5%), the missing-information notes.

A sentence that fails is dropped and the answer says what was dropped and why; when most of the
answer fails (or nothing is left), the offline composer's answer is used instead, said so.

The evidence goes into the prompt delimited (``<data name="...">``) with ``&``, ``<`` and ``>``
escaped, so statute text or a market row cannot close its section or pose as an instruction.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from graphagents.korean import find_amounts
from graphagents.retrieval import sentences

from .tools.laws import LAW_ALIASES

_LAW = "|".join(sorted((re.escape(k) for k in LAW_ALIASES), key=len, reverse=True))
_REF = re.compile(r"(?:(「[^」]{1,40}」|" + _LAW + r"|[가-힣]{2,20}법)\s*)?제\s*(\d+)\s*조(?:\s*의\s*(\d+))?")
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|퍼센트|프로)")
_FRACTION = re.compile(r"(\d+)\s*분의\s*(\d+)")
_PERIOD = re.compile(r"(\d+)\s*(개월|달|년|일|주|회|번)")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_DATE = re.compile(r"(?:(\d{4})\s*년\s*)?(\d{1,2})\s*월\s*(\d{1,2})\s*일|(\d{4})[-./](\d{1,2})[-./](\d{1,2})")
_UNIT = {"달": "개월", "번": "회"}
AMOUNT_TOLERANCE = 0.005
"""A won amount matches evidence within 0.5% (a model that writes 약 1억 2천만원 for 120,350,000)."""
PERCENT_TOLERANCE = 0.051
"""A percentage matches evidence within 0.05 points (92.0% written as 92%)."""
MOST = 0.5
"""When more than this share of the sentences fails, the offline answer replaces the model's."""


def delimit(name: str, text: str) -> str:
    """Data for a prompt: one ``<data>`` section, its markup characters escaped."""
    return f'<data name="{name}">\n{escape(text)}\n</data>'


@dataclass
class Evidence:
    """What the answer may cite and the figures it may state."""

    articles: dict[str, dict[str, Any]]  # id -> citation dict (citation, law, article_no, text)
    texts: list[str]  # the question, the results, article texts, missing notes
    amounts: set[int] = field(default_factory=set)
    percents: set[float] = field(default_factory=set)
    dates: set[tuple[int | None, int, int]] = field(default_factory=set)
    periods: set[tuple[int, str]] = field(default_factory=set)

    @classmethod
    def of(cls, query: str, agg: Mapping[str, Any]) -> Evidence:
        citations = list(agg.get("citations") or [])
        results = json.dumps({k: agg.get(k) for k in ("analysis", "loans", "market", "document")},
                             ensure_ascii=False, default=str)
        texts = [query, results, *(str(c.get("text") or "") for c in citations),
                 *(str(m) for m in agg.get("missing") or [])]
        ev = cls({str(c["id"]): dict(c) for c in citations}, texts)
        for text in texts:
            for date in _dates(text):
                ev.dates.update({date, (None, date[1], date[2])})
            text = _undate(text)
            ev.amounts.update(a.value for a in find_amounts(text))
            ev.percents.update(round(float(m.group(1)), 2) for m in _PERCENT.finditer(text))
            ev.percents.update(round(100 * int(b) / int(a), 2) for a, b in _FRACTION.findall(text) if int(a))
            ev.periods.update((int(n), _UNIT.get(u, u)) for n, u in _PERIOD.findall(_unref(text)))
        # numbers of the structured results: amounts in 만원 or won, ratios as shares or percents
        for n in _NUMBER.findall(results):
            v = float(n)
            ev.amounts.update({int(v), int(v * 10_000)})
            ev.percents.update({round(v, 2), round(v * 100, 2)})
        return ev

    def article_ok(self, law: str | None, number: str, branch: str | None) -> bool:
        no = f"제{number}조" + (f"의{branch}" if branch else "")
        short = LAW_ALIASES.get(law.replace(" ", "")) if law else None
        if short is None and law in LAW_ALIASES:
            short = LAW_ALIASES[law]
        if short:  # one of our laws, named: must be a retrieved article
            return f"{short}:{no}" in self.articles
        if any(str(c.get("article_no")) == no for c in self.articles.values()):
            return True  # bare, or another law: the number of a retrieved article, or quoted in one
        return any(no in str(c.get("text") or "") for c in self.articles.values())

    def amount_ok(self, value: int) -> bool:
        return any(abs(value - a) <= AMOUNT_TOLERANCE * max(a, 1) for a in self.amounts)

    def percent_ok(self, value: float) -> bool:
        return any(abs(value - p) <= PERCENT_TOLERANCE for p in self.percents)


def _dates(text: str) -> list[tuple[int | None, int, int]]:
    out: list[tuple[int | None, int, int]] = []
    for m in _DATE.finditer(text):
        y, mo, d = (m.group(1), m.group(2), m.group(3)) if m.group(2) else (m.group(4), m.group(5), m.group(6))
        out.append((int(y) if y else None, int(mo), int(d)))
    return out


def _undate(text: str) -> str:
    """The text without its dates (2026년 9월 30일's 30 is no period)."""
    return _DATE.sub(" ", text)


def _unref(text: str) -> str:
    """The text without its article references (제6조의3's 3 is no count)."""
    return _REF.sub(" ", text)


def problems(sentence: str, ev: Evidence) -> list[str]:
    """What in one sentence the evidence does not support."""
    out: list[str] = []
    for m in _REF.finditer(sentence):
        law, number, branch = m.groups()
        if not ev.article_ok(law.strip("「」") if law else None, number, branch):
            out.append(f"근거 조문에 없는 {m.group(0).strip()}")
    for date in _dates(sentence):
        if date not in ev.dates:
            out.append("근거에 없는 날짜 " + (f"{date[0]}년 " if date[0] else "") + f"{date[1]}월 {date[2]}일")
    bare = _unref(_undate(sentence))
    for a in find_amounts(bare):
        if not ev.amount_ok(a.value):
            out.append(f"근거에 없는 금액 {a.value:,}원")
    for m in _PERCENT.finditer(bare):
        if not ev.percent_ok(round(float(m.group(1)), 2)):
            out.append(f"근거에 없는 비율 {m.group(0)}")
    for n, u in _PERIOD.findall(bare):
        if (int(n), _UNIT.get(u, u)) not in ev.periods:
            out.append(f"근거에 없는 수치 {n}{u}")
    return out


@dataclass(frozen=True)
class Checked:
    text: str
    dropped: list[tuple[str, list[str]]]
    replaced: bool


def _lines(text: str) -> Iterable[tuple[str, list[str]]]:
    """The answer's lines, each cut into sentences (a bullet list stays a list)."""
    for line in text.splitlines():
        yield line, sentences(line) if line.strip() else []


def check_answer(text: str, query: str, agg: Mapping[str, Any], fallback: Callable[[], str]) -> Checked:
    """The answer with unsupported sentences dropped (said at its end), or ``fallback`` when most of
    it is unsupported."""
    ev = Evidence.of(query, agg)
    kept_lines: list[str] = []
    dropped: list[tuple[str, list[str]]] = []
    total = 0
    for line, parts in _lines(text):
        if not parts:
            kept_lines.append(line)
            continue
        keep: list[str] = []
        for s in parts:
            total += 1
            bad = problems(s, ev)
            if bad:
                dropped.append((s, bad))
            else:
                keep.append(s)
        if keep:
            prefix = line[: len(line) - len(line.lstrip())]
            kept_lines.append(prefix + " ".join(keep))
    if not dropped:
        return Checked(text, [], False)
    kept = "\n".join(kept_lines).strip()
    reasons = _reasons(dropped)
    if not kept or len(dropped) > MOST * total:
        note = (f"※ 모델의 답변이 근거 자료와 맞지 않아({reasons}) 근거 자료로 만든 답변을 대신 드립니다.")
        return Checked(f"{fallback()}\n\n{note}", dropped, True)
    note = f"※ 근거 자료(검색된 조문·계산 결과)로 확인되지 않는 문장 {len(dropped)}개를 뺐습니다: {reasons}."
    return Checked(f"{kept}\n\n{note}", dropped, False)


def _reasons(dropped: Sequence[tuple[str, list[str]]]) -> str:
    return ", ".join(dict.fromkeys(r for _, rs in dropped for r in rs))


__all__ = ["Checked", "Evidence", "check_answer", "delimit", "problems"]
