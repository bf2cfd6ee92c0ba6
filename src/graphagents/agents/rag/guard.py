"""The topic guard: an answer is composed only from passages about the entity the question asks
about and sentences about the aspect it asks for.

- *Entity*: the drugs and conditions the question names (the lexicon's canonical names). A passage
  whose own topic (its MedQuAD title, read with the lexicon) is another condition may only lend a
  sentence that names the asked entity itself, and never when its topic is a *sibling* of it: low
  blood pressure is not high blood pressure, type 1 diabetes is not type 2, hepatitis A is not B,
  shingles is not chickenpox. A passage without a lexicon topic ("Blood Thinners") lends only
  sentences that name the entity.
- *Aspect*: symptoms, treatment, side effects, interactions, causes, diagnosis, prevention, risk,
  complications, outlook ... from the question's words (Korean and English). A passage answers
  one aspect (its heading, the MedQuAD question it answers) or is an overview; an overview lends
  only sentences with a cue of the asked aspect ("symptoms include", "is treated"), a passage about
  another aspect lends nothing.
- *Anticoagulants*: a side-effect or interaction question about a blood thinner is answered only
  with a sentence that carries the documents' bleeding warning; otherwise it is declined.

When nothing passes, the reply says "not found" and what the documents do cover for the entity
(:meth:`TopicGuard.coverage`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .lexicon import find_terms, korean_name

__all__ = ["ASPECT_NAMES", "TopicGuard", "heading_aspect", "question_aspects", "siblings", "unknown_topic_words"]

# (regex on the passage heading, aspect); the first match wins; no match = an overview.
_HEADINGS: tuple[tuple[str, str], ...] = (
    (r"^what are the treatments for", "treatment"), (r"^what are the symptoms of", "symptoms"),
    (r"^how to diagnose", "diagnosis"), (r"^what are the stages of", "stages"), (r"^who is at risk", "risk"),
    (r"^what causes", "causes"), (r"^what research", "research"), (r"^what are the genetic changes", "genetics"),
    (r"^is .* inherited", "inheritance"), (r"^what is the outlook", "outlook"), (r"^how to prevent", "prevention"),
    (r"^how many people", "frequency"), (r"^what to do for", "diet"), (r"^what are the complications", "complications"),
)
_HEADING_RES = tuple((re.compile(p, re.IGNORECASE), a) for p, a in _HEADINGS)

# Question words per aspect: English (word-boundary regexes on lower-case text) and Korean (substrings).
_EN_ASPECTS: dict[str, str] = {
    "side_effects": r"\bside[- ]?effects?\b|\badverse\b|\bsafe to take\b",
    "dosage": r"\bdos(?:e|es|age|ing)\b|\bmg\b|\bmilligrams?\b|"
              r"\bhow (?:much|many)\b[^?.]{0,40}\b(?:take|a day|per day|daily)\b|\bhow often\b[^?.]{0,30}\btake\b",
    "interactions": r"\binteract\w*\b|\b(?:take|taking|use|using|mix|combine)\b[^?.]{0,40}\b(?:with|and|together)\b"
                    r"[^?.]{0,40}\b(?:thinner|medicine|drug|pill|warfarin|aspirin|ibuprofen|alcohol)\w*",
    "symptoms": r"\bsymptoms?\b|\bsigns?\b|\bfeel like\b|\bfeels like\b",
    "treatment": r"\btreat\w*\b|\bcure\w*\b|\btherap\w*\b|\bmanag\w*\b|\bhelps? with\b|\bwhat can help\b|"
                 r"\bmedicines? for\b|\bdrugs? for\b",
    "causes": r"\bcause[sd]?\b|\bwhy do\b|\bwhy does\b",
    "diagnosis": r"\bdiagnos\w*\b|\btests?\b|"
                 r"\bhow (?:do|can|would|does) (?:a )?(?:doctors?|you|i|one) (?:tell|know)\b",
    "prevention": r"\bprevent\w*\b|\bvaccines?\b|\bavoid\b",
    "risk": r"\brisk\b|\bmore likely\b|\bwho gets\b",
    "complications": r"\bcomplications?\b",
    "outlook": r"\boutlook\b|\bprognosis\b",
    "inheritance": r"\binherited\b|\bhereditary\b|\bpassed down\b",
    "genetics": r"\bgenes?\b|\bgenetic changes?\b|\bmutations?\b",
    "stages": r"\bstages?\b",
    "research": r"\bresearch\b|\bclinical trials?\b",
    "frequency": r"\bhow many people\b|\bhow common\b|\baffected by\b",
    "diet": r"\bwhat to do for\b|\bdiet\b",
}
_KO_ASPECTS: dict[str, tuple[str, ...]] = {
    "side_effects": ("부작용", "이상반응"),
    "dosage": ("용량", "몇 알", "몇 mg", "몇mg", "몇 정", "하루 최대", "최대 용량", "하루에 몇",
               "얼마나 먹", "얼마까지 먹", "몇 번 먹", "몇 번 복용"),
    "interactions": ("같이 먹", "함께 먹", "같이 복용", "함께 복용", "병용", "상호작용", "같이 써", "함께 써"),
    "symptoms": ("증상", "징후"),
    "treatment": ("치료", "낫는", "관리하", "처치"),
    "causes": ("원인", "왜 생기", "왜 걸리"),
    "diagnosis": ("진단", "검사"),
    "prevention": ("예방", "백신"),
    "risk": ("위험 요인", "위험요인", "위험군", "잘 걸리"),
    "complications": ("합병증",),
    "outlook": ("예후", "경과"),
    "inheritance": ("유전되", "유전돼", "유전인가", "유전이"),
    "stages": ("병기",),
    "research": ("임상시험", "연구"),
    "genetics": ("유전자 변화", "유전자"),
    "frequency": ("얼마나 많은", "몇 명", "환자 수", "얼마나 흔"),
    "diet": ("어떻게 해야", "식단", "식사"),
}
_EN_ASPECT_RES = {a: re.compile(p) for a, p in _EN_ASPECTS.items()}

# Cues of an aspect in an English sentence (lower-case regexes matched at a word start), for
# overview passages.
_CUES: dict[str, tuple[str, ...]] = {
    "symptoms": ("symptom", r"signs?\b", "feel", "experience"),
    "treatment": ("treat", "therap", "surgery", "cure", "manag", "relieve", "antiviral", "insulin", "procedure",
                  "prescribe", "take medicine", "medicines to", "medicines that", "medicines can"),
    "side_effects": ("side effect", "adverse", "bleed", "risk of"),
    # a dose is a number with a unit or a count per day, never the word "dose" alone
    "dosage": (r"(?:\d+(?:\.\d+)?|one|two|three|four|five|six|eight|ten)(?:\s*(?:to|-|or)\s*\w+)?\s*"
               r"(?:mg|milligrams?|micrograms?|mcg|grams?|g|tablets?|pills?|capsules?|cups?|doses?|times)\b",),
    "interactions": ("interact", "together", "combin", "increase the risk", "bleed", "medicines and supplements"),
    "causes": ("cause", "due to", "result", "because", "happens when", "trigger", "spread", "get it from"),
    "diagnosis": ("diagnos", "test", "exam", "scan", "biopsy", "x-ray", "echocardiogram"),
    "prevention": ("prevent", "vaccin", "avoid", "reduce your risk", "reduce the risk", "hygiene", "wash"),
    "risk": ("risk", "more likely", "common in", "most often", "age"),
    "complications": ("complication", "lead to", "can cause"),
    "outlook": ("outlook", "prognosis", "recover", "survival", "chance"),
    "inheritance": ("inherit", "genetic", "family"),
    "genetics": ("gene", "mutation"),
    "stages": ("stage",),
    "research": ("research", "trial"),
    "frequency": ("affect", "common", "rare", "people"),
    "diet": ("diet", "eat", "food", "nutrition"),
}

_CUE_RES = {a: re.compile("|".join(rf"\b{c}" for c in cues)) for a, cues in _CUES.items()}


def _cued(aspects: Sequence[str], low: str) -> bool:
    return any(_CUE_RES[a].search(low) for a in aspects if a in _CUE_RES)


ASPECT_NAMES: dict[str, tuple[str, str]] = {
    "overview": ("개요", "overview"), "symptoms": ("증상", "symptoms"), "treatment": ("치료", "treatment"),
    "side_effects": ("부작용", "side effects"), "dosage": ("용량", "dose"),
    "interactions": ("같이 먹는 약과의 상호작용", "interactions"),
    "causes": ("원인", "causes"), "diagnosis": ("진단", "diagnosis"), "prevention": ("예방", "prevention"),
    "risk": ("위험 요인", "risk factors"), "complications": ("합병증", "complications"),
    "outlook": ("예후", "outlook"), "inheritance": ("유전 여부", "inheritance"),
    "genetics": ("유전자 변화", "genetic changes"),
    "stages": ("병기", "stages"), "research": ("연구·임상시험", "research"), "frequency": ("환자 수", "how common"),
    "diet": ("식사·생활 관리", "diet and eating"),
}
"""Korean and English names of the aspects, for "not covered" lists and the Korean framing."""

# Conditions that look alike and are not the same: a passage about one never answers the other.
_SIBLINGS: tuple[frozenset[str], ...] = (
    frozenset({"hypertension", "hypotension"}),
    frozenset({"type 1 diabetes", "type 2 diabetes", "gestational diabetes"}),
    frozenset({"hepatitis a", "hepatitis b", "hepatitis c"}),
    frozenset({"shingles", "chickenpox"}),
    frozenset({"hodgkin lymphoma", "non-hodgkin lymphoma"}),
    frozenset({"acute lymphoblastic leukemia", "acute myeloid leukemia", "chronic myeloid leukemia",
               "acute promyelocytic leukemia"}),
    frozenset({"hyperthyroidism", "hypothyroidism"}),
    frozenset({"heart attack", "heart failure"}),
)
ANTICOAGULANTS = frozenset({"warfarin", "heparin", "dabigatran", "rivaroxaban", "apixaban", "edoxaban",
                            "clopidogrel", "ticagrelor", "prasugrel", "enoxaparin", "cilostazol"})
_BLOOD_THINNER_WORDS = re.compile(r"blood[- ]?thinn|anticoagul|antiplatelet|혈액\s*희석|항응고|항혈소판|피를\s*묽게")


_QUALIFIERS = frozenset({"성인", "소아", "어린이", "아이", "노인"})
_DRUG_ASPECTS = frozenset({"side_effects", "interactions", "dosage"})


@lru_cache(maxsize=1)
def _DRUGS() -> frozenset[str]:  # noqa: N802 - a constant, read once
    from .lexicon import get_lexicon

    return frozenset(get_lexicon().drugs)


def heading_aspect(heading: str) -> str:
    """The aspect a passage answers, from its heading (the MedQuAD question): "What are the symptoms
    of Shingles ?" -> "symptoms"; "What is (are) ..." and headings we do not know -> "overview"."""
    for pattern, aspect in _HEADING_RES:
        if pattern.search(heading.strip()):
            return aspect
    named = question_aspects(heading) if heading.strip() else []  # a section of the user's own documents
    return named[0] if len(named) == 1 else "overview"


def question_aspects(text: str) -> list[str]:
    """The aspects a question asks for, in a fixed order (interactions before side effects)."""
    low = text.lower()
    found = [a for a, pattern in _EN_ASPECT_RES.items() if pattern.search(low)]
    found += [a for a, words in _KO_ASPECTS.items() if a not in found and any(w in text for w in words)]
    if "interactions" in found and "side_effects" in found and not re.search(r"side[- ]?effect|부작용", low):
        found.remove("side_effects")
    order = list(_EN_ASPECTS)
    return sorted(set(found), key=order.index)


# Korean nouns that name no topic of their own: what a question asks (약, 방법, 종류), about whom
# (아이, 성인), when (하루, 동안) or in what words (처방, 복용, 관리).
_KO_GENERIC = frozenset({
    "방법", "종류", "이유", "무엇", "정도", "경우", "동안", "이상", "이하", "최대", "최소", "하루", "매일",
    "가지", "얼마", "언제", "어디", "누구", "우리", "아이", "아기", "자녀", "어린이", "소아", "성인", "노인",
    "어른", "남성", "여성", "남자", "여자", "사람", "환자", "가족", "의사", "약사", "병원", "도움", "효과",
    "문제", "처방", "복용", "관리", "생활", "습관", "생활습관", "질환", "질병", "병", "몸", "건강", "상태",
    "정보", "내용", "문서", "설명", "특징", "차이", "다음", "처음", "초기", "평소", "요즘", "지금", "오늘",
    "나중", "주의", "조심", "필요", "가능", "사용", "약물", "의약품", "일반", "걱정", "진료", "상담", "주의점",
    "주의사항", "시간", "기간", "나이", "살", "개월", "주", "임산부", "수유", "부모", "증세", "통증", "전염",
    "감염", "발생", "발병", "회복", "완치", "재발", "수술", "약국", "음식", "식사",
})
_NOUN_TAGS = frozenset({"NNG", "NNP", "XR"})


def unknown_topic_words(text: str) -> list[str]:
    """The content nouns of a Korean question that neither the lexicon (drugs, conditions), nor the
    glossary (:data:`.query.ASPECTS`), nor the aspect words read: "C형 간염은" -> [] (the lexicon
    knows hepatitis C), "멀미는 왜 생기나요?" -> ["멀미"]. English and mixed words are left to the
    titles check of :meth:`TopicGuard.unknown_topic`."""
    from graphagents.korean import tokenize

    from .query import ASPECTS

    low = text.lower()
    known = [t.surface for t in find_terms(text)]
    known += [k for k in ASPECTS if k in text]
    known += [w for words in _KO_ASPECTS.values() for w in words if w in low]
    out: list[str] = []
    for morph in tokenize(text):
        form = morph.form
        if morph.tag not in _NOUN_TAGS or len(form) < 2 or not re.fullmatch(r"[가-힣]+", form):
            continue
        if form in _KO_GENERIC or any(form in k for k in known):
            continue
        word = _word_at(text, morph.start)  # the whole word Kiwi may have split: 비인후염 -> 비/인후/염
        if word not in out:
            out.append(word)
    return out


def _word_at(text: str, start: int) -> str:
    from graphagents.korean import strip_particles

    left = text.rfind(" ", 0, start) + 1
    right = min((i for i in (text.find(" ", start), len(text)) if i >= 0), default=len(text))
    word = re.sub(r"[^가-힣A-Za-z0-9]+$", "", text[left:right])
    stripped = strip_particles(word)
    return stripped if len(stripped) >= 2 else word


_EN_GENERIC = frozenset({
    "doctor", "doctors", "people", "person", "someone", "adult", "adults", "child", "children", "kids", "baby",
    "babies", "women", "men", "day", "days", "week", "weeks", "year", "years", "long", "term", "first", "best",
    "good", "safe", "much", "many", "often", "most", "way", "ways", "thing", "things", "happen", "happens", "get",
    "help", "need", "body", "health", "medicine", "medicines", "drug", "drugs", "pill", "pills", "home", "keep",
    "mind", "know", "tell", "done", "used", "use", "feel", "like", "problem", "problems", "take", "taking",
    "someone's", "person's", "mean", "means", "common", "normal", "usual", "usually", "okay", "ok", "bad",
})


def _entities(text: str) -> set[str]:
    return {t.canonical for t in find_terms(text)}


def siblings(entity: str) -> frozenset[str]:
    out: set[str] = set()
    for group in _SIBLINGS:
        if entity in group:
            out |= group - {entity}
    return frozenset(out)


@dataclass
class TopicGuard:
    """What the question asks about: ``entities`` (canonical drug and condition names) and
    ``aspects``; :meth:`allows` a sentence of a passage, or not."""

    entities: frozenset[str]
    aspects: tuple[str, ...]
    blood_thinner: bool = False
    _title_cache: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)

    @classmethod
    def for_question(cls, text: str, named: Sequence[str] = ()) -> TopicGuard:
        entities = frozenset({*named, *_entities(text)})
        thinner = bool(entities & ANTICOAGULANTS) or bool(_BLOOD_THINNER_WORDS.search(text.lower()))
        return cls(entities, tuple(question_aspects(text)), thinner)

    def unknown_topic(self, question: str, docs: Sequence[Mapping[str, Any]]) -> list[str]:
        """The question's topic words when the agent cannot tell what it is about: it names no drug
        or condition the lexicon knows, no topic the glossary knows, and its content words (Korean
        nouns the lexicon and glossary do not read; English words other than aspect and question
        words) name none of the retrieved passages' titles. [] when the topic is understood. The
        aspect guard alone would let any passage of the asked aspect answer ("편두통에 좋은 약"
        answered from another condition's treatment passage)."""
        if self.entities:
            return []
        from .query import _ENTITIES, ASPECT_WORDS, ASPECTS, focus_terms, is_korean

        if any(k in question for k in _ENTITIES if k in ASPECTS and k not in _QUALIFIERS):
            return []  # a glossary topic (두통, 진통제, 혈액 희석제 ...)
        titles = " ".join(str(d.get("title") or "") for d in docs).lower()
        title_words = set(re.findall(r"[a-z0-9]+", titles))

        def in_titles(word: str) -> bool:
            stem = word[:6] if len(word) > 6 else word
            return any(w.startswith(stem) for w in title_words) if len(stem) >= 3 else word in title_words

        latin = [w for w in re.findall(r"[a-z][a-z0-9'-]+", question.lower())
                 if w in focus_terms(question) and w not in ASPECT_WORDS and w not in _EN_GENERIC]
        if any(in_titles(w) for w in latin):
            return []
        if is_korean(question):
            return [*unknown_topic_words(question), *(w for w in latin if len(w) > 1)]
        words = [t for t in focus_terms(question) if t not in ASPECT_WORDS and t not in _EN_GENERIC
                 and not any(c.isdigit() for c in t)]
        return words

    @property
    def needs_bleeding_warning(self) -> bool:
        """A side-effect or interaction question about a blood thinner."""
        return self.blood_thinner and bool({"side_effects", "interactions"} & set(self.aspects))

    def topic_of(self, doc: Mapping[str, Any]) -> frozenset[str]:
        title = str(doc.get("title") or "")
        if title not in self._title_cache:
            self._title_cache[title] = frozenset(_entities(title))
        return self._title_cache[title]

    def entity_ok(self, sentence: str, doc: Mapping[str, Any]) -> bool:
        if not self.entities:
            return True
        topic = self.topic_of(doc)
        if topic & self.entities:
            return True
        if any(topic & siblings(e) for e in self.entities):
            return False  # a passage about high blood pressure never answers low blood pressure
        if topic and not self.entities & _DRUGS():
            return False  # a condition is answered by its own passages, not by a mention in another's
        named = _entities(sentence)
        if any(named & siblings(e) for e in self.entities) and not named & self.entities:
            return False
        return bool(named & self.entities)

    def aspect_ok(self, sentence: str, doc: Mapping[str, Any]) -> bool:
        if not self.aspects:
            return True
        own = heading_aspect(str(doc.get("heading") or ""))
        if own in self.aspects:
            return True
        low = sentence.lower()
        if any(word in sentence for aspect in self.aspects for word in _KO_ASPECTS.get(aspect, ())):
            return True  # a Korean document names the aspect itself
        # no passage is headed "side effects" or "interactions": a cue in any passage counts for them
        if _cued([a for a in self.aspects if a in _DRUG_ASPECTS], low):
            return True
        if own != "overview":
            return False  # a passage about treatment does not answer a question about symptoms
        return _cued(self.aspects, low)

    def matches(self, question: str, doc: Mapping[str, Any]) -> bool:
        """``doc`` is *the* passage for the question by its metadata: its title is the asked topic
        (the lexicon's entity, or every word of the title in the question) and its heading answers
        the asked aspect (an overview when none is asked)."""
        title = str(doc.get("title") or "")
        words = {w for w in re.findall(r"[a-z0-9]+", title.lower()) if len(w) > 1}
        about = bool(self.topic_of(doc) & self.entities) or bool(
            words and words <= set(re.findall(r"[a-z0-9]+", question.lower())))
        if not about:
            return False
        own = heading_aspect(str(doc.get("heading") or ""))
        return own in self.aspects if self.aspects else own == "overview"

    def allows(self, sentence: str, doc: Mapping[str, Any]) -> bool:
        return self.entity_ok(sentence, doc) and self.aspect_ok(sentence, doc)

    def coverage(self, docs: Sequence[Mapping[str, Any]], korean: bool) -> str:
        """What the retrieved documents do cover for the asked entities ("Blood Thinners: overview"),
        or that they have nothing on them; "" when the question names no entity."""
        if not self.entities:
            return ""
        seen: dict[str, list[str]] = {}
        for doc in docs:
            text = f"{doc.get('title', '')} {doc.get('text', '')}"
            topic = self.topic_of(doc)
            if any(topic & siblings(e) for e in self.entities) and not topic & self.entities:
                continue
            if not (topic & self.entities or _entities(text) & self.entities):
                continue
            aspect = ASPECT_NAMES[heading_aspect(str(doc.get("heading") or ""))][0 if korean else 1]
            aspects = seen.setdefault(str(doc.get("title") or doc.get("id") or ""), [])
            if aspect not in aspects:
                aspects.append(aspect)
        names = ", ".join(sorted(_display(e, korean) for e in self.entities))
        if not seen:
            return (f"문서에는 {names}에 대한 내용이 없습니다." if korean else
                    f"The documents have nothing on {names}.")
        listed = "; ".join(f"{_display_title(t, korean)}: {', '.join(a)}" for t, a in list(seen.items())[:4])
        return (f"문서가 {names}에 대해 다루는 내용: {listed}." if korean else
                f"What the documents cover about {names}: {listed}.")


def _display(canonical: str, korean: bool) -> str:
    name = korean_name(canonical) if korean else None
    return f"{name}({canonical})" if name else canonical


def _display_title(title: str, korean: bool) -> str:
    if not korean:
        return title
    names = [korean_name(t.canonical) for t in find_terms(title)]
    ko = next((n for n in names if n), None)
    return f"{ko}({title})" if ko else title
