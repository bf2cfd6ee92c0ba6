"""Load the demo database into PostgreSQL, from the same generator as the SQLite file."""

from __future__ import annotations

from graphagents.errors import UsageError
from graphagents.sql import MissingDatabaseError, connect, create_database, psycopg_module

from .generate import demo_data
from .schema import TABLES, create_index_sql, create_table_sql, foreign_key_sql


def load_postgres(url: str, *, schema: str = "public", drop_existing: bool = True) -> dict[str, int]:
    """Create the demo tables in ``schema`` of the database at ``url`` and fill them; return row counts.

    A database that does not exist yet is created first (or the error says the ``createdb`` to run).

    Everything runs in one transaction, so a failed load leaves the schema as it was. With
    ``drop_existing=False`` an existing demo table is an error rather than a silent skip, because
    stale rows would make gold answers disagree with SQLite.
    """
    psycopg = psycopg_module()
    try:
        conn = connect(url)
    except MissingDatabaseError:
        create_database(url)
        conn = connect(url)
    from psycopg import sql

    counts: dict[str, int] = {}
    with conn, conn.cursor() as cur:
        cur.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        cur.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(schema)))
        if drop_existing:
            for table in reversed(TABLES):
                cur.execute(sql.SQL("DROP TABLE IF EXISTS {} CASCADE").format(sql.Identifier(table.name)))
        for table in TABLES:
            try:
                cur.execute(create_table_sql(table, foreign_keys=False))
            except psycopg.errors.DuplicateTable as exc:
                raise UsageError(
                    f"table {table.name!r} already exists in schema {schema!r}; "
                    "pass drop_existing=True to replace the demo tables"
                ) from exc
        data = demo_data()  # only now: a refused or unreachable load should fail fast
        for table in TABLES:
            columns = sql.SQL(", ").join(sql.Identifier(c) for c in table.column_names)
            copy_sql = sql.SQL("COPY {} ({}) FROM STDIN").format(sql.Identifier(table.name), columns)
            with cur.copy(copy_sql) as copy:
                for row in data[table.name]:
                    copy.write_row(row)
            counts[table.name] = len(data[table.name])
        for table in TABLES:
            for column in table.indexes:
                cur.execute(create_index_sql(table, column))
            for statement in foreign_key_sql(table):
                cur.execute(statement)
            comment = sql.SQL("COMMENT ON TABLE {} IS {}")
            cur.execute(comment.format(sql.Identifier(table.name), sql.Literal(table.comment)))
            for col in table.columns:
                target = sql.Identifier(table.name, col.name)
                cur.execute(sql.SQL("COMMENT ON COLUMN {} IS {}").format(target, sql.Literal(col.comment)))
            cur.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(table.name)))
    conn.close()
    return counts
