"""Law search: named articles are looked up exactly, colloquial words reach the statutes' terms,
relevance needs lexical evidence, and the index is built once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from graphagents.agents.supervisor.data import load_articles
from graphagents.agents.supervisor.tools.law_index import LawIndex
from graphagents.agents.supervisor.tools.laws import article_refs, expand
from graphagents.retrieval import load_embedder


@pytest.fixture(scope="module")
def where(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("laws")


@pytest.fixture(scope="module")
def index(dataset: Path, where: Path) -> LawIndex:
    return LawIndex.open(load_articles(dataset), None, load_embedder(), data_dir=where)


def test_named_articles(articles: dict[str, Any]) -> None:
    text = "주택임대차보호법 제6조의3과 민법 제623조, 그리고 제7조; 3조 원은 금액"
    assert article_refs(text, articles) == ["주임법:제6조의3", "민법:제623조", "주임법:제7조"]
    assert article_refs("공인중개사법 제99조", articles) == []  # not in the data: not invented


def test_colloquial_words_map_to_statute_terms_by_lemma() -> None:
    assert "증액청구" in expand("보증금을 얼마나 올릴 수 있어?")  # 올릴 -> 올리다
    assert "임대인" in expand("집주인이 안 돌려줘요")
    assert expand("오늘 날씨") == []


@pytest.mark.parametrize(("query", "article"), [
    ("전입신고를 하면 대항력은 언제부터 생겨요?", "주임법:제3조"),
    ("확정일자는 어디서 받을 수 있어?", "주임법:제3조의6"),
    ("중개사가 자기가 중개하는 집을 직접 사도 되나요?", "공인중개사법:제33조"),
    ("집을 사면 실거래 신고는 며칠 안에 해야 해?", "부동산거래신고법:제3조"),
])
def test_the_article_that_answers_is_among_the_relevant_hits(index: LawIndex, query: str, article: str) -> None:
    found = index.search(query)
    relevant = [h["id"] for h in found["hits"] if h["relevant"]]
    assert article in relevant[:3]
    assert found["relevant"] == len(relevant)


def test_named_articles_come_first_and_sales_do_not_count_lease_articles(index: LawIndex) -> None:
    found = index.search("계약 주의사항", ["주택임대차보호법 제3조의7"])
    assert found["hits"][0]["id"] == "주임법:제3조의7" and found["hits"][0]["match"] == "named"
    sale = index.search("아파트 매매 계약서 쓸 때 주의할 점", sale_only=True)
    assert all(not h["relevant"] for h in sale["hits"] if h["law"] in ("주택임대차보호법", "민법"))


def test_the_index_is_built_once(index: LawIndex, dataset: Path, where: Path) -> None:
    live = sum(1 for a in load_articles(dataset) if not a.deleted)
    assert index.built is not None and index.built.added == live == len(index.store)
    again = LawIndex.open(load_articles(dataset), None, load_embedder(), data_dir=where)
    assert again.built is not None and (again.built.added, again.built.updated) == (0, 0)


def test_the_questions_words_outweigh_the_thesaurus_additions() -> None:
    weighted = LawIndex.query_terms("집주인이 수리를 안 해줘요", [], broaden=False)
    assert weighted["집주인"] == 1.0 and weighted["수리"] == 1.0
    assert weighted["임대인"] == 0.3  # 집주인 -> 임대인, added by the thesaurus
    assert LawIndex.query_terms("계약", ["임대인"], broaden=False)["임대인"] == 1.0  # the plan's keyword is deliberate


def test_a_thesaurus_title_does_not_pull_every_landlord_question_to_one_article(index: LawIndex) -> None:
    """집주인 -> [임대인, 임대인의 의무]: at full weight the article titled 임대인의 의무 (민법 제623조) came
    first for any question naming the landlord."""
    cases = (("집주인 허락 없이 전세를 다른 사람에게 넘겨도 되나요?", "민법:제629조"),
             ("집주인이 나가 달라는데 계약 기간을 정하지 않았어요. 얼마 뒤에 나가야 하나요?", "민법:제635조"))
    for query, article in cases:
        relevant = [h["id"] for h in index.search(query)["hits"] if h["relevant"]]
        assert article in relevant[:3], (query, relevant)
        assert relevant[0] != "민법:제623조"
