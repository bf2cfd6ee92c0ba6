"""Reading a database, and judging a query's result against gold SQL: what every agent that reads SQL
shares (text2sql answers with it, tableqa and supervisor read through it, the evaluations score with
it).

**Read-only access** (SQLite and PostgreSQL). Every statement runs read-only *independently of* any
guard in front of it, so a guard bug alone cannot write:

- PostgreSQL: a pooled connection whose sessions default to read-only, then per call a
  ``SET TRANSACTION READ ONLY`` + ``SET LOCAL statement_timeout`` transaction that is always rolled
  back. Queries go through a server-side cursor (``DECLARE ... CURSOR FOR``) sent with the extended
  protocol, so the server itself refuses a second stacked statement, anything that is not a query,
  and data-modifying CTEs; and only ``max_rows + 1`` rows ever leave the server.
- SQLite: a fresh ``file:...?mode=ro`` connection per call (thread-safe by construction), a
  progress handler that aborts at the deadline, and an authorizer that refuses what ``mode=ro``
  lets through: ATTACH (and so ``VACUUM INTO``), temp-schema writes, non-introspection PRAGMAs and
  the functions of :mod:`graphagents.sql.denylist`.

SQLite has no comments on tables or columns; if the database holds a table
``_comments(table_name, column_name, comment)`` its rows are used (``column_name`` NULL or '' for a
table comment), and the table itself is hidden from the schema. ``Database.placeholder`` is how a
bound parameter is written in the engine's SQL; user text only ever travels as one.

Exceptions::

    DatabaseError      cannot open or reach the database, bad URL (terminal for the run)
    QueryError         the database refused a statement; the message goes back to the model
     └── QueryTimeout  the statement ran past its timeout

``connect`` (psycopg) and ``connection_error`` say what to do when PostgreSQL cannot be reached or a
database is missing (``MissingDatabaseError`` carries the ``createdb`` command).

This is not :mod:`graphagents.store`'s SQLite/PostgreSQL pair, on purpose: that one is the
application's own read-write store (sessions, agent records), while this one reads a *user's*
database and only reads it: introspection, EXPLAIN, row caps, statement timeouts, a read-only
transaction or file, an authorizer.

**Gold comparison** (execution accuracy, modelled on defog sql-eval and Spider/BIRD):
``matches_gold`` / ``results_match`` decide whether predicted rows answer a gold query,
``expand_gold_alternatives`` expands defog's ``{a,b}`` and ``;`` conventions, ``load_questions``
reads defog-layout question CSVs, ``load_defog_database`` puts a defog-data database on a
PostgreSQL server.
"""

from __future__ import annotations

from ._base import (
    ROW_COUNT_CAP,
    ColumnInfo,
    Database,
    DatabaseError,
    Dialect,
    ExplainPlan,
    ForeignKey,
    QueryError,
    QueryResult,
    QueryTimeout,
    SchemaInfo,
    TableInfo,
    open_database,
)
from ._compare import (
    QueryRows,
    expand_gold_alternatives,
    gold_is_ordered,
    matches_gold,
    normalize_value,
    question_asks_for_order,
    results_match,
)
from ._connect import (
    MissingDatabaseError,
    connect,
    connection_error,
    create_database,
    createdb_command,
    psycopg_module,
    url_parts,
)
from ._defog import DEFAULT_ADMIN_URL, available_defog_databases, load_defog_database
from ._postgres import PostgresDatabase
from ._questions import Question, load_questions
from ._sqlite import SQLiteDatabase
from .denylist import DENIED_FUNCTIONS, is_denied_function

# fmt: off
__all__ = [
    "DEFAULT_ADMIN_URL", "DENIED_FUNCTIONS", "ROW_COUNT_CAP",
    "ColumnInfo", "Database", "DatabaseError", "Dialect", "ExplainPlan", "ForeignKey",
    "MissingDatabaseError", "PostgresDatabase", "QueryError", "QueryResult", "QueryRows", "QueryTimeout",
    "Question", "SQLiteDatabase", "SchemaInfo", "TableInfo",
    "available_defog_databases", "connect", "connection_error", "create_database", "createdb_command",
    "expand_gold_alternatives", "gold_is_ordered", "is_denied_function", "load_defog_database",
    "load_questions", "matches_gold", "normalize_value", "open_database", "psycopg_module",
    "question_asks_for_order", "results_match", "url_parts",
]
# fmt: on
