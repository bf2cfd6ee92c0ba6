"""The language a reply is written in: the language of the question.

The composer writes its reason in the question's language (``ComposeResult.language``); the
sentences around it (a refusal, "no rows matched", "N rows") are written by the agent's nodes.
They choose with :func:`reply_language` and take their words from :data:`PHRASES`, so that an
English question never gets a Korean frame around an English answer.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["PHRASES", "Lang", "phrase", "reply_language"]

Lang = Literal["ko", "en"]

PHRASES: dict[str, dict[Lang, str]] = {
    "cannot_compose": {
        "ko": "이 질문으로는 SQL을 만들 수 없어요. 이유: {reason} 테이블이나 값의 이름을 넣어 다시 물어봐 주세요.",
        "en": "I could not write SQL for this question. Reason: {reason} Try again naming a table or a stored value.",
    },
    "no_rows": {"ko": "조건에 맞는 데이터가 없어요.", "en": "No rows match the question."},
    "rows": {"ko": "결과 {n}행{truncated}:", "en": "{n} rows{truncated}:"},
    "truncated": {"ko": " (일부만 표시)", "en": " (only part is shown)"},
    "more_rows": {"ko": "… 외 {n}행", "en": "… and {n} more rows"},
    "cached": {"ko": "이전에 같은 질문의 결과를 재사용했어요.",
               "en": "This reuses the result of the same earlier question."},
    "budget": {
        "ko": "도구 호출 {n}번 안에 SQL을 확정하지 못했어요. 질문을 조금 더 구체적으로 말씀해 주시겠어요?",
        "en": "I could not settle on a SQL query within {n} tool calls. Could you make the question more specific?",
    },
}


def reply_language(question: str) -> Lang:
    """Korean when the question has any Hangul (a Korean question may name English values), else English."""
    return "ko" if any("\uac00" <= ch <= "\ud7a3" for ch in question or "") else "en"


def phrase(key: str, question: str, **values: object) -> str:
    """``PHRASES[key]`` in the question's language, with ``values`` filled in."""
    return PHRASES[key][reply_language(question)].format(**values)
