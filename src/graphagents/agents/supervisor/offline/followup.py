"""Follow-up questions in a conversation: "그럼 전세는?" after "강남구 30평대 아파트 매매 시세 알려줘".

A follow-up is recognised by its form only (a connective such as 그럼 / 그러면, a reference such as
거기 / 같은 조건, or a very short "X는?" question), never guessed from a missing region: "전세 계약
갱신청구권이 뭐야?" after a price question is a new question and inherits nothing.

A follow-up becomes a standalone question the planner and the teams can use as it is:

* elliptical ("그럼 전세는?", "서초구는?", "59㎡는 어때?", "연봉 1억이면?", "그럼 5억이면?"): the
  previous question with what changed substituted (매매 -> 전세, 연봉 8천 -> 연봉 1억; a bare amount
  takes the role of the previous question's first amount), so the same teams run on the new condition;
* with its own topic ("그럼 대출은 얼마나 돼?"): the question itself, prefixed with the previous
  conditions it does not restate ("강남구 30평대 아파트 매매 — 그럼 대출은 얼마나 돼?").

What was inherited is returned with the rewrite, so the answer can say it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..units import format_manwon
from .english import is_english
from .entities import _BUYER, _COMPLEX, _DEAL, _PROPERTY, extract_entities
from .lexicon import normalise

_MARKER = re.compile(r"^\s*(그럼|그러면|그렇다면|그런데|근데|그 경우|이 경우|그런 경우|그때|같은 조건|동일한? 조건|"
                     r"그리고|또|그 ?다음|then|and|what about|how about)(?![가-힣])", re.I)
_REFERS = re.compile(r"거기|그 ?(집|단지|지역|아파트|동네|조건|금액)|같은 ?(조건|지역|단지|평형)|동일한? ?조건|"
                     r"\bsame\b|\bthere\b", re.I)
_SHORT_TAIL = re.compile(r"(은|는|이면|면|라면|이라면|의 경우|도|인 경우)\s*(어때|어때요|요|어떻게 ?돼|얼마야|얼마|"
                         r"\?)?\s*[?？.]?\s*$")
_SHORT = 14
"""A question this short (letters, no spaces) ending in "X는?" / "X면?" is elliptical by form."""
_FILLER = re.compile(r"그럼|그러면|그렇다면|그런데|근데|그리고|같은 ?조건(으로|에서)?|동일한? ?조건(으로|에서)?|또|"
                     r"어때요?|어떻게 ?돼요?|어떤가요|얼마야|얼마예요|얼마|알려 ?줘|알려 ?주세요|은|는|이면|면|라면|"
                     r"이라면|의 경우|인 경우|도|요|연봉|연소득|소득|보증금|전세금|월세|매매가|가격|집값|"
                     r"then|and|what about|how about|[?？.!,~()\s]", re.I)
_AMOUNT_LABEL = {"deposit": "보증금", "monthly_rent": "월세", "price": "매매가", "income": "연소득",
                 "senior_debt": "선순위 채권", "loan": "대출"}
INHERITED_KEYS = ("region", "complex", "area", "property_type", "deal_type", "buyer")


def is_followup(query: str) -> bool:
    text = query.strip()
    if _MARKER.match(text) or _REFERS.search(text):
        return True
    return len(re.sub(r"\s+", "", text)) <= _SHORT and bool(_SHORT_TAIL.search(text))


def _spans(text: str, entities: Mapping[str, Any]) -> dict[str, str]:
    """The words of ``text`` that stated each entity (what a rewrite replaces)."""
    out: dict[str, str] = {}
    if region := entities.get("region"):
        out["region"] = str(region.get("text") or region.get("sigungu"))
    if m := _COMPLEX.search(text):
        out["complex"] = m.group(0)
    if (area := entities.get("area")) and area.get("text") and area["text"] != "model":
        out["area"] = str(area["text"])
    for word in _PROPERTY:
        if word in text:
            out["property_type"] = word
            break
    for _, pat in _DEAL:
        if m := pat.search(text):
            out["deal_type"] = m.group(0)
            break
    for _, pat in _BUYER:
        if m := pat.search(text):
            out["buyer"] = m.group(0)
            break
    return out


def _amount_changes(previous: Mapping[str, Any], current: Mapping[str, Any]) -> list[tuple[str, str | None, str]]:
    """(role, the previous amount's words or None, the new amount's words) for each amount the
    follow-up states; a bare amount ("5억이면?") takes the role of the previous question's first amount."""
    before = [a for a in previous.get("amounts") or [] if a.get("role") in _AMOUNT_LABEL]
    out: list[tuple[str, str | None, str]] = []
    for a in current.get("amounts") or []:
        role = str(a.get("role"))
        if role not in _AMOUNT_LABEL:
            if not before:
                continue
            role = str(before[0]["role"])
        old = next((str(b.get("text")) for b in before if b.get("role") == role and b.get("text")), None)
        out.append((role, old, str(a.get("text") or format_manwon(int(a["manwon"])))))
    return out


def _remainder(text: str, spans: Mapping[str, str], amounts: list[str] = []) -> str:  # noqa: B006 (read only)
    """What the follow-up says beyond its entities and fillers ("" for "그럼 전세는?")."""
    glossed = is_english(text) and bool(re.search(r"[가-힣]", text))
    for word in sorted([*spans.values(), *amounts], key=len, reverse=True):
        text = text.replace(word, " ")
    if glossed:  # an English question's words are read through its Korean gloss
        text = re.sub(r"[a-z]+", " ", text)
    return _FILLER.sub("", text)


def _labelled_amounts(previous: Mapping[str, Any], given: set[str]) -> list[str]:
    out = []
    for a in previous.get("amounts") or []:
        role = a.get("role")
        if role in _AMOUNT_LABEL and role not in given and a.get("manwon"):
            out.append(f"{_AMOUNT_LABEL[role]} {format_manwon(int(a['manwon']))}")
    return out


def rewrite(query: str, previous_query: str, previous_entities: Mapping[str, Any]) -> dict[str, Any] | None:
    """The standalone question a follow-up stands for, with what it inherited; None when ``query``
    is not a follow-up or the previous turn stated nothing to inherit."""
    if not previous_query or not is_followup(query):
        return None
    prev_text, text = normalise(previous_query), normalise(query)
    current = extract_entities(query)
    prev_spans, cur_spans = _spans(prev_text, previous_entities), _spans(text, current)
    inherited = [k for k in INHERITED_KEYS if previous_entities.get(k) and not current.get(k)]
    changes = _amount_changes(previous_entities, current)
    amounts = _labelled_amounts(previous_entities, {role for role, _, _ in changes})
    if not inherited and not amounts:
        return None
    if not _remainder(text, cur_spans, [new for _, _, new in changes]).strip():
        # elliptical: the previous question with the change applied
        standalone, changed = prev_text.strip(), []
        for key, word in cur_spans.items():
            old = prev_spans.get(key)
            if old and old in standalone:
                standalone = standalone.replace(old, word, 1)
            else:
                standalone = f"{word} {standalone}"
            changed.append(key)
        for role, old_words, new_words in changes:
            if old_words and old_words in standalone:  # "연봉 8천" -> "연봉 1억": the label stays
                label = re.match(r"^\D*", old_words)
                standalone = standalone.replace(old_words, (label.group(0) if label else "") + new_words, 1)
            else:
                standalone = f"{_AMOUNT_LABEL[role]} {new_words} {standalone}"
            changed.append(f"amount:{role}")
        mode = "elliptical"
    else:  # a new topic under the previous conditions
        context = [prev_spans[k] for k in inherited if k in prev_spans]
        context += [str(previous_entities[k]) for k in inherited if k not in prev_spans and k != "buyer"]
        if "buyer" in inherited:
            context.append({"first_home": "생애최초", "multi_home": "다주택자", "one_home_disposal": "1주택자",
                            "no_home": "무주택자"}.get(str(previous_entities["buyer"]), ""))
        standalone = " ".join([*[c for c in context if c], *amounts]) + " — " + query.strip()
        changed = list(cur_spans)
        mode = "context"
    return {"query": standalone, "from": previous_query, "mode": mode, "inherited": inherited,
            "inherited_amounts": amounts, "changed": changed,
            "said": [str(previous_entities.get(k)) if k in ("deal_type", "buyer") or k not in prev_spans
                     else prev_spans[k] for k in inherited] + amounts}
