"""The offline answer: an extractive composer with numbered citations, and "not found" when nothing
in the retrieved passages supports an answer.

Every sentence of the retrieved passages is scored against the question: cosine similarity of the
multilingual encoder (so a Korean question finds English sentences) plus a bonus for each of the
question's focus terms the sentence contains. The best sentences (a few per question, at most two
per passage) are quoted verbatim, in the corpus's language, each followed by its passage's number;
numbers follow the order in which passages are first cited. A passage's heading (the question a
MedQuAD answer answers, a Markdown section) counts for its sentences: "What are the stages of X"
is where the stages are, even when the overview passage names X more often. Better-ranked passages
get a small prior, and an answer quotes few passages (2 / 3 / 5 by intent). The answer says which asked-about
aspects ("side effects") no quoted sentence covers, and declines when no sentence reaches
:data:`SUPPORT_THRESHOLD` or contains a topic of the question.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphagents.retrieval import sentences

from .guard import ASPECT_NAMES, TopicGuard, heading_aspect
from .query import ASPECT_WORDS, focus_terms, is_korean

__all__ = ["NOT_FOUND_EN", "NOT_FOUND_KO", "SUPPORT_THRESHOLD", "Composed", "SentenceIndex", "compose", "safety_note",
           "unknown_topic_reply"]

SUPPORT_THRESHOLD = 0.30
"""Least cosine (question vs sentence) for a sentence to be quoted; see docs/rag.md for how it was set."""
TERM_BONUS = 0.08  # per focus term the sentence contains (capped at 3)
MAX_PER_PASSAGE = 2
RANK_PRIOR = 0.05  # a sentence of the i-th retrieved passage (0-based) gets RANK_PRIOR / (1 + i)
HEADING_WEIGHT = 1.0  # times the cosine between the question and the passage's heading (its section)
SENTENCES_BY_INTENT = {"simple": 3, "moderate": 4, "complex": 6}
PASSAGES_BY_INTENT = {"simple": 1, "moderate": 2, "complex": 4}

NOT_FOUND_KO = "문서에서 이 질문에 대한 내용을 찾지 못했습니다."
NOT_FOUND_EN = "I could not find this in the documents."
_ASPECT_WORDS = ASPECT_WORDS
_WORD = re.compile(r"[a-z0-9]+")
_BULLET = re.compile(r"^\s*(?:[-*•·]\s+)+")


def safety_note(korean: bool) -> str:
    if korean:
        return ("※ 이 정보는 일반적인 의학 정보이며 진단이나 처방을 대신하지 않습니다. "
                "복용 중인 약이나 치료는 의사·약사와 상의하세요.")
    return ("Note: this is general medical information, not a diagnosis or prescription; "
            "talk to your doctor or pharmacist about your medicines and treatment.")


@dataclass(frozen=True)
class Sentence:
    doc_index: int
    text: str


@dataclass
class SentenceIndex:
    """The sentences of the retrieved passages with their vectors (embedded once per turn)."""

    items: list[Sentence]
    vectors: np.ndarray
    embedder: Any = None

    @classmethod
    def build(cls, docs: Sequence[Mapping[str, Any]], embedder: Any) -> SentenceIndex:
        items = [Sentence(i, s) for i, d in enumerate(docs) for s in sentences(str(d.get("text", "")))
                 if len(s) >= 20]
        if not items:
            return cls([], np.zeros((0, getattr(embedder, "dim", 1)), np.float32), embedder)
        return cls(items, np.asarray(embedder.embed([s.text for s in items]), np.float32), embedder)

    def similarities(self, vector: np.ndarray) -> np.ndarray:
        if not self.items:
            return np.zeros(0, np.float32)
        return self.vectors @ np.asarray(vector, np.float32)


@dataclass
class Composed:
    answer: str
    citations: list[dict[str, Any]] = field(default_factory=list)  # [{"ref": 1, "doc_index": i, ...}]
    quoted: list[str] = field(default_factory=list)
    not_found: bool = False
    missing: list[str] = field(default_factory=list)
    best_similarity: float = 0.0


def _korean_forms(term: str) -> list[str]:
    """How a Korean document says an English term: the lexicon's name of a drug or condition and
    the glossary's Korean aspect words ("side effects" -> 부작용)."""
    from .lexicon import korean_name
    from .query import ASPECTS

    forms = [ko for ko, english in ASPECTS.items() if term in english]
    name = korean_name(term)
    if name:
        forms.append(name)
    return forms


def _contains(text: str, term: str) -> bool:
    if is_korean(text) and any(form in text for form in _korean_forms(term)):
        return True
    if any(c.isdigit() for c in term):  # a quantity: "500mg" matches "500 mg"
        return term.lower().replace(" ", "") in re.sub(r"\s+", "", text.lower())
    words = set(_WORD.findall(text.lower()))
    parts = _WORD.findall(term.lower())
    if not parts:
        return False
    if len(parts) == 1:
        stem = parts[0][:6] if len(parts[0]) > 6 else parts[0]
        return any(w.startswith(stem) for w in words)
    return term.lower() in text.lower()


def covered(terms: Sequence[str], text: str) -> list[str]:
    return [t for t in terms if _contains(text, t)]


def compose(question: str, docs: Sequence[Mapping[str, Any]], index: SentenceIndex, question_vector: np.ndarray,
            *, intent: str = "moderate", extra_terms: Sequence[str] = (),
            gloss_vector: np.ndarray | None = None, required: Sequence[str] | None = None,
            guard: TopicGuard | None = None,
            entity_docs: Callable[[Sequence[str]], Sequence[Mapping[str, Any]]] | None = None) -> Composed:
    """The extractive answer to ``question`` from ``docs`` (best first). ``gloss_vector`` is the
    embedding of the question's English gloss (the retrieval query: aspects and canonical names in
    English); a sentence's similarity is the better of the two, which helps Korean questions.
    ``required``: when given, a quoted sentence must contain one of these (lower-case) substrings
    (after an emergency notice, only text about the symptom). ``guard``: the topic guard (entity and
    aspect asked; :mod:`.guard`); by default the one of ``question``. ``entity_docs``: passages that
    name the asked entities (a search by their names), for the "what the documents cover" line of a
    "not found" answer."""
    korean = is_korean(question)
    focus = [*focus_terms(question), *(t for t in extra_terms if t)]
    topics = [t for t in focus if t not in _ASPECT_WORDS]
    guard = guard if guard is not None else TopicGuard.for_question(question, [t for t in extra_terms if t])
    unknown = guard.unknown_topic(question, docs) if required is None else []
    if unknown:
        return Composed(unknown_topic_reply(unknown, korean), not_found=True, missing=unknown)
    sims = index.similarities(question_vector)
    if gloss_vector is not None and len(sims):
        sims = np.maximum(sims, index.similarities(gloss_vector))
    headings = [str(d.get("heading") or "") for d in docs]
    heading_sim = np.zeros(len(docs), np.float32)
    if any(headings) and index.embedder is not None:
        present = [i for i, h in enumerate(headings) if h]
        heading_sim[present] = np.asarray(index.embedder.embed([headings[i] for i in present]), np.float32) \
            @ np.asarray(question_vector, np.float32)
    scored: list[tuple[float, float, int]] = []
    for i, sentence in enumerate(index.items):
        hits = len(covered(focus, sentence.text))
        prior = RANK_PRIOR / (1 + sentence.doc_index) + HEADING_WEIGHT * float(heading_sim[sentence.doc_index])
        scored.append((float(sims[i]) + TERM_BONUS * min(hits, 3) + prior, float(sims[i]), i))
    scored.sort(key=lambda t: (-t[0], t[2]))
    best = scored[0][1] if scored else 0.0
    # A passage whose heading answers the asked aspect of the asked topic ("What is the outlook for
    # Whiplash?" -> the "outlook" passage of "Whiplash") needs no similarity threshold: its metadata
    # says what it answers; a question that asks no aspect is answered from overview passages when
    # the documents have one about its topic.
    strong = [guard.matches(question, d) for d in docs]
    # the passage answering the asked aspect of the asked topic is there: quote that section, not the
    # topic's overview or its other sections ("How do doctors tell that a rash is shingles?")
    section_only = bool(guard.aspects) and any(strong)
    overview_only = not guard.aspects and any(s and heading_aspect(str(d.get("heading") or "")) == "overview"
                                              for s, d in zip(strong, docs, strict=True))
    limit = SENTENCES_BY_INTENT.get(intent, 4)
    chosen: list[tuple[int, str]] = []
    seen: set[str] = set()
    per_doc: dict[int, int] = {}
    for _score, sim, i in scored:
        if len(chosen) >= limit:
            break
        sentence = index.items[i]
        if sim < (0.0 if strong[sentence.doc_index] else SUPPORT_THRESHOLD):
            continue
        if overview_only and heading_aspect(_doc_heading(docs, sentence.doc_index)) != "overview":
            continue
        if section_only and heading_aspect(_doc_heading(docs, sentence.doc_index)) not in guard.aspects:
            continue
        if per_doc.get(sentence.doc_index, 0) >= MAX_PER_PASSAGE:
            continue
        if sentence.doc_index not in per_doc and len(per_doc) >= PASSAGES_BY_INTENT.get(intent, 3):
            continue
        text = clean_sentence(sentence.text)
        if text is None:
            continue  # a heading or a question, not a fact
        key = _dedupe_key(text)
        if key in seen:
            continue  # the same sentence from another passage (MedQuAD repeats its summaries)
        doc = docs[sentence.doc_index] if sentence.doc_index < len(docs) else {}
        if topics and not covered(topics, sentence.text) and not covered(topics, _doc_title(docs, sentence.doc_index)):
            continue  # a sentence about something else the question did not ask about
        if not guard.allows(text, doc):
            continue  # another entity (high vs low blood pressure) or another aspect (treatment vs symptoms)
        if required is not None and not any(r in text.lower() for r in required):
            continue
        chosen.append((i, text))
        seen.add(key)
        per_doc[sentence.doc_index] = per_doc.get(sentence.doc_index, 0) + 1
    if chosen and guard.needs_bleeding_warning and not any("bleed" in t.lower() for _, t in chosen):
        chosen = []  # a side effect / interaction answer about a blood thinner without the bleeding warning
    if not chosen:
        text = NOT_FOUND_KO if korean else NOT_FOUND_EN
        parts = [text]
        extra = entity_docs(sorted(guard.entities)) if entity_docs is not None and guard.entities else ()
        cover = guard.coverage([*docs, *extra], korean)
        if cover:
            parts.append(cover)
        if guard.needs_bleeding_warning:
            parts.append(_bleeding_line(korean))
        return Composed("\n".join(parts) + f"\n\n{safety_note(korean)}", not_found=True, missing=list(focus),
                        best_similarity=round(best, 4))
    # passage numbers in order of first citation; sentences grouped by passage, in passage order
    chosen.sort(key=lambda c: (index.items[c[0]].doc_index, c[0]))
    refs: dict[int, int] = {}
    lines: list[str] = []
    quoted: list[str] = []
    for i, text in chosen:
        sentence = index.items[i]
        new = sentence.doc_index not in refs
        ref = refs.setdefault(sentence.doc_index, len(refs) + 1)
        english_source = not is_korean(text)
        if korean and new:
            lines.append(korean_frame(docs[sentence.doc_index], ref, english=english_source))
        lines.append(f"- 원문: {text} [{ref}]" if korean and english_source else f"- {text} [{ref}]")
        quoted.append(text)
    answer_text = " ".join(quoted) + " " + " ".join(_doc_title(docs, d) for d in refs)
    missing = _missing_aspects(guard, focus, answer_text, [docs[d] for d in refs], korean)
    if korean and not all(is_korean(q) for q in quoted):
        head = ("문서에서 찾은 내용입니다. 자료가 영어로 되어 있어 원문을 그대로 인용하고, "
                "각 문서가 무엇에 관한 것인지 한국어로 적었습니다.")
    else:
        head = "문서에서 찾은 내용입니다:" if korean else "From the documents:"
    parts = [head, *lines]
    if missing:
        names = ", ".join(missing)
        parts.append(f"\n문서에서 다음 내용은 찾지 못했습니다: {names}." if korean
                     else f"\nThe documents do not cover: {names}.")
    if guard.needs_bleeding_warning:
        parts.append("\n" + _bleeding_line(korean))
    parts.append("\n" + safety_note(korean))
    citations = [{"ref": ref, "doc_index": d} for d, ref in sorted(refs.items(), key=lambda kv: kv[1])]
    return Composed("\n".join(parts), citations, quoted, False, missing, round(best, 4))


def unknown_topic_reply(words: Sequence[str], korean: bool) -> str:
    """The decline for a question whose topic the agent cannot read: which words, and what works."""
    listed = ", ".join(f"'{w}'" for w in words[:4])
    if korean:
        return (f"{NOT_FOUND_KO}\n질문의 {listed}이(가) 어떤 병이나 약인지 알아듣지 못해 답하지 않았습니다. "
                "잘못된 문서로 답하지 않기 위해서입니다. 병이나 약의 다른 이름이나 영어 이름으로 다시 물어봐 주세요 "
                "(예: 'migraine의 치료법은 무엇인가요?', '대상포진 증상').\n\n" + safety_note(True))
    return (f"{NOT_FOUND_EN}\nNone of the documents I found is about {listed}, so I did not answer "
            "(I do not recognise it as a condition or medicine I have documents on). Ask with the condition's "
            "or medicine's usual name, e.g. 'What are the symptoms of shingles?'.\n\n" + safety_note(False))


def _bleeding_line(korean: bool) -> str:
    return ("혈액 희석제(항응고제)를 드시는 중이라면 다른 약을 함께 먹기 전에 출혈 위험을 의사·약사와 꼭 상의하세요."
            if korean else "If you take a blood thinner, ask your doctor or pharmacist about bleeding risk before "
            "taking any other medicine with it.")


_GLUED_HEADING = re.compile(r"^([A-Z][^.?!]{0,60}?)\.(?=[A-Z][a-z])")
_CAPITAL_FUNCTION = frozenset({"A", "An", "The", "By", "Of", "For", "To", "In", "On", "With", "And", "Or", "If", "You",
                               "Your", "Is", "Are", "Do", "Does", "What", "How", "When", "Who", "Why", "Then",
                               "About", "From", "At", "It"})
_CONNECTORS = frozenset({"a", "an", "the", "of", "and", "or", "to", "for", "in", "on", "with", "by"})


def clean_sentence(text: str) -> str | None:
    """A quotable sentence: the source's bullet, a heading glued in front ("Chest pain or
    discomfort.Most heart attacks ...", "Caused By A Virus Shingles is caused ...") removed; None for
    a heading or a question ("What Causes Shingles?")."""
    text = _BULLET.sub("", text).strip()
    if not text or text.endswith("?") or text.endswith(":"):
        return None
    glued = _GLUED_HEADING.match(text)
    if glued and len(glued.group(1).split()) <= 8:
        text = text[glued.end():].strip()
    words = text.split()
    prefix = 0
    for n, word in enumerate(words):
        bare = word.strip(",;")
        if bare[:1].isupper() or (n and bare in _CONNECTORS):
            prefix = n + 1
            continue
        break
    head = words[:prefix]
    if len(head) >= 3 and any(w.strip(",") in _CAPITAL_FUNCTION for w in head[1:]) or \
            len(head) >= 3 and sum(w.endswith(",") for w in head) >= 2:
        # a headline run ("Burning, Itching, Tingling, Then a Rash An outbreak ..."): the sentence
        # starts at its last capitalised word
        last = max(n for n, w in enumerate(head) if w[:1].isupper())
        if last > 0:
            text = " ".join(words[last:])
    if len(text) < 20 or not re.search(r"[a-z가-힣]{2,}\s+[a-z가-힣]{2,}", text):
        return None
    return text


def _dedupe_key(text: str) -> str:
    return re.sub(r"[^a-z0-9가-힣]+", "", text.lower())


def korean_frame(doc: Mapping[str, Any], ref: int, *, english: bool = True) -> str:
    """The Korean line above a passage's quotes: which document it is and what it is about, from
    the lexicon's Korean name of its topic and the aspect its heading answers ("[1] 대상포진(Shingles)의
    증상에 관한 영어 문서")."""
    from .lexicon import find_terms, korean_name

    title = str(doc.get("title") or "")
    aspect = ASPECT_NAMES[heading_aspect(str(doc.get("heading") or ""))][0]
    names = [korean_name(t.canonical) for t in find_terms(title)]
    ko = next((n for n in names if n), None)
    if not title:
        return f"[{ref}] {aspect}에 관한 {'영어 ' if english else ''}문서:"
    subject = f"{ko}({title})" if ko or not english else f"{title}(한국어 이름 없음)"
    if not english and not ko:
        subject = title
    return f"[{ref}] {subject}의 {aspect}에 관한 {'영어 ' if english else ''}문서:"


def _missing_aspects(guard: TopicGuard, focus: Sequence[str], answer_text: str,
                     cited: Sequence[Mapping[str, Any]], korean: bool) -> list[str]:
    """The asked aspects and entities the quoted sentences do not cover, by name (never plain words)."""
    from .lexicon import find_terms, korean_name

    out: list[str] = []
    named = {t.canonical for t in find_terms(answer_text)}
    own = {heading_aspect(str(d.get("heading") or "")) for d in cited}
    for aspect in guard.aspects:
        if aspect in own or guard.aspect_ok(answer_text, {"heading": ""}):
            continue
        out.append(ASPECT_NAMES[aspect][0 if korean else 1])
    for entity in sorted(guard.entities):
        if entity not in named and not _contains(answer_text, entity):
            name = korean_name(entity) if korean else None
            out.append(f"{name}({entity})" if name else entity)
    del focus
    return out


def _doc_heading(docs: Sequence[Mapping[str, Any]], i: int) -> str:
    return str(docs[i].get("heading") or "") if 0 <= i < len(docs) else ""


def _doc_title(docs: Sequence[Mapping[str, Any]], i: int) -> str:
    return str(docs[i].get("title") or "") if 0 <= i < len(docs) else ""
