"""Which foreign-key path joins the tables: the shortest, unless the question says where a table hangs.

"authors who have written publications in the domain 'ML'" names three tables; the shortest tree
attaches ``domain`` to ``author`` (through ``domain_author``), but the words attach it to the
publications (through ``domain_publication``). When the tree puts a named table further from the
table named next to it than the schema has to, the bridge tables of the detour are avoided, so
the join follows the sentence. With no such evidence the shortest tree stays as it is.
"""

from __future__ import annotations

from collections import deque

from sqlglot import exp

from .build import QueryPlan
from .plan import Planner

__all__ = ["dedupe_fan_out", "prefer_named_paths"]


def prefer_named_paths(p: Planner, plan: QueryPlan) -> None:
    tables = list(dict.fromkeys([plan.fact, *plan.tables]))
    if len(tables) < 3 or plan.fk_joins:
        return
    graph = p.catalog.graph
    try:
        edges = graph.join_path(tables)
    except LookupError:
        return  # render reports the missing path
    tree = _adjacency([(e.from_table, e.to_table) for e in edges])
    named = _positions(p, tables)
    avoid: set[str] = set()
    for table, spots in named.items():
        found = _nearest_named(table, spots, named)
        if found is None:
            continue
        anchor, anchor_at = found
        if (anchor_at > min(spots)) if not p.korean else (anchor_at < min(spots)):
            continue  # the modifier follows its head in English ("publications in the domain"), precedes in Korean
        in_tree = _path(tree, table, anchor)
        shortest = p.catalog.distance(table, anchor)
        if in_tree is None or len(in_tree) - 1 <= shortest:
            continue
        for bridge in in_tree[1:-1]:  # the detour: the bridges that attach ``table`` to the tree
            if bridge in tables:
                break
            avoid.add(bridge)
    if avoid:
        try:
            graph.join_path(tables, avoid=sorted(avoid))
        except LookupError:
            return
        plan.avoid = sorted(avoid)


def _positions(p: Planner, tables: list[str]) -> dict[str, list[int]]:
    """Where each table of the plan is named in the question: its own word, or a value stored in it."""
    out: dict[str, list[int]] = {}
    for ref in p.roles.tables:
        if ref.table in tables:
            out.setdefault(ref.table, []).append(ref.start)
    for value in p.roles.values:
        for hit in value.hits[:1]:
            home = hit.key_table or hit.table
            if home in tables:
                out.setdefault(home, []).append(value.start)
    return out


def _nearest_named(table: str, spots: list[int], named: dict[str, list[int]]) -> tuple[str, int] | None:
    """The other named table whose word is closest to one of ``table``'s, and where that word is."""
    others = [(abs(a - b), t, a) for t, where in named.items() if t != table for a in where for b in spots]
    if not others:
        return None
    _, name, at = min(others)
    return name, at


def _adjacency(pairs: list[tuple[str, str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for a, b in pairs:
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return out


def _path(adjacency: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    parent: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            path = [node]
            while (prev := parent[path[-1]]) is not None:
                path.append(prev)
            return path[::-1]
        for nxt in sorted(adjacency.get(node, ())):
            if nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    return None


def dedupe_fan_out(p: Planner, plan: QueryPlan) -> None:
    """Rows of one table listed through a one-to-many join repeat; a listing of rows never wants that.

    "authors who have written publications" joins each author once per publication: the rows are
    made DISTINCT when the join path goes from a table to rows that point back at it.
    """
    if plan.group or plan.fk_joins or not plan.tables or any(e.find(exp.AggFunc) for e, _ in plan.select):
        return
    try:
        edges = p.catalog.graph.join_path([plan.fact, *plan.tables], avoid=plan.avoid)
    except LookupError:
        return
    reached = {plan.fact}
    pending = list(edges)
    while pending:
        for edge in pending:
            if edge.to_table in reached and edge.from_table not in reached:
                plan.distinct = True  # from a referenced row to the many rows that reference it
                return
            if edge.from_table in reached and edge.to_table not in reached:
                reached.add(edge.to_table)
                pending.remove(edge)
                break
        else:
            return
