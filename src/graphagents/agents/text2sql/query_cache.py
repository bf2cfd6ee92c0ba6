"""Exact-question result cache (note 7.1): LRU + TTL, in process or in Redis.

Keys combine the schema fingerprint, a scope (the user and the database the result was read from)
and a normalised question, so a schema change never serves a result computed against the old tables,
one user's result is never served to another (whose rights on the data may differ: row-level
security, another role, another tenant's database with the same schema), and trivial rewrites
("매출은?" / "매출 ") hit the same entry. Normalisation never touches digits or names: "2023년 매출"
and "2024년 매출" must stay two entries (a semantic cache that merged them would answer the wrong year).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Any

from graphagents.cache import Cache

_SPACES = re.compile(r"\s+")
_TRAILING_PUNCT = re.compile(r"[\s?!.,;:~…。？！、·\"'`)\]]+$")
_LEADING_PUNCT = re.compile(r"^[\s\"'`(\[]+")
# Polite sentence endings that carry no meaning for a query; longest first, stripped once.
_ENDINGS = ("인가요", "일까요", "나요", "까요", "요")


def user_prefix(user_id: str) -> str:
    """The start of every key of one user's results (hashed: keys never show who asked), for erasure."""
    return hashlib.sha256(f"user\x00{user_id}".encode()).hexdigest()[:16] + "."


def cache_scope(user_id: str, database: str = "") -> str:
    """The scope of a cached result: who asked, against which database (hashed: keys never show either)."""
    return user_prefix(user_id) + hashlib.sha256(f"{user_id}\x00{database}".encode()).hexdigest()[:24]


class QueryCache:
    """Results of answered questions, keyed by ``<scope>:<fingerprint>:<sha256(normalised question)>``
    (the scope first, so that one user's entries share a prefix and can be erased together)."""

    def __init__(self, cache: Cache) -> None:
        self._cache = cache

    @staticmethod
    def normalise(question: str) -> str:
        """NFKC, lowercase, one space between words, no trailing punctuation or polite ending.

        Only endings are stripped ("요", "까요", "나요"); inner words and every number stay, so two
        questions share an entry only when they ask for the same thing.
        """
        text = unicodedata.normalize("NFKC", question).lower()
        text = _SPACES.sub(" ", text).strip()
        text = _LEADING_PUNCT.sub("", _TRAILING_PUNCT.sub("", text))
        for ending in _ENDINGS:
            if text.endswith(ending) and len(text) > len(ending):
                text = text[: -len(ending)]
                break
        return _TRAILING_PUNCT.sub("", text)

    @classmethod
    def key(cls, fingerprint: str, question: str, scope: str) -> str:
        digest = hashlib.sha256(cls.normalise(question).encode("utf-8")).hexdigest()[:32]
        return f"{scope}:{fingerprint}:{digest}"

    def get(self, fingerprint: str, question: str, *, scope: str) -> dict[str, Any] | None:
        """The result stored for this question under this scope (see :func:`cache_scope`), if any."""
        value = self._cache.get(self.key(fingerprint, question, scope))
        return value if isinstance(value, dict) else None

    def put(self, fingerprint: str, question: str, result: dict[str, Any], *, scope: str) -> None:
        """Store a JSON-able result; an empty question is not cached (it would match any blank input)."""
        if self.normalise(question):
            self._cache.set(self.key(fingerprint, question, scope), result)

    def invalidate(self, fingerprint: str, question: str, *, scope: str) -> None:
        self._cache.delete(self.key(fingerprint, question, scope))

    def delete_user(self, user_id: str) -> int:
        """Erase every result cached for this user, on every database; how many there were."""
        return self._cache.delete_prefix(user_prefix(user_id))


__all__ = ["RESULTS_NAMESPACE", "QueryCache", "cache_scope", "user_prefix"]

RESULTS_NAMESPACE = "results"
"""The agent cache (``BuildContext.cache`` / ``UserScope.cache``) holding the results."""
