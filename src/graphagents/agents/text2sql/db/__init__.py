"""Read-only database access for the text2sql tools (SQLite and PostgreSQL).

Every statement runs read-only *independently of* :class:`..guard.SQLGuard`, so a guard bug alone
cannot write:

- PostgreSQL: a pooled connection whose sessions default to read-only, then per call a
  ``SET TRANSACTION READ ONLY`` + ``SET LOCAL statement_timeout`` transaction that is always rolled
  back. Queries go through a server-side cursor (``DECLARE ... CURSOR FOR``) sent with the extended
  protocol, so the server itself refuses a second stacked statement, anything that is not a query,
  and data-modifying CTEs; and only ``max_rows + 1`` rows ever leave the server.
- SQLite: a fresh ``file:...?mode=ro`` connection per call (thread-safe by construction), a
  progress handler that aborts at the deadline, and an authorizer that refuses what ``mode=ro``
  lets through: ATTACH (and so ``VACUUM INTO``), temp-schema writes, non-introspection PRAGMAs and
  the guard's denied functions.

SQLite has no comments on tables or columns; if the database holds a table
``_comments(table_name, column_name, comment)`` its rows are used (``column_name`` NULL or '' for a
table comment), and the table itself is hidden from the schema.

Exceptions::

    DatabaseError      cannot open or reach the database, bad URL (terminal for the run)
    QueryError         the database refused a statement; the message goes back to the model
     └── QueryTimeout  the statement ran past its timeout

Layout: :mod:`.base` (errors, schema dataclasses, the abstract :class:`Database`, URL handling,
:func:`open_database`), :mod:`.sqlite` and :mod:`.postgres` (one engine each), :mod:`.roles` (the
read-only login role that ``graphagents text2sql create-role`` sets up).

This is not :mod:`graphagents.store`'s SQLite/PostgreSQL pair, on purpose: that one is the
application's own read-write store (sessions, agent records: three methods, plain SQL with ``?``
placeholders), while this one reads a *user's* database and only reads it: introspection, EXPLAIN,
row caps, statement timeouts, a read-only transaction or file, an authorizer. Merging them would
give the app store a read-only executor it must not use, or the query side a write path it must
never have. What both need is shared instead of copied: ``POSTGRES_PREFIXES`` and
``errors.redact_url``.
"""

from __future__ import annotations

from .base import ROW_COUNT_CAP as ROW_COUNT_CAP
from .base import (
    ColumnInfo,
    Database,
    DatabaseError,
    ExplainPlan,
    ForeignKey,
    QueryError,
    QueryResult,
    QueryTimeout,
    SchemaInfo,
    TableInfo,
    open_database,
)
from .base import redact_url as redact_url
from .postgres import PostgresDatabase as PostgresDatabase
from .sqlite import SQLiteDatabase as SQLiteDatabase

# ``X as X`` above: ROW_COUNT_CAP, redact_url and the two engine classes stay importable from here
# as when this was one module, and stay out of ``__all__`` as they were then.
# fmt: off
__all__ = [
    "ColumnInfo", "Database", "DatabaseError", "ExplainPlan", "ForeignKey", "QueryError",
    "QueryResult", "QueryTimeout", "SchemaInfo", "TableInfo", "open_database",
]
# fmt: on
