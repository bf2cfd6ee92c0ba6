"""The schema graph the ReAct tools search: tables, columns, FK edges, precomputed embeddings.

Ranking of :meth:`SchemaGraph.search_tables` follows note 5.1, the harmonic mean of similarity and
FK importance, with one change: the note's raw ``log1p(2*incoming + outgoing)`` is unbounded and
0 for a table without FKs, which makes the harmonic mean 0 and hides e.g. a standalone ``audit_log``
table even when the question names it. We normalise importance to [0, 1] by the schema's maximum
and give it a floor: ``importance = 0.5 + 0.5 * raw / max(raw)``. A hub still beats an equally
similar leaf, but an FK-less table that matches perfectly (similarity 1) scores 2*0.5/1.5 = 0.67
and so beats any hub whose similarity is below 0.5: the floor is exactly that break-even point.

Similarity blends the sentence-embedding cosine with lexical coverage (see
:class:`.lexical.LexicalIndex`) half and half: the encoder carries synonyms and language
switches ("revenue" ~ "매출"), the lexical part carries exact schema words the encoder scores weakly
on one-word queries. Both are computed over precomputed matrices (one matrix product, postings
lookups, ``argpartition``), never a per-table Python loop.
"""

from __future__ import annotations

import difflib
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from graphagents.retrieval import Embedder, load_embedder, matvec

from .lexical import LexicalIndex
from .model import (
    ColumnHit,
    JoinEdge,
    SchemaLookupError,
    TableHit,
    TableNode,
    column_segments,
    humanise,
    table_segments,
)

if TYPE_CHECKING:
    from graphagents.sql import Database

IMPORTANCE_FLOOR = 0.5
EMBED_WEIGHT = 0.5  # share of the cosine in the similarity; the rest is lexical coverage
COLUMN_TABLE_WEIGHT = 0.25  # share of the owning table's similarity in a column's score
PRUNE_MIN_ROWS = 4096  # segment matrices this large are searched through a bound first (see _Segments)
PRUNE_DIMS = 64  # principal directions kept for the bound: ~90% of the energy of schema texts
BOUND_SLACK = 1e-4  # added to every bound, so float rounding can never cut a table that belongs


def importance_from_degrees(degrees: Sequence[tuple[int, int]]) -> np.ndarray:
    """``log1p(2*incoming + outgoing)`` scaled into [IMPORTANCE_FLOOR, 1] (see the module docstring)."""
    raw = np.log1p(np.array([2 * i + o for i, o in degrees], dtype=np.float32).reshape(-1))
    top = float(raw.max()) if raw.size else 0.0
    if top <= 0:
        return np.ones(len(degrees), dtype=np.float32)
    return (IMPORTANCE_FLOOR + (1 - IMPORTANCE_FLOOR) * raw / top).astype(np.float32)


def _top_k(scores: np.ndarray, k: int) -> np.ndarray:
    k = min(k, scores.size)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    idx = np.argpartition(-scores, k - 1)[:k] if k < scores.size else np.arange(scores.size)
    return idx[np.lexsort((idx, -scores[idx]))]  # score desc, then schema order: deterministic


def _top_k_items(scores: np.ndarray, items: np.ndarray, k: int) -> np.ndarray:
    """Positions of the best ``k`` of ``scores`` (ascending ``items``), ties by item: as :func:`_top_k`
    over the full array would order them."""
    k = min(k, scores.size)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    pos = np.argpartition(-scores, k - 1)[:k] if k < scores.size else np.arange(scores.size)
    cut = scores[pos].min()
    pos = np.nonzero(scores >= cut)[0]  # every position that ties at the cut, so ties break by item
    return pos[np.lexsort((items[pos], -scores[pos]))][:k]


class _Segments:
    """Several vectors per item, stored contiguously: an item's cosine is the max over its rows.

    Large matrices also keep a projection onto their top ``PRUNE_DIMS`` principal directions and
    each row's residual norm, so that :meth:`bounds` gives an upper bound of every item's best cosine
    from a matrix a few times smaller (Cauchy-Schwarz on the residual: ``q.v <= Pq.Pv + |q_r||v_r|``).
    The exact scan over the full matrix was the whole cost of a search on 5,000 tables (30 MB read
    per query, memory-bound, so its tail followed the machine's load); with the bound, exact cosines
    are computed only for the items that can still make the top k.
    """

    def __init__(self, groups: Sequence[Sequence[str]], vectors: Mapping[str, np.ndarray]) -> None:
        texts = [t for g in groups for t in g]
        dim = len(next(iter(vectors.values()))) if vectors else 0
        self.matrix = np.zeros((len(texts), dim), dtype=np.float32)
        for i, text in enumerate(texts):
            self.matrix[i] = vectors[text]
        self.lengths = np.array([len(g) for g in groups], dtype=np.int64)
        self.starts = np.cumsum(np.concatenate([[0], self.lengths[:-1]]), dtype=np.int64) if groups else \
            np.zeros(0, dtype=np.int64)
        self.size = len(groups)
        self.prune = len(texts) >= PRUNE_MIN_ROWS and dim > 2 * PRUNE_DIMS
        if self.prune:
            # principal directions from the d x d Gram matrix (cheap: d = 512), not an SVD of the rows
            _, eigenvectors = np.linalg.eigh(self.matrix.T.astype(np.float64) @ self.matrix.astype(np.float64))
            self.basis = np.ascontiguousarray(eigenvectors[:, ::-1][:, :PRUNE_DIMS], dtype=np.float32)
            self.projected = np.ascontiguousarray(self.matrix @ self.basis)
            left = np.einsum("ij,ij->i", self.matrix, self.matrix) - np.einsum("ij,ij->i", self.projected,
                                                                                self.projected)
            self.residual = np.sqrt(np.maximum(left, 0.0)).astype(np.float32) + BOUND_SLACK

    def best_cosine(self, query: np.ndarray) -> np.ndarray:
        """Every item's best cosine (a full scan)."""
        if self.size == 0:
            return np.zeros(0, dtype=np.float32)
        return np.clip(np.maximum.reduceat(matvec(self.matrix, query), self.starts), 0.0, 1.0)

    def bounds(self, query: np.ndarray) -> np.ndarray | None:
        """An upper bound of every item's :meth:`best_cosine`, or None when this matrix is not pruned."""
        if not self.prune or self.size == 0:
            return None
        q = np.asarray(query, dtype=np.float32)
        qp = q @ self.basis
        q_residual = float(np.sqrt(max(float(q @ q) - float(qp @ qp), 0.0)))
        upper = matvec(self.projected, qp) + q_residual * self.residual
        return np.clip(np.maximum.reduceat(upper, self.starts), 0.0, 1.0)

    def best_cosine_of(self, query: np.ndarray, items: np.ndarray) -> np.ndarray:
        """:meth:`best_cosine` of some items only (their rows gathered, then one product)."""
        if items.size == 0:
            return np.zeros(0, dtype=np.float32)
        lengths = self.lengths[items]
        offsets = np.cumsum(lengths) - lengths
        rows = np.repeat(self.starts[items] - offsets, lengths) + np.arange(int(lengths.sum()))
        return np.clip(np.maximum.reduceat(matvec(self.matrix[rows], query), offsets), 0.0, 1.0)


class SchemaGraph:
    """Search, join paths and prompt text over one schema version (``fingerprint``)."""

    def __init__(
        self,
        nodes: Sequence[TableNode],
        *,
        fingerprint: str,
        vectors: Mapping[str, np.ndarray],
        embedder: Embedder | None = None,
        importance: np.ndarray | None = None,
    ) -> None:
        """``vectors`` maps every text of :func:`.model.segment_texts` to its embedding."""
        self.fingerprint = fingerprint
        self.embedded_count = 0  # texts sent to the encoder while building this graph (0 = all reused)
        self.embedder = embedder or load_embedder()
        self._nodes = list(nodes)
        self._by_name = {n.name: i for i, n in enumerate(self._nodes)}
        self._by_lower = {n.name.lower(): i for i, n in enumerate(self._nodes)}
        self._col_owner = np.array([i for i, n in enumerate(self._nodes) for _ in n.columns], dtype=np.int64)
        self._col_ref = [(i, j) for i, n in enumerate(self._nodes) for j in range(len(n.columns))]
        self._table_segs = _Segments([table_segments(n) for n in self._nodes], vectors)
        self._column_segs = _Segments([column_segments(n, c) for n in self._nodes for c in n.columns], vectors)
        degrees = [(len(n.fks_in), len(n.fks_out)) for n in self._nodes]
        self.importance = importance if importance is not None else importance_from_degrees(degrees)
        self._table_lex = LexicalIndex(
            [[humanise(n.name), n.comment, " ".join(humanise(c.name) for c in n.columns),
              " ".join(c.comment for c in n.columns)] for n in self._nodes],
            weights=[1.0, 1.0, 0.5, 0.5],
        )  # fmt: skip
        self._column_lex = LexicalIndex(
            [[humanise(c.name), c.comment, f"{humanise(n.name)} {n.comment}"]
             for n in self._nodes for c in n.columns],
            weights=[1.0, 1.0, 0.4],
        )  # fmt: skip
        self._adjacency: dict[str, list[JoinEdge]] = {n.name: [] for n in self._nodes}
        for n in self._nodes:
            for fk in n.fks_out:
                edge = JoinEdge(fk.from_table, fk.from_column, fk.to_table, fk.to_column)
                self._adjacency[fk.from_table].append(edge)
                if fk.to_table != fk.from_table:
                    self._adjacency[fk.to_table].append(edge)
        for edges in self._adjacency.values():
            edges.sort(key=lambda e: (e.from_table, e.to_table, e.from_column))

    # --- lookup --------------------------------------------------------------------------------

    def table_names(self) -> list[str]:
        return [n.name for n in self._nodes]

    def table(self, name: str) -> TableNode:
        return self._nodes[self._index(name)]

    def _index(self, name: str) -> int:
        key = name.strip().replace('"', "")
        idx = self._by_name.get(key, self._by_lower.get(key.lower()))
        if idx is None:
            close = difflib.get_close_matches(key.lower(), list(self._by_lower), n=5, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise SchemaLookupError(f"unknown table {name!r}{hint}")
        return idx

    # --- search --------------------------------------------------------------------------------

    def _table_similarity(self, query: str) -> np.ndarray:
        cosine = self._table_segs.best_cosine(self.embedder.embed_one(query))
        return EMBED_WEIGHT * cosine + (1 - EMBED_WEIGHT) * self._table_lex.scores(query)

    def _harmonic(self, sim: np.ndarray, items: np.ndarray | slice) -> np.ndarray:
        imp = self.importance[items]
        return 2 * sim * imp / (sim + imp + 1e-9)

    def _score_tables(self, query: str, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(items, score, sim)`` of every table that can be in the top ``k``: all of them on a small
        schema; on a large one, those whose score bound reaches the k-th best exact score among the
        ``max(4k, 32)`` best bounds. Exact: a table left out cannot beat the k-th table kept."""
        vector = self.embedder.embed_one(query)
        lexical = self._table_lex.scores(query)
        bound = self._table_segs.bounds(vector)
        if bound is None:
            sim = EMBED_WEIGHT * self._table_segs.best_cosine(vector) + (1 - EMBED_WEIGHT) * lexical
            return np.arange(len(self._nodes)), self._harmonic(sim, slice(None)), sim

        def exact(items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            sim = EMBED_WEIGHT * self._table_segs.best_cosine_of(vector, items) + (1 - EMBED_WEIGHT) * lexical[items]
            return self._harmonic(sim, items), sim

        upper = self._harmonic(EMBED_WEIGHT * bound + (1 - EMBED_WEIGHT) * lexical, slice(None))
        first = _top_k(upper, max(4 * k, 32))
        first_score, _ = exact(first)
        kth = np.partition(first_score, first_score.size - k)[first_score.size - k] if first_score.size >= k \
            else -np.inf
        items = np.nonzero(upper >= kth - BOUND_SLACK)[0]
        score, sim = exact(items)
        return items, score, sim

    def search_tables(self, query: str, k: int = 5) -> list[TableHit]:
        """Best ``k`` tables for a question fragment, by harmonic mean of similarity and importance."""
        if not self._nodes or not query.strip() or k <= 0:
            return []
        items, score, sim = self._score_tables(query, k)
        hits = []
        for j in _top_k_items(score, items, k):
            i = int(items[j])
            n = self._nodes[i]
            hits.append(TableHit(n.name, round(float(score[j]), 4), round(float(sim[j]), 4),
                                 round(float(self.importance[i]), 4), n.comment, tuple(c.name for c in n.columns)))
        return hits

    def search_columns(self, query: str, table: str | None = None, k: int = 10) -> list[ColumnHit]:
        """Best ``k`` columns, optionally within one table; the owning table's similarity counts a quarter.

        That share lets "매출" find ``order_items.unit_price`` although only the table comment says
        what revenue is, while a column that matches on its own still wins.
        """
        if not self._col_ref or not query.strip():
            return []
        cosine = self._column_segs.best_cosine(self.embedder.embed_one(query))
        own = EMBED_WEIGHT * cosine + (1 - EMBED_WEIGHT) * self._column_lex.scores(query)
        score = (1 - COLUMN_TABLE_WEIGHT) * own + COLUMN_TABLE_WEIGHT * self._table_similarity(query)[self._col_owner]
        if table is not None:
            mask = self._col_owner == self._index(table)
            score = np.where(mask, score, -1.0)
            k = min(k, int(mask.sum()))
        hits = []
        for idx in _top_k(score, k):
            ti, ci = self._col_ref[int(idx)]
            n = self._nodes[ti]
            c = n.columns[ci]
            hits.append(ColumnHit(n.name, c.name, c.type, c.comment, round(float(score[idx]), 4), c.samples))
        return hits

    # --- joins ---------------------------------------------------------------------------------

    def join_path(self, tables: Sequence[str], *, avoid: Sequence[str] = ()) -> list[JoinEdge]:
        """FK edges connecting ``tables``: shortest paths (BFS over the undirected FK graph), grown
        from the first table to the nearest unconnected one until all are joined.

        ``avoid`` excludes intermediate tables: the shortest path is not always the meant one
        (customers -> products is shorter through reviews than through orders and order_items).
        """
        names = list(dict.fromkeys(self.table(t).name for t in tables))
        if len(names) < 2:
            return []
        blocked = {self.table(t).name for t in avoid} - set(names)
        connected = {names[0]}
        edges: list[JoinEdge] = []
        remaining = set(names[1:])
        while remaining:
            path = self._bfs(connected, remaining, blocked)
            if path is None:
                raise SchemaLookupError(
                    f"no foreign-key path joins {sorted(connected)} to {sorted(remaining)}"
                    + (f" avoiding {sorted(blocked)}" if blocked else "")
                )
            for edge in path:
                if edge not in edges:
                    edges.append(edge)
                connected.update((edge.from_table, edge.to_table))
            remaining -= connected
        return edges

    def _bfs(self, sources: set[str], targets: set[str], blocked: set[str]) -> list[JoinEdge] | None:
        parent: dict[str, tuple[str, JoinEdge] | None] = {s: None for s in sorted(sources)}
        queue = deque(sorted(sources))
        while queue:
            current = queue.popleft()
            if current in targets:
                path = []
                step = parent[current]
                while step is not None:
                    path.append(step[1])
                    step = parent[step[0]]
                return path[::-1]
            for edge in self._adjacency[current]:
                nxt = edge.to_table if edge.from_table == current else edge.from_table
                if nxt in parent or (nxt in blocked and nxt not in targets):
                    continue
                parent[nxt] = (current, edge)
                queue.append(nxt)
        return None

    # --- prompt text ---------------------------------------------------------------------------

    def describe(self, tables: Sequence[str], *, max_samples: int = 8) -> str:
        """CREATE-TABLE-like text with comments, FKs and sample codes: what the model writes SQL from."""
        blocks = []
        for name in dict.fromkeys(self.table(t).name for t in tables):
            n = self.table(name)
            rows = f" (~{n.row_estimate:,} rows)" if n.row_estimate is not None else ""
            head = f"-- {n.name}{rows}: {n.comment}" if n.comment else f"-- {n.name}{rows}"
            lines: list[tuple[str, str]] = []
            for c in n.columns:
                parts = [f"  {c.name} {c.type or 'ANY'}"]
                if c.primary_key and len(n.primary_key) == 1:
                    parts.append("PRIMARY KEY")
                elif not c.nullable:
                    parts.append("NOT NULL")
                fk = n.fk_of(c.name)
                if fk is not None:
                    parts.append(f"REFERENCES {fk.to_table}({fk.to_column})")
                note = c.comment
                if c.samples and not c.codes:
                    shown = ", ".join(repr(s) for s in c.samples[:max_samples])
                    note = f"{note} [values: {shown}]".strip()
                lines.append((" ".join(parts), note))
            if len(n.primary_key) > 1:
                lines.append((f"  PRIMARY KEY ({', '.join(n.primary_key)})", ""))
            body = "\n".join(
                text + ("," if i < len(lines) - 1 else "") + (f"  -- {note}" if note else "")
                for i, (text, note) in enumerate(lines)
            )
            kind = "VIEW" if n.kind == "view" else "TABLE"
            blocks.append(f"{head}\nCREATE {kind} {n.name} (\n{body}\n);")
        return "\n\n".join(blocks)


def load_schema_graph(
    db: Database,
    *,
    data_dir: Path,
    backend: Literal["embedded", "neo4j"] = "embedded",
    neo4j_uri: str | None = None,
    embedder: Embedder | None = None,
    sample_limit: int = 10,
) -> SchemaGraph:
    """Introspect ``db`` and return its graph, reusing every stored embedding whose text is unchanged.

    ``embedded`` keeps the graph in files under ``data_dir``; ``neo4j`` keeps it in a Neo4j server
    (``neo4j_uri``, credentials from ``NEO4J_USER``/``NEO4J_PASSWORD``). Both rank the same way.
    """
    schema = db.introspect()
    fingerprint = db.fingerprint()

    def sampler(table: str, column: str) -> list[object]:
        return list(db.sample_values(table, column, sample_limit))

    if backend == "embedded":
        from .store import load_embedded

        return load_embedded(schema, fingerprint=fingerprint, data_dir=Path(data_dir), embedder=embedder,
                             sampler=sampler)
    if backend == "neo4j":
        from .neo4j_backend import load_neo4j

        return load_neo4j(schema, fingerprint=fingerprint, uri=neo4j_uri, embedder=embedder, sampler=sampler)
    raise ValueError(f"unknown schema graph backend {backend!r}: use 'embedded' or 'neo4j'")
