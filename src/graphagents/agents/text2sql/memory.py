"""Similar-query memory (note 7.2): reuse the SQL of past successful questions.

Rows live in the application database (SQLite or PostgreSQL through :mod:`graphagents.store`) so
they survive restarts and are shared by server workers. They are scoped twice (issue 10): by user and
database (:class:`MemoryScope`, the same hashed scope as the result cache), because a question is the
asking user's data and must never become an example in another user's prompt; and by schema
fingerprint, because SQL written for another schema is not a template for this one. Each row also
carries a hash of its owner alone, so a user's rows can be exported and erased whatever database they
were asked against (:func:`export_user_entries`, :func:`delete_user_entries`); neither hash shows
the user id or the database URL. Question embeddings are
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
from graphagents.store import Database, Migration, migrate

from .query_cache import cache_scope

Action = Literal["IMMEDIATE_TEMPLATE_REUSE", "ADAPT_TEMPLATE", "GENERATE_NEW"]
IMMEDIATE_THRESHOLD = 0.9
ADAPT_THRESHOLD = 0.7

_TABLE = "t2s_user_query_memory"
# The table before issue 10: one pool shared by every user. Its rows cannot be attributed to anyone
# (so neither exported nor erased per user) and must not reach any prompt: it is dropped.
_LEGACY_TABLE = "t2s_query_memory"
_DDL = (
    f"CREATE TABLE IF NOT EXISTS {_TABLE} ("
    " entry_key TEXT PRIMARY KEY, scope TEXT NOT NULL, owner TEXT NOT NULL, fingerprint TEXT NOT NULL,"
    " question TEXT NOT NULL, sql TEXT NOT NULL,"
    " successes INTEGER NOT NULL, failures INTEGER NOT NULL, uses INTEGER NOT NULL,"
    " value_mappings TEXT NOT NULL, embedding TEXT NOT NULL, updated_at DOUBLE PRECISION NOT NULL)"
)
_INDEXES = (
    f"CREATE INDEX IF NOT EXISTS {_TABLE}_scope_fp ON {_TABLE} (scope, fingerprint)",
    f"CREATE INDEX IF NOT EXISTS {_TABLE}_owner ON {_TABLE} (owner)",
)


_MIGRATIONS: list[Migration] = [
    # 1: per-user scoped rows (the unscoped table of earlier versions is dropped)
    [f"DROP TABLE IF EXISTS {_LEGACY_TABLE}", _DDL, *_INDEXES],
]


def ensure_table(db: Database) -> None:
    """Bring the memory table to its current version (:func:`graphagents.store.migrate`)."""
    migrate(db, "text2sql.query_memory", _MIGRATIONS)


def memory_owner(user_id: str) -> str:
    """The owner column of a user's rows: a hash, so the table never shows the user id."""
    return hashlib.sha256(f"text2sql-memory\x00{user_id}".encode()).hexdigest()[:24]


@dataclass(frozen=True)
class MemoryScope:
    """Whose memory a turn reads and writes: one user's, for one database (both only as hashes)."""

    scope: str
    owner: str

    @classmethod
    def for_user(cls, user_id: str, database: str) -> MemoryScope:
        """The same scope as the result cache (:func:`.query_cache.cache_scope`): user + database URL."""
        return cls(cache_scope(user_id, database), memory_owner(user_id))


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
    """Past questions with their SQL, success counts and value mappings, per user scope and schema
    fingerprint.

    ``entity_words`` are names a caller knows to be literal values (e.g. region or category names
    from :class:`~graphagents.agents.text2sql.value_mapping.ValueMapper`); the natural words of every
    stored value mapping count too, so a memory learns the entities it has seen.
    """

    def __init__(self, db: Database, embedder: Embedder, *, entity_words: Iterable[str] = ()) -> None:
        self.db = db
        self.embedder = embedder
        self.entity_words = frozenset(w for w in entity_words if w)
        ensure_table(db)

    def record(
        self,
        fingerprint: str,
        question: str,
        sql: str,
        *,
        success: bool,
        scope: MemoryScope,
        value_mappings: dict[str, Any] | None = None,
    ) -> None:
        """Count one use of ``sql`` for ``question`` in ``scope``; a repeat updates counts instead of
        adding a row."""
        question, sql = question.strip(), sql.strip()
        if not question or not sql:
            return
        key = hashlib.sha256(f"{scope.scope}\x00{fingerprint}\x00{question}\x00{sql}".encode()).hexdigest()
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
            f"INSERT INTO {_TABLE} (entry_key, scope, owner, fingerprint, question, sql, successes, failures,"
            " uses, value_mappings, embedding, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)"
            " ON CONFLICT (entry_key) DO NOTHING",
            (key, scope.scope, scope.owner, fingerprint, question, sql, int(success), int(not success), mappings,
             base64.b64encode(vector.tobytes()).decode("ascii"), time.time()),
        )

    def find(self, fingerprint: str, question: str, k: int = 5, *, scope: MemoryScope) -> SimilarQueryResult:
        """Top-``k`` queries remembered in ``scope`` that succeeded at least once, and what to do with
        the best. Another user's questions are never candidates."""
        rows = self.db.fetchall(
            f"SELECT question, sql, successes, failures, uses, value_mappings, embedding FROM {_TABLE}"
            " WHERE scope = ? AND fingerprint = ? AND successes > 0",
            (scope.scope, fingerprint),
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


def export_user_entries(db: Database, user_id: str) -> list[dict[str, Any]]:
    """Every row ``user_id`` owns, whatever database it was asked against (without the embedding)."""
    ensure_table(db)
    rows = db.fetchall(
        f"SELECT fingerprint, question, sql, successes, failures, uses, value_mappings, updated_at FROM {_TABLE}"
        " WHERE owner = ? ORDER BY updated_at, entry_key",
        (memory_owner(user_id),),
    )
    return [{"fingerprint": fp, "question": q, "sql": sql, "successes": int(ok), "failures": int(bad),
             "uses": int(uses), "value_mappings": json.loads(mappings), "updated_at": float(updated)}
            for fp, q, sql, ok, bad, uses, mappings, updated in rows]


def delete_user_entries(db: Database, user_id: str) -> int:
    """Erase every row ``user_id`` owns; returns how many went."""
    ensure_table(db)
    owner = memory_owner(user_id)
    count = int(db.fetchall(f"SELECT COUNT(*) FROM {_TABLE} WHERE owner = ?", (owner,))[0][0])
    db.execute(f"DELETE FROM {_TABLE} WHERE owner = ?", (owner,))
    return count


_ADAPT_HINTS = (
    "check that every table and column of the template exists in the current schema",
    "verify value mappings (codes) for the new question's values",
)

__all__ = [
    "ADAPT_THRESHOLD",
    "IMMEDIATE_THRESHOLD",
    "MemoryScope",
    "QueryMemory",
    "SimilarQuery",
    "SimilarQueryResult",
    "delete_user_entries",
    "ensure_table",
    "export_user_entries",
    "memory_owner",
    "question_literals",
]
