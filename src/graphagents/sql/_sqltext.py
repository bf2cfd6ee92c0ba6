"""A tiny lexical scanner for SQL text: where code is, and where quotes and comments are.

Splitting gold queries on ``;``, expanding ``{a,b}`` and finding the end of a statement in a dump
all go wrong the moment the character sits inside ``'a;b'`` or ``-- {note}``. A full parser is not
needed (and would reject the brace syntax), only a scanner that knows PostgreSQL's quoting rules:
``'...'`` with ``''`` (and ``E'...'`` with backslash escapes), ``"..."`` identifiers, ``$tag$`` bodies,
``--`` line comments and nestable ``/* */`` comments.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_DOLLAR_TAG = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$")


def code_positions(sql: str) -> Iterator[int]:
    """Yield the index of every character that is SQL code, not inside a literal or comment."""
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch == "'":
            escape_string = i > 0 and sql[i - 1] in "eE" and not _is_word_char(sql, i - 2)
            i = _skip_quoted(sql, i, "'", escape_string)
        elif ch == '"':
            i = _skip_quoted(sql, i, '"', False)
        elif ch == "-" and sql.startswith("--", i):
            end = sql.find("\n", i)
            i = n if end == -1 else end
        elif ch == "/" and sql.startswith("/*", i):
            i = _skip_block_comment(sql, i)
        elif ch == "$" and not _is_word_char(sql, i - 1) and (m := _DOLLAR_TAG.match(sql, i)):
            end = sql.find(m.group(0), m.end())
            i = n if end == -1 else end + len(m.group(0))
        else:
            yield i
            i += 1


def _is_word_char(sql: str, i: int) -> bool:
    return i >= 0 and (sql[i].isalnum() or sql[i] == "_")


def _skip_quoted(sql: str, start: int, quote: str, backslash: bool) -> int:
    i, n = start + 1, len(sql)
    while i < n:
        ch = sql[i]
        if backslash and ch == "\\":
            i += 2
            continue
        if ch == quote:
            if i + 1 < n and sql[i + 1] == quote:
                i += 2
                continue
            return i + 1
        i += 1
    return n


def _skip_block_comment(sql: str, start: int) -> int:
    depth, i, n = 0, start, len(sql)
    while i < n:
        if sql.startswith("/*", i):
            depth += 1
            i += 2
        elif sql.startswith("*/", i):
            depth -= 1
            i += 2
            if depth == 0:
                return i
        else:
            i += 1
    return n


def split_statements(sql: str) -> list[str]:
    """Split on ``;`` outside literals and comments; empty pieces are dropped."""
    cuts = [i for i in code_positions(sql) if sql[i] == ";"]
    pieces, start = [], 0
    for cut in [*cuts, len(sql)]:
        piece = sql[start:cut].strip()
        if piece and any(True for _ in code_positions(piece)):
            pieces.append(piece)
        start = cut + 1
    return pieces


def ends_statement(sql: str) -> bool:
    """True when the last code character is ``;`` (a dump statement is complete)."""
    last = None
    for i in code_positions(sql):
        if not sql[i].isspace():
            last = sql[i]
    return last == ";"


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split on ``sep`` outside parentheses, literals and comments."""
    depth, start, parts = 0, 0, []
    for i in code_positions(text):
        ch = text[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]
