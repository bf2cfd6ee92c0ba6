"""Scoring text2sql answers by execution, on our demo questions and on defog's benchmark.

``compare`` decides whether a predicted result answers a gold question; ``questions`` reads the
defog-layout CSVs; ``defog_loader`` puts the defog-data databases on a PostgreSQL server.
"""

from __future__ import annotations

from .compare import (
    QueryRows,
    expand_gold_alternatives,
    gold_is_ordered,
    matches_gold,
    normalize_value,
    question_asks_for_order,
    results_match,
)
from .defog_loader import available_defog_databases, load_defog_database
from .questions import Question, load_questions

__all__ = [
    "QueryRows",
    "Question",
    "available_defog_databases",
    "expand_gold_alternatives",
    "gold_is_ordered",
    "load_defog_database",
    "load_questions",
    "matches_gold",
    "normalize_value",
    "question_asks_for_order",
    "results_match",
]
