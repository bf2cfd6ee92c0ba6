"""Units of the rag agent without a corpus: intent rules, the retrieval query, the composer's
framing and refusals, the judge's arithmetic, and the state reducer."""

from __future__ import annotations

import numpy as np
import pytest

from graphagents.agents.rag.compose import NOT_FOUND_EN, NOT_FOUND_KO, SentenceIndex, compose
from graphagents.agents.rag.intent import DYNAMIC_K, classify_offline
from graphagents.agents.rag.judge import answer_sentences, offline_feedback
from graphagents.agents.rag.query import aspects_of, focus_terms, profile_relevant, retrieval_query
from graphagents.agents.rag.state import add_docs
from graphagents.retrieval import load_embedder


@pytest.mark.parametrize(("text", "intent"), [
    ("안녕하세요!", "greeting"), ("hello", "greeting"), ("감사합니다~", "greeting"),
    ("당뇨병이 뭐예요?", "simple"), ("What is high blood pressure?", "simple"),
    ("메트포르민과 글리메피리드의 차이는 뭐예요?", "complex"),
    ("65세인데 제가 먹는 약이랑 같이 먹어도 되는지, 부작용은 뭔지 궁금해요?", "complex"),
    ("How is high blood pressure treated in older adults?", "moderate"),
    ("How is type 2 diabetes treated in older adults with kidney problems and high blood pressure and gout?",
     "complex"),
])
def test_intent_rules(text: str, intent: str) -> None:
    assert classify_offline(text).intent == intent
    assert DYNAMIC_K[intent] == {"greeting": 0, "simple": 3, "moderate": 8, "complex": 15}[intent]


def test_retrieval_query_adds_english_aspects_and_profile_terms_only_when_relevant() -> None:
    profile = {"medications": [{"name": "metformin"}], "conditions": ["diabetes"]}
    assert "side effects" in aspects_of("메트포르민 부작용이 뭐예요?")
    assert retrieval_query("고혈압 치료법은?", profile).startswith("고혈압 치료법은? ")
    assert "metformin" not in retrieval_query("고혈압 치료법은?", profile)  # not about the user
    assert profile_relevant("제가 조심해야 할 게 뭐예요?") and not profile_relevant("고혈압 치료법은?")
    assert "metformin" in retrieval_query("제가 조심해야 할 게 뭐예요?", profile)
    assert focus_terms("What are the symptoms of asthma?") == ["symptoms", "asthma"]


def test_state_reducer_accumulates_and_resets() -> None:
    assert add_docs([{"id": "a"}], [{"id": "b"}]) == [{"id": "a"}, {"id": "b"}]
    assert add_docs([{"id": "a"}], None) == []


@pytest.fixture(scope="module")
def embedder() -> object:
    return load_embedder("offline")


def test_composer_quotes_cites_and_declines(embedder: object) -> None:
    docs = [{"id": "d1", "title": "Asthma", "text": "Asthma is a disease that affects your lungs. "
             "Symptoms of asthma include wheezing, coughing and chest tightness."},
            {"id": "d2", "title": "Lice", "text": "Body lice are parasitic insects that live on clothing."}]
    index = SentenceIndex.build(docs, embedder)
    question = "What are the symptoms of asthma?"
    got = compose(question, docs, index, embedder.embed_one(question))  # type: ignore[attr-defined]
    assert not got.not_found and got.citations[0]["doc_index"] == 0
    assert "[1]" in got.answer and "Lice" not in got.answer and got.answer.startswith("From the documents:")
    off_topic = "How do I repair a carburetor?"
    refused = compose(off_topic, docs, index, embedder.embed_one(off_topic))  # type: ignore[attr-defined]
    assert refused.not_found and refused.answer.startswith(NOT_FOUND_EN) and not refused.citations
    empty = SentenceIndex.build([], embedder)
    ko = compose("천식 증상", [], empty, np.zeros(embedder.dim, np.float32))  # type: ignore[attr-defined]
    assert ko.answer.startswith(NOT_FOUND_KO)


def test_judge_scores_grounding_and_completeness(embedder: object) -> None:
    docs = [{"id": "d1", "text": "Symptoms of asthma include wheezing, coughing and chest tightness."}]
    index = SentenceIndex.build(docs, embedder)
    question = "What are the symptoms and treatment of asthma?"
    grounded = "From the documents:\n- Symptoms of asthma include wheezing, coughing and chest tightness. [1]"
    fb = offline_feedback(question, grounded, index, embedder)
    assert fb["grounding_score"] == 1.0 and "treatment" in fb["missing_info"]
    assert 0 < fb["completeness_score"] < 1 and fb["overall_score"] == pytest.approx(
        (fb["grounding_score"] + fb["completeness_score"]) / 2, abs=1e-3)
    invented = "Asthma is cured by eating bananas every morning."
    assert offline_feedback(question, invented, index, embedder)["grounding_score"] == 0.0
    framed = "문서에서 찾은 내용입니다 (원문 인용):\n- A sentence here. [1]\n※ note"
    assert answer_sentences(framed) == ["A sentence here."]


def test_a_quoted_bullet_is_not_doubled(embedder: object) -> None:
    """A passage sentence that starts with the source's own list bullet is quoted without it."""
    docs = [{"id": "d1", "title": "Asthma", "text": "- Symptoms of asthma include wheezing, coughing and chest "
             "tightness."}]
    index = SentenceIndex.build(docs, embedder)
    question = "What are the symptoms of asthma?"
    got = compose(question, docs, index, embedder.embed_one(question))  # type: ignore[attr-defined]
    assert not got.not_found
    assert "\n- Symptoms of asthma include" in got.answer and "- - " not in got.answer
