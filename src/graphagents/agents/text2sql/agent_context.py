"""The resources one text2sql agent shares across its turns: database, guard, caches, memory.

Opening happens when the agent is built, so a bad URL, an unreachable server or an empty database
is one clear line from ``ga.load`` / the CLI. The schema graph, the embedder and the memory are
built on first use: they are the slow parts and a cache hit needs none of them.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphagents._connections import cache_for
from graphagents.errors import ConfigError, ServiceUnavailableError
from graphagents.settings import Settings
from graphagents.sql import Database, DatabaseError, QueryError, open_database

from .guard import SQLGuard, normalise_sql
from .query_cache import RESULTS_NAMESPACE, QueryCache, cache_scope

DEFAULTS: dict[str, Any] = {
    "max_calls": 8,
    "min_exploration": 1,
    "preview_limit": 10,
    "statement_timeout_s": 10.0,
    "max_rows": 1000,
    "cache": True,
}
MAX_CALLS_LIMIT = 20


def demo_url(settings: Settings) -> str:
    from .demo import demo_sqlite_path

    return f"sqlite:///{Path(demo_sqlite_path(settings.data_dir)).resolve()}"


def open_checked(url: str) -> Database:
    """Open and introspect: the three ways a database can be unusable, each as one line."""
    try:
        db = open_database(url)
    except DatabaseError as exc:
        text = str(exc)
        if "unsupported" in text:
            raise ConfigError(text) from None
        raise ServiceUnavailableError(text) from None
    try:
        schema = db.introspect()
    except (DatabaseError, QueryError) as exc:
        db.close()
        raise ServiceUnavailableError(f"cannot read the schema of {db.url!r}: {exc}") from None
    if not schema.tables:
        db.close()
        raise ConfigError(
            f"database {db.url!r} has no tables to query; load data first "
            "(graphagents text2sql load-demo --db URL) or pass another --db"
        )
    return db


def _as_bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() not in {"0", "false", "no", "off", ""}
    return bool(value)


def parse_options(options: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(DEFAULTS)
    for key in DEFAULTS:
        if key in options and options[key] is not None:
            out[key] = options[key]
    try:
        out["max_calls"] = int(out["max_calls"])
        out["min_exploration"] = int(out["min_exploration"])
        out["preview_limit"] = int(out["preview_limit"])
        out["max_rows"] = int(out["max_rows"])
        out["statement_timeout_s"] = float(out["statement_timeout_s"])
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"text2sql options must be numbers: {exc}") from None
    if not 2 <= out["max_calls"] <= MAX_CALLS_LIMIT:
        raise ConfigError(f"max_calls must be between 2 and {MAX_CALLS_LIMIT}, got {out['max_calls']}")
    if not 0 <= out["min_exploration"] < out["max_calls"] - 1:
        raise ConfigError("min_exploration must be >= 0 and leave room for explain and submit_sql")
    if out["preview_limit"] < 1 or out["max_rows"] < 1 or out["statement_timeout_s"] <= 0:
        raise ConfigError("preview_limit, max_rows and statement_timeout_s must be positive")
    out["cache"] = _as_bool(out["cache"])
    return out


@dataclass
class AgentContext:
    db: Database
    settings: Settings
    options: dict[str, Any]
    guard: SQLGuard = field(init=False)
    fingerprint: str = field(init=False)
    query_cache: QueryCache | None = field(init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _schema: Any = field(default=None, init=False)
    _memory: Any = field(default=None, init=False)
    _values: Any = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.guard = SQLGuard(self.db.dialect)
        self.fingerprint = self.db.fingerprint()
        # the process's shared agent cache: the user-data hook erases a user's results from it
        shared = cache_for(self.settings.cache_url, f"text2sql:{RESULTS_NAMESPACE}")
        self.query_cache = QueryCache(shared) if self.options["cache"] else None

    @classmethod
    def open(cls, settings: Settings, options: Mapping[str, Any]) -> AgentContext:
        parsed = parse_options(options)
        url = str(options.get("db") or "") or demo_url(settings)
        return cls(open_checked(url), settings, parsed)

    @property
    def dialect(self) -> str:
        return self.db.dialect

    def cache_scope(self, user_id: str) -> str:
        """Whose cached results a turn may see: the user's own, read from this database."""
        return cache_scope(user_id, self.db.url)

    def memory_scope(self, user_id: str) -> Any:
        """Whose past questions a turn may reuse and add to: the user's own, asked of this database."""
        from .memory import MemoryScope

        return MemoryScope.for_user(user_id, self.db.url)

    def sql_key(self, sql: str) -> str:
        return normalise_sql(sql, self.db.dialect) if sql.strip() else ""

    @property
    def schema(self) -> Any:
        """The schema graph (embeddings + FK importance), built once per agent."""
        with self._lock:
            if self._schema is None:
                from .schema import load_schema_graph

                self._schema = load_schema_graph(self.db, data_dir=self.settings.data_dir)
            return self._schema

    @property
    def values(self) -> Any:
        schema = self.schema
        with self._lock:
            if self._values is None:
                from .value_mapping import ValueMapper

                self._values = ValueMapper(self.db, schema)
            return self._values

    @property
    def memory(self) -> Any:
        with self._lock:
            if self._memory is None:
                from graphagents.retrieval import load_embedder
                from graphagents.store import database_for

                from .memory import QueryMemory

                self._memory = QueryMemory(database_for(self.settings.resolved_database_url), load_embedder())
            return self._memory

    def compose_context(self) -> Any:
        from .offline import ComposeContext

        return ComposeContext(graph=self.schema, db=self.db, mapper=self.values, dialect=self.dialect)

    def tables_overview(self, limit: int = 60) -> str:
        """One line per table for the system prompt: the model starts from real names."""
        lines = []
        for table in self.db.introspect().tables[:limit]:
            cols = ", ".join(c.name for c in table.columns[:12])
            comment = f" -- {table.comment}" if table.comment else ""
            lines.append(f"    {table.name}({cols}){comment}")
        return "\n".join(lines)
