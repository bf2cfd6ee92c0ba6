"""Never silently wrong: a meaning-changing word is expressed in the SQL, or the composer declines.

Each case is a question whose naive reading drops a word ("없는", "which", "마다", "or", ...). A
case with a gold query must be answered and match it; a case without one must be declined with a
reason that names the word. Either way the answer is never a confident wrong one.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from t2s_helpers import rows as _rows

from graphagents.agents.text2sql.demo import demo_questions_path
from graphagents.agents.text2sql.offline import ComposeContext, compose
from graphagents.agents.text2sql.offline.cues import find_cues
from graphagents.agents.text2sql.offline.parse import parse_question
from graphagents.agents.text2sql.offline.result import confidence_line, stated_confidence
from graphagents.agents.text2sql.schema import load_schema_graph
from graphagents.sql import Database, Question, load_questions, matches_gold, open_database

# (question, gold): the composer must answer exactly this.
ANSWERED = [
    # the two failures the issue reports
    ("리뷰가 한 번도 없는 상품은 몇 개야?",
     "SELECT COUNT(*) FROM products p WHERE NOT EXISTS (SELECT 1 FROM reviews r WHERE r.product_id = p.product_id)"),
    ("Which employee has the highest salary?", "SELECT employee_name FROM employees ORDER BY salary DESC LIMIT 1"),
    # negation turned into SQL
    ("How many customers never placed an order?",
     "SELECT COUNT(*) FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.customer_id)"),
    ("주문을 안 한 고객 수",
     "SELECT COUNT(*) FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.customer_id)"),
    ("취소 안 된 주문 몇 건이야?", "SELECT COUNT(*) FROM orders WHERE status_code <> 'C'"),
    ("How many orders were not cancelled?", "SELECT COUNT(*) FROM orders WHERE status_code <> 'C'"),
    ("서울 말고 다른 지역 고객 수", "SELECT COUNT(*) FROM customers WHERE region_code <> 'SEL'"),
    # which / who with a superlative: the row, not the value
    ("Who has the highest salary?", "SELECT employee_name FROM employees ORDER BY salary DESC LIMIT 1"),
    ("Which product has the lowest price?", "SELECT product_name FROM products ORDER BY price ASC LIMIT 1"),
    ("What is the highest salary?", "SELECT MAX(salary) FROM employees"),
    # each / per / 마다
    ("How many orders does each customer have?", "SELECT customer_id, COUNT(*) FROM orders GROUP BY customer_id"),
    ("매장마다 직원이 몇 명씩 있어?", "SELECT store_id, COUNT(*) FROM employees GROUP BY store_id"),
    # or -> IN
    ("서울 또는 부산에 사는 고객 수", "SELECT COUNT(*) FROM customers WHERE region_code IN ('SEL', 'BSN')"),
    ("How many orders were paid with KakaoPay or NaverPay?",
     "SELECT COUNT(*) FROM payments WHERE method_code IN ('KP', 'NP')"),
    # only, said of a value
    ("VIP 고객만 몇 명이야?", "SELECT COUNT(*) FROM customers WHERE grade_code = 'V'"),
    # ordering words with their direction
    ("List products sorted by price descending", "SELECT product_id, price FROM products ORDER BY price DESC"),
]  # fmt: skip

# (question, the word the reason must name): the composer must decline.
DECLINED = [
    ("두 번째로 비싼 상품", "두 번째"),
    ("the second most expensive product", "second"),
    ("카카오페이와 네이버페이 둘 다 쓴 고객", "둘 다"),
    ("같은 지역에 사는 고객", "같은"),
    ("작년 대비 매출 증가율", "증가"),
    ("What is the median salary?", "median"),
    ("Products more expensive than the average", "more"),
    ("서울과 부산 고객 수", "SEL"),  # one column cannot hold both values: either, or rows of both?
    ("How many happy customers are there?", "happy"),  # an unknown modifier is never dropped
    ("customers who used both KakaoPay and NaverPay", "both"),
    ("Which products are the cheapest and most expensive?", "superlative"),
]


@pytest.mark.parametrize(("question", "gold"), ANSWERED)
def test_meaning_word_is_expressed(demo: tuple[ComposeContext, Database], question: str, gold: str) -> None:
    ctx, db = demo
    result = compose(question, ctx)
    assert result.sql is not None, result.reason
    assert matches_gold(gold, _rows(db, result.sql), lambda s: _rows(db, s), question=question,
                        dialect="sqlite"), (result.sql, result.reason)


@pytest.mark.parametrize(("question", "word"), DECLINED)
def test_meaning_word_not_expressed_is_declined(demo: tuple[ComposeContext, Database], question: str,
                                                word: str) -> None:
    ctx, _ = demo
    result = compose(question, ctx)
    assert result.sql is None, f"answered {result.sql!r} instead of declining"
    assert word.lower() in result.reason.lower(), result.reason
    assert result.confidence == 0.0


def test_negation_pairs_never_share_an_answer(demo: tuple[ComposeContext, Database]) -> None:
    """The positive and the negated question either differ or one of them is declined."""
    ctx, db = demo
    for plain, negated in [("리뷰가 있는 상품은 몇 개야?", "리뷰가 한 번도 없는 상품은 몇 개야?"),
                           ("취소된 주문 몇 건이야?", "취소 안 된 주문 몇 건이야?"),
                           ("How many customers placed an order?", "How many customers never placed an order?")]:
        a, b = compose(plain, ctx), compose(negated, ctx)
        if a.sql and b.sql:
            assert _rows(db, a.sql) != _rows(db, b.sql), (plain, a.sql, b.sql)


@pytest.mark.parametrize(("text", "kinds"), [
    ("리뷰가 한 번도 없는 상품은 몇 개야?", {"negation"}),
    ("10만원 이상 상품", set()),  # the number's 만 is not the particle "only", and 이상 was understood
    ("서울만 보여줘", {"only"}),
    ("어느 정도 팔렸어?", set()),  # "어느 정도" is "how much", not "which"
    ("어느 매장이 제일 많이 팔았어?", {"entity"}),
    ("Which employee has the highest salary?", {"entity"}),
    ("How many different customers ordered?", set()),  # "different" is "distinct", not a change
    ("Which products were ordered in order 500?", {"entity"}),  # "ordered" here is a purchase, not a sort
    ("Customers in Seoul or Busan", {"or"}),
    ("Products more expensive than the average", {"comparative"}),
    ("Products more than 5,000 won", set()),  # an understood comparison is blanked from the leftover
    ("매장마다 직원 수", {"each"}),
])  # fmt: skip
def test_cue_finder(text: str, kinds: set[str]) -> None:
    assert {c.kind for c in find_cues(parse_question(text))} == kinds


def test_every_answer_states_its_confidence_in_the_question_language(demo: tuple[ComposeContext, Database]) -> None:
    ctx, _ = demo
    korean = compose("서울에 사는 VIP 고객 수", ctx)
    english = compose("How many VIP customers live in Seoul?", ctx)
    assert korean.sql and english.sql
    assert korean.language == "ko" and "확신도:" in korean.reason and "Confidence" not in korean.reason
    assert english.language == "en" and "Confidence:" in english.reason and "테이블" not in english.reason
    for result in (korean, english):
        assert 0.2 <= result.confidence <= 1.0
        assert stated_confidence(result.reason) == result.confidence
    declined = compose("What is the median salary?", ctx)
    assert declined.language == "en" and not any("\uac00" <= ch <= "\ud7a3" for ch in declined.reason)


def test_confidence_line_round_trips() -> None:
    assert confidence_line(0.9, "ko") == "확신도: 높음 (0.90)"
    assert confidence_line(0.7, "en") == "Confidence: medium (0.70)"
    assert confidence_line(0.3, "en") == "Confidence: low (0.30)"
    reply = "결과 1행\n\n" + confidence_line(0.65, "ko")
    assert stated_confidence(reply) == 0.65
    assert stated_confidence("no statement here") is None


def test_a_word_nobody_placed_costs_confidence(demo: tuple[ComposeContext, Database]) -> None:
    ctx, _ = demo
    clean = compose("How many customers are there?", ctx)
    fuzzy = compose("How many customers live in Busan?", ctx)  # a romanised value match, not an exact one
    assert clean.confidence == 1.0
    assert fuzzy.sql is not None and fuzzy.confidence < clean.confidence


# ------------------------------------------------------------------ the measured sets


def _split(ctx: ComposeContext, db: Database, questions: list[Question]) -> tuple[int, int, list[str]]:
    correct, declined, wrong = 0, 0, []
    for q in questions:
        result = compose(q.question, ctx)
        if result.sql is None:
            declined += 1
        elif matches_gold(q.query, _rows(db, result.sql), lambda s: _rows(db, s), question=q.question,
                          dialect=db.dialect):
            correct += 1
        else:
            wrong.append(f"{q.question} -> {result.sql}")
    return correct, declined, wrong


def test_heldout_split(demo: tuple[ComposeContext, Database]) -> None:
    """Never tuned on: wrong answers stay at most 3% and every correct answer of the last run stays."""
    ctx, db = demo
    questions = load_questions(Path(demo_questions_path()).with_name("questions_heldout.csv"))
    correct, declined, wrong = _split(ctx, db, questions)
    assert len(wrong) <= 0.03 * len(questions), wrong
    assert correct >= 31, (correct, declined, wrong)


@pytest.mark.postgres
def test_defog_dev_split(pg_admin_url: str, defog_csv: Path, tmp_path: Path) -> None:
    """Public databases the composer never saw: at most 3% wrong, and no correct answer lost."""
    from graphagents.sql._defog import load_defog_database

    questions = load_questions(defog_csv)
    by_db: dict[str, list[Question]] = {}
    for q in questions:
        by_db.setdefault(q.db_name, []).append(q)
    correct, wrong = 0, []
    for name, group in by_db.items():
        db = open_database(load_defog_database(name, pg_admin_url))
        try:
            ctx = ComposeContext(graph=load_schema_graph(db, data_dir=tmp_path / name), db=db, dialect="postgres")
            c, _, w = _split(ctx, db, group)
        finally:
            db.close()
        correct += c
        wrong += w
    assert len(wrong) <= 0.03 * len(questions), wrong
    assert correct >= 21, (correct, wrong)


def test_reply_language_follows_the_question() -> None:
    from graphagents.agents.text2sql.offline.language import PHRASES, phrase, reply_language

    assert reply_language("How many orders were paid with KakaoPay?") == "en"
    assert reply_language("KakaoPay로 결제한 주문 수") == "ko"
    assert phrase("no_rows", "How many?") == "No rows match the question."
    assert phrase("rows", "주문 수", n=3, truncated="") == "결과 3행:"
    assert "median" in phrase("cannot_compose", "What is the median?", reason="'median' is not supported.")
    assert all(set(texts) == {"ko", "en"} for texts in PHRASES.values())


def test_english_works_as_well_as_korean(demo: tuple[ComposeContext, Database]) -> None:
    """questions_en.csv: English versions of Korean development questions, with the same golds."""
    ctx, db = demo
    english = load_questions(Path(demo_questions_path()).with_name("questions_en.csv"))
    assert len(english) >= 60 and not any("\uac00" <= ch <= "\ud7a3" for q in english for ch in q.question)
    correct, _, wrong = _split(ctx, db, english)
    assert not wrong and correct >= len(english) - 1, (correct, wrong)


@pytest.mark.parametrize(("word", "label", "score"), [
    ("KakaoPay", "카카오페이", 0.85), ("카카오페이", "KakaoPay", 0.85), ("Silver", "실버", 0.85),
    ("manager", "매니저", 0.85), ("Busan", "부산", 0.9), ("Seoul Gangnam store", "서울 강남점", 0.9),
    ("kakaobank", "카카오페이", 0.0), ("Seoul", "Seoul", 0.0), ("pay", "페이", 0.0),  # too short to be evidence
])  # fmt: skip
def test_alias_score_in_both_directions(word: str, label: str, score: float) -> None:
    from graphagents.agents.text2sql.offline.aliases import alias_score

    assert alias_score(word, label) == score


def test_value_mapper_maps_both_ways(tmp_path: Path) -> None:
    import sqlite3

    from graphagents.agents.text2sql.value_mapping import ValueMapper

    path = tmp_path / "en.db"
    with sqlite3.connect(path) as con:
        con.executescript("CREATE TABLE members (id INTEGER PRIMARY KEY, tier TEXT, wallet TEXT);"
                          "INSERT INTO members VALUES (1, 'Silver', '카카오페이'), (2, 'Gold', '네이버페이');")
    con.close()
    db = open_database(str(path))
    mapper = ValueMapper(db, load_schema_graph(db, data_dir=tmp_path / "graph"))
    korean_word = mapper.map("실버", "members", "tier")  # Korean word -> English stored value
    english_word = mapper.map("KakaoPay", "members", "wallet")  # English word -> Korean stored value
    assert korean_word is not None and (korean_word.value, korean_word.source) == ("Silver", "alias_value")
    assert english_word is not None and english_word.value == "카카오페이"
    assert mapper.map("브론즈", "members", "tier") is None
    db.close()
