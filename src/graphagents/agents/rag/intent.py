"""classify_intent: greeting / simple / moderate / complex -> dynamic k 0 / 3 / 8 / 15.

Offline rules (Korean and English): a greeting or thanks with no question in it; "simple" for one
short definitional question about one thing; "complex" for comparisons, several questions or
aspects, or a question that depends on the user's own situation; "moderate" otherwise. With a model,
the model decides (structured output with one repair); garbage falls back to the rules.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field

from .query import aspects_of, focus_terms, profile_relevant

__all__ = ["DYNAMIC_K", "IntentDecision", "classify_offline"]

Intent = Literal["greeting", "simple", "moderate", "complex"]
DYNAMIC_K: dict[str, int] = {"greeting": 0, "simple": 3, "moderate": 8, "complex": 15}


class IntentDecision(BaseModel):
    intent: Intent
    reason: str = Field("", max_length=500)


_GREETING = re.compile(
    r"^\s*(안녕(하세요|하십니까)?|반가워요?|반갑습니다|고마워요?|고맙습니다|감사(해요|합니다)|ㅎㅇ|hi|hello|hey|"
    r"good (morning|afternoon|evening)|thanks?( you)?|thank you)[\s!.~?ㅎㅋ^]*$", re.IGNORECASE)
_COMPARE = re.compile(r"비교|차이|다른 점|뭐가 나아|어느 (것|쪽)|\bvs\.?\b|versus|compare|difference|better than",
                      re.IGNORECASE)
_JOIN = re.compile(r"그리고|또한|랑|하고 |및|\band\b|\balso\b", re.IGNORECASE)
_DEFINITION = re.compile(
    r"(이|가|은|는)?\s*(뭐(예요|에요|야|지|죠)|무엇(인가요|이에요|입니까)?)\s*\??$|^what (is|are)\b", re.IGNORECASE)


def classify_offline(text: str) -> IntentDecision:
    stripped = text.strip()
    if not stripped or _GREETING.match(stripped):
        return IntentDecision(intent="greeting", reason="a greeting or thanks, no question")
    questions = max(stripped.count("?"), 1)
    aspects = [a for a in aspects_of(stripped) if a not in ("what is", "information")]
    topics = focus_terms(stripped)
    if _COMPARE.search(stripped):
        return IntentDecision(intent="complex", reason="a comparison")
    if questions > 1 or (len(aspects) >= 4 and _JOIN.search(stripped)):
        return IntentDecision(intent="complex", reason="several questions or aspects")
    if profile_relevant(stripped) and len(stripped) > 15:
        return IntentDecision(intent="complex", reason="depends on the user's own situation")
    if _DEFINITION.search(stripped) and len(topics) <= 3:
        return IntentDecision(intent="simple", reason="one short definitional question")
    if len(topics) <= 2 and len(stripped) <= 40:
        return IntentDecision(intent="simple", reason="one short question about one thing")
    if len(topics) > 8 or len(stripped) > 200:
        return IntentDecision(intent="complex", reason="a long question with many terms")
    return IntentDecision(intent="moderate", reason="a question about one topic with some detail")


def intent_prompt(text: str) -> str:
    from .prompts import PROMPTS

    return PROMPTS.render("intent.txt", question=text)


def decision_dict(decision: IntentDecision) -> dict[str, Any]:
    return {"intent": decision.intent, "reason": decision.reason, "k": DYNAMIC_K[decision.intent]}
