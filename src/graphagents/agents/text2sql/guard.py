"""Parser-based SQL guard for model-written queries.

The design note's guard matched regexes against the raw text, which data-modifying CTEs, leading
comments, stacked statements, ``EXPLAIN ANALYZE <write>`` and side-effect functions all walk past.
This one parses with sqlglot, fails closed on anything it cannot parse, walks the whole tree, and
hands back SQL *regenerated from the tree* so that what runs is exactly what was checked.

The guard is the first of two locks: :mod:`graphagents.sql` also executes in a read-only transaction (Postgres)
or a read-only connection (SQLite) with a statement timeout, so a hole in one is not a hole in both.

Besides writes and side effects, it refuses reads that disclose the server rather than the data
(configuration and files, other sessions, network addresses, roles and credentials); the classes
and the reasons are in :mod:`graphagents.sql.denylist`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from graphagents.sql import Dialect
from graphagents.sql.denylist import (
    DENIED_FUNCTIONS,
    DENIED_PREFIXES,
    SAFE_SETTINGS,
    ServerRead,
    server_read_function,
    server_read_table,
)

__all__ = ["GuardResult", "SQLGuard", "add_limit", "normalise_sql"]

# Statement kinds that must not appear anywhere in the tree. Looked up by name so that a class
# missing from some sqlglot release does not break the import.
# fmt: off
_DENIED_NODE_NAMES = (
    "Insert", "Update", "Delete", "Merge", "Copy", "Create", "Drop", "Alter", "AlterColumn",
    "AlterIndex", "AlterRename", "AlterSession", "AlterSet", "Analyze", "Attach", "Detach", "Cache",
    "Uncache", "Command", "Comment", "Commit", "Rollback", "Transaction", "Set", "SetItem", "Grant",
    "Revoke", "Pragma", "TruncateTable", "Use", "LoadData", "Refresh", "Kill", "Install", "Execute",
    "ExecuteSql", "Export", "Put", "Get", "Declare", "Describe", "Show", "StoredProcedure",
    "SwapTable", "Undrop", "LockingStatement", "Into", "Lock", "Block",
    "IfBlock", "WhileBlock", "LoopBlock", "RepeatBlock", "DDL", "DML",
)
# fmt: on
_DENIED_NODES: tuple[type, ...] = tuple(
    cls for name in _DENIED_NODE_NAMES if isinstance(cls := getattr(exp, name, None), type)
)
_QUERY_NODES = (exp.Select, exp.SetOperation, exp.Subquery, exp.Values)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_ALLOWED_CONTROL = frozenset({"U+0009", "U+000A", "U+000C", "U+000D"})  # tab, newlines, form feed
MAX_SQL_CHARS = 20_000


@dataclass(frozen=True)
class GuardResult:
    """Outcome of :meth:`SQLGuard.validate`; ``sql`` is what the caller should run."""

    ok: bool
    sql: str
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


class SQLGuard:
    """Refuses anything but one read-only query; see the module docstring for why a parser."""

    def __init__(
        self,
        dialect: Dialect,
        *,
        denied_functions: Iterable[str] = (),
        max_chars: int = MAX_SQL_CHARS,
    ) -> None:
        if dialect not in ("sqlite", "postgres"):
            raise ValueError(f"unsupported dialect {dialect!r}; use 'sqlite' or 'postgres'")
        self.dialect: Dialect = dialect
        self.max_chars = max_chars
        self._denied = DENIED_FUNCTIONS | {name.lower() for name in denied_functions}

    def validate(self, sql: str, *, preview_limit: int | None = None) -> GuardResult:
        if not isinstance(sql, str) or not sql.strip():
            return GuardResult(False, sql or "", ("empty SQL: write a single SELECT statement",))
        if len(sql) > self.max_chars:
            return _refuse(sql, f"SQL is {len(sql)} characters long (limit {self.max_chars}); simplify it")
        bad = sorted({f"U+{ord(c):04X}" for c in sql if unicodedata.category(c) == "Cc"} - _ALLOWED_CONTROL)
        if bad:
            return _refuse(sql, f"SQL contains control characters ({', '.join(bad)}); remove them")
        try:
            statements = _parse(sql, self.dialect)
        except (ParseError, TokenError) as err:
            return _refuse(sql, f"could not parse the SQL as {self.dialect}: {_first_error(err)}")
        except Exception as err:  # noqa: BLE001 - fail closed on any parser failure, even a crash
            return _refuse(sql, f"could not parse the SQL as {self.dialect} ({type(err).__name__})")
        if not statements:
            return _refuse(sql, "no SQL statement found (only comments or semicolons)")
        if len(statements) > 1:
            kinds = ", ".join(_kind(s) for s in statements)
            return _refuse(
                sql,
                f"only one statement is allowed, found {len(statements)} ({kinds}); "
                "remove everything after the first ';'",
            )
        tree = statements[0]
        errors = self._check(tree)
        if errors:
            return _refuse(sql, *errors)
        if preview_limit is not None:
            tree = _apply_limit(tree, preview_limit)
        out = tree.sql(dialect=self.dialect, comments=False)
        return GuardResult(True, out, (), tuple(_warnings(tree)))

    def _check(self, tree: exp.Expr) -> list[str]:
        errors: list[str] = []
        if isinstance(tree, exp.Command) and str(tree.this).upper() == "EXPLAIN":
            return ["EXPLAIN is run by the agent itself (never ANALYZE); submit the bare SELECT"]
        if not isinstance(tree, exp.Select | exp.SetOperation | exp.Subquery):
            return [
                f"only read-only queries are allowed (SELECT, WITH ... SELECT, UNION/INTERSECT/EXCEPT); "
                f"got {_kind(tree)}"
            ]
        for node in tree.walk():
            message = self._check_node(node)
            if message and message not in errors:
                errors.append(message)
        return errors

    def _check_node(self, node: exp.Expr) -> str | None:
        if isinstance(node, exp.Into):
            return "SELECT ... INTO creates a table; remove the INTO clause"
        if isinstance(node, exp.Lock):
            return "row locks (FOR UPDATE / FOR SHARE) are not allowed in read-only queries"
        if isinstance(node, _DENIED_NODES):
            where = " inside a WITH clause" if node.find_ancestor(exp.CTE) else ""
            return f"only read-only queries are allowed: found {_kind(node)}{where}"
        if isinstance(node, exp.CTE | exp.Subquery) and not isinstance(node.this, _QUERY_NODES):
            place = "a WITH clause" if isinstance(node, exp.CTE) else "a subquery"
            return f"only read-only queries are allowed: found {_kind(node.this)} inside {place}"
        if isinstance(node, exp.Func):
            return self._check_function(node)
        if isinstance(node, exp.Table) and (read := server_read_table(node.name, node.db)):
            return _disclosure(read, "table")
        if isinstance(node, exp.Column) and self.dialect == "postgres" and not node.table:
            ident = node.this
            # Postgres reads a bare, unquoted ``user`` / ``current_role`` as the connected role.
            if isinstance(ident, exp.Identifier) and not ident.quoted and (read := _role_keyword(ident.name)):
                return _disclosure(read, "keyword")
        return None

    def _check_function(self, node: exp.Func) -> str | None:
        if isinstance(node, exp.Anonymous):
            ident = node.this
            if isinstance(ident, exp.Identifier) and ident.quoted:
                shown = ident.sql(dialect=self.dialect)
                return f"quoted function names are not allowed ({shown}); call the function unquoted"
            names = {str(node.name).lower()}
        else:
            names = {name.lower() for name in node.sql_names()} | {node.key.lower()}
        for name in sorted(names):
            if name in self._denied or name.startswith(DENIED_PREFIXES):
                return f"function {name}() is not allowed (side effects, file or server access)"
        if "current_setting" in names and not _safe_setting(node):
            return _disclosure(ServerRead("server configuration and files", "current_setting"), "function")
        for name in sorted(names):
            if read := server_read_function(name):
                written = node.name if isinstance(node, exp.Anonymous) else node.sql(self.dialect).split("(")[0]
                return _disclosure(ServerRead(read.kind, written.lower() or read.name), "function")
        return None


def _disclosure(read: ServerRead, what: str) -> str:
    shown = f"{read.name}()" if what == "function" else repr(read.name)
    return (f"{what} {shown} discloses {read.kind}, not data; the agent only reads the data and its schema. "
            "Ask about the tables instead")


def _role_keyword(name: str) -> ServerRead | None:
    lowered = name.lower()
    if lowered in ("user", "current_user", "session_user", "current_role"):
        return ServerRead("roles and credentials", lowered)
    return None


def _safe_setting(node: exp.Func) -> bool:
    """current_setting('TimeZone') shapes values; current_setting('data_directory') describes the server."""
    args = [a for a in node.args.get("expressions") or [] if a is not None]
    first = args[0] if args else node.args.get("this")
    return isinstance(first, exp.Literal) and first.is_string and first.this.lower() in SAFE_SETTINGS


def add_limit(sql: str, n: int, *, dialect: Dialect | None = None) -> str:
    """Cap the rows of one query on the AST, keeping an existing smaller LIMIT."""
    statements = _parse(sql, dialect)
    if len(statements) != 1:
        raise ValueError(f"add_limit expects exactly one statement, got {len(statements)}")
    return _apply_limit(statements[0], n).sql(dialect=dialect, comments=False)


def normalise_sql(sql: str, dialect: Dialect | None = None) -> str:
    """Canonical text for comparing two queries: same AST modulo whitespace, case, comments and ';'."""
    try:
        statements = _parse(sql, dialect)
    except Exception:  # noqa: BLE001 - unparsable SQL still gets a usable comparison key
        statements = []
    if len(statements) == 1:
        return statements[0].sql(dialect=dialect, comments=False, normalize=True)
    return " ".join(sql.split()).rstrip(";").strip().lower()


def _parse(sql: str, dialect: Dialect | None) -> list[exp.Expr]:
    parsed = sqlglot.parse(sql, read=dialect)
    # A trailing ';' yields None, and a comment after the last ';' a bare Semicolon node.
    return [s for s in parsed if s is not None and not isinstance(s, exp.Semicolon)]


def _apply_limit(tree: exp.Expr, n: int) -> exp.Expr:
    if n < 1:
        raise ValueError(f"a row limit must be at least 1, got {n}")
    tree = tree.copy()
    current = tree.args.get("limit")
    if current is None:
        tree.set("limit", exp.Limit(expression=exp.Literal.number(n)))
        return tree
    count = current.args.get("count") if isinstance(current, exp.Fetch) else current.expression
    value = _int_literal(count)
    if value is not None and value <= n:
        return tree
    if value is not None and isinstance(current, exp.Limit):
        current.set("expression", exp.Literal.number(n))
        return tree
    # LIMIT ALL, a parameter, an expression or FETCH ... WITH TIES: cap it from the outside.
    assert isinstance(tree, exp.Query)
    return exp.select("*").from_(tree.subquery("_preview")).limit(n)


def _int_literal(node: exp.Expr | None) -> int | None:
    if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
        return int(node.this)
    return None


def _warnings(tree: exp.Expr) -> list[str]:
    warnings: list[str] = []
    joins = len(list(tree.find_all(exp.Join)))
    if joins > 3:
        warnings.append(f"the query has {joins} JOINs (more than 3); check that every join is needed")
    depth = max((_select_depth(s) for s in tree.find_all(exp.Select)), default=0)
    if depth > 2:
        warnings.append(f"subqueries are nested {depth} deep (more than 2); consider a WITH clause")
    for select in tree.find_all(exp.Select):
        if select.args.get("joins") and any(_is_star(e) for e in select.expressions):
            warnings.append("SELECT * over a join returns every column of every table; list the columns")
            break
    for select in tree.find_all(exp.Select):
        for join in select.args.get("joins") or ():
            table = join.this
            if join.args.get("on") or join.args.get("using") or not isinstance(table, exp.Table):
                continue
            if not isinstance(table.this, exp.Identifier) or _has_join_predicate(select, table.alias_or_name):
                continue
            warnings.append(
                f"{table.alias_or_name!r} is joined without a join condition (cartesian product); "
                "add ON or a WHERE equality"
            )
    return warnings


def _select_depth(select: exp.Select) -> int:
    depth, parent = 0, select.parent
    while parent is not None:
        depth += isinstance(parent, exp.Select)
        parent = parent.parent
    return depth


def _is_star(node: exp.Expr) -> bool:
    return isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star))


def _has_join_predicate(select: exp.Select, alias: str) -> bool:
    where = select.args.get("where")
    if where is None:
        return False
    for eq in where.find_all(exp.EQ):
        left, right = eq.this, eq.expression
        if isinstance(left, exp.Column) and isinstance(right, exp.Column):
            tables = {left.table, right.table}
            if alias in tables or "" in tables:
                return True
    return False


def _kind(node: exp.Expr | None) -> str:
    if node is None:
        return "nothing"
    if isinstance(node, exp.Command):
        return str(node.this).upper()
    if isinstance(node, exp.Create | exp.Drop) and node.args.get("kind"):
        return f"{node.key.upper()} {node.args['kind']}"
    return {"truncatetable": "TRUNCATE", "setoperation": "SET OPERATION"}.get(node.key, node.key.upper())


def _first_error(err: ParseError | TokenError) -> str:
    details = getattr(err, "errors", None)
    if details:
        first = details[0]
        where = f" at line {first.get('line')}, column {first.get('col')}" if first.get("line") else ""
        return f"{first.get('description', 'syntax error')}{where}"
    return _ANSI.sub("", str(err)).splitlines()[0] if str(err) else "syntax error"


def _refuse(sql: str, *errors: str) -> GuardResult:
    return GuardResult(False, sql, tuple(errors))
