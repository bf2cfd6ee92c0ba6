"""Similar-query memory (note 7.2): reuse the SQL of past successful questions.

Rows live in the application database (SQLite or PostgreSQL through :mod:`graphagents.store`) so
they survive restarts and are shared by server workers; they are scoped by schema fingerprint
because SQL written for another schema is not a template for this one. Question embeddings are
stored with the row (base64 float32), so :meth:`QueryMemory.find` costs one query embedding plus
one matrix product, whatever the number of remembered questions.

Ranking, as in the note: ``score = similarity*0.5 + success_rate*0.3 + usage*0.2`` where
``success_rate = successes / (successes + failures)`` and ``usage = log1p(uses) / log1p(max uses
among this fingerprint's rows)``, a log scale so one very popular question does not flatten all
others to zero. ``score > 0.9`` -> IMMEDIATE_TEMPLATE_REUSE, ``> 0.7`` -> ADAPT_TEMPLATE, else
GENERATE_NEW. Because sentence encoders score "2023년 매출" vs "2024년 매출" well above 0.9, an
immediate reuse also requires the literals of both questions (numbers, quoted strings, entity words)
to be the same; otherwise the result is downgraded to ADAPT_TEMPLATE with a suggestion naming them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from graphagents.cache import literals
from graphagents.retrieval import Embedder, matvec
from graphagents.store import Database

Action = Literal["IMMEDIATE_TEMPLATE_REUSE", "ADAPT_TEMPLATE", "GENERATE_NEW"]
IMMEDIATE_THRESHOLD = 0.9
ADAPT_THRESHOLD = 0.7

_TABLE = "t2s_query_memory"
_DDL = (
    f"CREATE TABLE IF NOT EXISTS {_TABLE} ("
    " entry_key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, question TEXT NOT NULL, sql TEXT NOT NULL,"
    " successes INTEGER NOT NULL, failures INTEGER NOT NULL, uses INTEGER NOT NULL,"
    " value_mappings TEXT NOT NULL, embedding TEXT NOT NULL, updated_at DOUBLE PRECISION NOT NULL)"
)
_INDEX = f"CREATE INDEX IF NOT EXISTS {_TABLE}_fp ON {_TABLE} (fingerprint)"


@dataclass(frozen=True)
class SimilarQuery:
    question: str
    sql: str
    similarity: float
    success_rate: float
    usage: float
    score: float
    value_mappings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SimilarQueryResult:
    action: Action
    best: SimilarQuery | None
    candidates: tuple[SimilarQuery, ...]
    suggestions: tuple[str, ...]


def question_literals(question: str, entity_words: Iterable[str] = ()) -> frozenset[str]:
    """Numbers, quoted strings and known entity words: what must match for verbatim SQL reuse
    (the core's :func:`graphagents.cache.literals`, which semantic caches use the same way)."""
    return literals(question, entity_words)


class QueryMemory:
    """Past questions with their SQL, success counts and value mappings, per schema fingerprint.

    ``entity_words`` are names a caller knows to be literal values (e.g. region or category names
    from :class:`~graphagents.agents.text2sql.value_mapping.ValueMapper`); the natural words of every
    stored value mapping count too, so a memory learns the entities it has seen.
    """

    def __init__(self, db: Database, embedder: Embedder, *, entity_words: Iterable[str] = ()) -> None:
        self.db = db
        self.embedder = embedder
        self.entity_words = frozenset(w for w in entity_words if w)
        db.execute(_DDL)
        db.execute(_INDEX)

    def record(
        self,
        fingerprint: str,
        question: str,
        sql: str,
        *,
        success: bool,
        value_mappings: dict[str, Any] | None = None,
    ) -> None:
        """Count one use of ``sql`` for ``question``; a repeat updates counts instead of adding a row."""
        question, sql = question.strip(), sql.strip()
        if not question or not sql:
            return
        key = hashlib.sha256(f"{fingerprint}\x00{question}\x00{sql}".encode()).hexdigest()
        mappings = json.dumps(value_mappings or {}, ensure_ascii=False, sort_keys=True, default=str)
        rows = self.db.fetchall(f"SELECT value_mappings FROM {_TABLE} WHERE entry_key = ?", (key,))
        if rows:
            if not value_mappings:
                mappings = rows[0][0]
            self.db.execute(
                f"UPDATE {_TABLE} SET successes = successes + ?, failures = failures + ?, uses = uses + 1,"
                " value_mappings = ?, updated_at = ? WHERE entry_key = ?",
                (int(success), int(not success), mappings, time.time(), key),
            )
            return
        vector = self.embedder.embed_one(question).astype(np.float32)
        self.db.execute(
            f"INSERT INTO {_TABLE} (entry_key, fingerprint, question, sql, successes, failures, uses,"
            " value_mappings, embedding, updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?)"
            " ON CONFLICT (entry_key) DO NOTHING",
            (key, fingerprint, question, sql, int(success), int(not success), mappings,
             base64.b64encode(vector.tobytes()).decode("ascii"), time.time()),
        )

    def find(self, fingerprint: str, question: str, k: int = 5) -> SimilarQueryResult:
        """Top-``k`` remembered queries that succeeded at least once, and what to do with the best."""
        rows = self.db.fetchall(
            f"SELECT question, sql, successes, failures, uses, value_mappings, embedding FROM {_TABLE}"
            " WHERE fingerprint = ? AND successes > 0",
            (fingerprint,),
        )
        if not rows or not question.strip():
            return SimilarQueryResult("GENERATE_NEW", None, (), ())
        vectors = [np.frombuffer(base64.b64decode(r[6]), dtype=np.float32) for r in rows]
        # a vector of another width was made by another embedder: it cannot be compared
        rows = [r for r, v in zip(rows, vectors, strict=True) if len(v) == self.embedder.dim]
        if not rows:
            return SimilarQueryResult("GENERATE_NEW", None, (), ())
        matrix = np.stack([v for v in vectors if len(v) == self.embedder.dim])
        similarity = np.clip(matvec(matrix, self.embedder.embed_one(question)), 0.0, 1.0)
        max_log_uses = max(math.log1p(int(r[4])) for r in rows)
        scored = []
        for (q, sql, ok, bad, uses, mappings, _), sim in zip(rows, similarity, strict=True):
            success_rate = int(ok) / max(int(ok) + int(bad), 1)
            usage = math.log1p(int(uses)) / max_log_uses if max_log_uses > 0 else 0.0
            score = float(sim) * 0.5 + success_rate * 0.3 + usage * 0.2
            scored.append(SimilarQuery(q, sql, round(float(sim), 4), round(success_rate, 4),
                                       round(usage, 4), round(score, 4), json.loads(mappings)))
        scored.sort(key=lambda c: c.score, reverse=True)
        candidates = tuple(scored[: max(k, 1)])
        best = candidates[0]
        if best.score > IMMEDIATE_THRESHOLD:
            mismatch = self._literal_mismatch(question, best, scored)
            if not mismatch:
                return SimilarQueryResult("IMMEDIATE_TEMPLATE_REUSE", best, candidates, ())
            return SimilarQueryResult("ADAPT_TEMPLATE", best, candidates, (mismatch, *_ADAPT_HINTS))
        if best.score > ADAPT_THRESHOLD:
            return SimilarQueryResult("ADAPT_TEMPLATE", best, candidates, _ADAPT_HINTS)
        return SimilarQueryResult("GENERATE_NEW", None, candidates, ())

    def _literal_mismatch(self, question: str, best: SimilarQuery, rows: list[SimilarQuery]) -> str:
        """Empty when both questions carry the same literals; else a hint naming what differs."""
        words = set(self.entity_words)
        for row in rows:
            words.update(str(natural) for natural in row.value_mappings)
        new, old = question_literals(question, words), question_literals(best.question, words)
        if new == old:
            return ""
        changed = ", ".join(sorted(old - new)) or "-"
        added = ", ".join(sorted(new - old)) or "-"
        return f"literals differ from the remembered question: replace [{changed}] with [{added}]"


_ADAPT_HINTS = (
    "check that every table and column of the template exists in the current schema",
    "verify value mappings (codes) for the new question's values",
)

__all__ = [
    "ADAPT_THRESHOLD",
    "IMMEDIATE_THRESHOLD",
    "QueryMemory",
    "SimilarQuery",
    "SimilarQueryResult",
    "question_literals",
]
