"""PostgreSQL + pgvector backend: one store = four tables ``ga_rt_<name>_*`` in the URL's database.

Vectors live in a ``vector(dim)`` column with an HNSW index (cosine), built once the store outgrows
exact search (see :class:`PgVectorStore`): bulk loads are fast, and the index is built in one pass
over the loaded rows, which is several times faster than growing it row by row. The lexical side is a
``tsvector`` of the same terms the embedded backend indexes (Kiwi morphemes, lower-cased words),
written with their positions, under a GIN index that finds the candidate documents; the score is
BM25 computed in SQL exactly as ``bm25s`` computes it (Lucene variant, k1 = 1.5, b = 0.75): term
frequency from the positions, document frequency from a table kept up to date by every write, N and
the average length from a stats row. Fusion happens in Python, shared with the embedded backend, so
both return the same top-k on the same corpus. Writes take a per-store advisory lock: ingest
batches from several processes serialise instead of deadlocking on the df rows.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from graphagents.errors import ConfigError, MissingExtraError, ServiceUnavailableError, redact_url

from ._documents import Document, Scored, ranked
from ._embed import Embedder
from ._store import BM25_B, BM25_K1, Row, SourceRecord, Store, metadata_json

MAX_POSITIONS = 256  # PostgreSQL keeps at most 256 positions per lexeme (tf is capped there)
MAX_POSITION = 16383
MIN_PGVECTOR = (0, 5, 0)  # HNSW indexes
TIE_MARGIN = 10  # extra rows fetched so that ids tied at the cut are ranked like the embedded backend does


def _quote(term: str) -> str:
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def tsvector_literal(doc_terms: Sequence[str]) -> str:
    """``'term':1,4 'other':2``: our own terms, verbatim, with positions (tf = their count)."""
    positions: dict[str, list[int]] = defaultdict(list)
    for i, term in enumerate(doc_terms, start=1):
        if len(positions[term]) < MAX_POSITIONS:
            positions[term].append(min(i, MAX_POSITION))
    return " ".join(f"{_quote(t)}:{','.join(map(str, p))}" for t, p in positions.items())


def tsquery_literal(query_terms: Sequence[str]) -> str:
    return " | ".join(_quote(t) for t in query_terms)


def _scalar(conn: Any, sql: str) -> Any:
    row = conn.execute(sql).fetchone()
    if row is None:
        raise ServiceUnavailableError(f"unexpected empty result from {sql!r}: was the store dropped meanwhile?")
    return row[0]


def require_pgvector(conn: Any, url: str, *, extension: str = "vector",
                     minimum: tuple[int, ...] = MIN_PGVECTOR) -> str:
    """Create the extension in the URL's database if it is not there yet, and return its version;
    each way this can fail is one line that says what to do (not installed on the server, no right
    to create it, too old for HNSW)."""
    import psycopg
    from psycopg import sql

    row = conn.execute("SELECT default_version, installed_version FROM pg_available_extensions WHERE name = %s",
                       (extension,)).fetchone()
    where = redact_url(url)
    if row is None:
        major = int(_scalar(conn, "SELECT current_setting('server_version_num')::int")) // 10000
        raise ConfigError(
            f"pgvector is not installed on the PostgreSQL server of {where} (no {extension!r} extension there): "
            f"install it on that server (Debian/Ubuntu, as root: apt install postgresql-{major}-pgvector, or the "
            "repository's scripts/install-pgvector.sh, which builds Debian's pgvector source where apt has none; "
            "managed services: enable the extension), or use the embedded store (leave the store URL unset)")
    version = row[1]
    if version is None:
        try:
            conn.execute(sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(sql.Identifier(extension)))
        except psycopg.Error as exc:
            raise ConfigError(
                f"pgvector is installed on the server of {where} but CREATE EXTENSION {extension} failed in its "
                f"database ({str(exc).strip().splitlines()[0]}): run it there once as a superuser, or use the "
                "embedded store (leave the store URL unset)") from None
        created = conn.execute("SELECT extversion FROM pg_extension WHERE extname = %s", (extension,)).fetchone()
        version = created[0] if created else ""
    if _version(version) < minimum:
        raise ConfigError(
            f"pgvector {version} in the database of {where} is older than "
            f"{'.'.join(map(str, minimum))}, which the store needs (HNSW indexes): install a newer pgvector on "
            f"the server and run ALTER EXTENSION {extension} UPDATE in the database")
    return str(version)


def _version(text: str) -> tuple[int, ...]:
    """``'0.8.0'`` -> (0, 8, 0); a part that is not a number ends the tuple."""
    parts: list[int] = []
    for part in str(text).split("."):
        digits = re.match(r"\d+", part)
        if digits is None:
            break
        parts.append(int(digits.group()))
    return tuple(parts)


class PgVectorStore(Store):
    """See the module docstring.

    HNSW is approximate: on the 1,996 medical passages, 27 of 302 dense top-8 lists differ from the
    exact ones at ``ef_search`` 100 (m 16). A store of at most ``exact_limit`` documents is therefore
    searched exactly (a sequential scan) and has no HNSW index; the write that takes it past the
    limit builds the index, and larger stores are searched through it with ``ef_search`` raised per
    query to at least twice the candidates asked for. ``hnsw_m`` / ``hnsw_ef_construction`` tune the
    index; ``maintenance_work_mem`` is raised for its build (PostgreSQL's default of 64 MB makes
    pgvector build a 100,000-vector graph on disk, much more slowly).
    """

    def __init__(self, url: str, name: str, embedder: Embedder, *, hnsw_m: int = 16,
                 hnsw_ef_construction: int = 64, exact_limit: int = 10_000, pool_size: int = 4) -> None:
        try:
            from pgvector.psycopg import register_vector
            from psycopg_pool import ConnectionPool
        except ImportError:
            raise MissingExtraError("the pgvector store needs the 'pgvector' extra: "
                                    "pip install 'graphagents[pgvector]'") from None
        import psycopg

        self.name = name
        self.embedder = embedder
        self.url = url
        self.table = f"ga_rt_{name}"
        self.exact_limit = exact_limit
        self.hnsw_m, self.hnsw_ef_construction = int(hnsw_m), int(hnsw_ef_construction)
        self._lock_key = int.from_bytes(hashlib.sha256(self.table.encode()).digest()[:8], "big", signed=True)
        try:
            self._setup()  # before the pool: its connections need the vector type
        except psycopg.OperationalError as exc:
            raise ServiceUnavailableError(f"cannot connect to PostgreSQL at {redact_url(url)}: "
                                          f"{str(exc).strip().splitlines()[0]}") from exc
        self._pool = ConnectionPool(url, min_size=1, max_size=pool_size, kwargs={"autocommit": True}, open=False,
                                    configure=register_vector)
        try:
            self._pool.open(wait=True, timeout=10)
        except Exception as exc:
            self._pool.close()
            raise ServiceUnavailableError(f"cannot connect to PostgreSQL at {redact_url(url)}: "
                                          f"{str(exc).strip().splitlines()[0]}") from exc

    def _setup(self) -> None:
        import psycopg

        t = self.table
        dim = self.embedder.dim
        with psycopg.connect(self.url, autocommit=True, connect_timeout=10) as conn:
            require_pgvector(conn, self.url)
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._lock_key,))
                conn.execute(f"CREATE TABLE IF NOT EXISTS {t}_docs (id TEXT PRIMARY KEY, text TEXT NOT NULL,"
                             f" metadata JSONB NOT NULL, hash TEXT NOT NULL, terms TSVECTOR NOT NULL,"
                             f" length INTEGER NOT NULL, embedding vector({dim}) NOT NULL)")
                conn.execute(f"CREATE TABLE IF NOT EXISTS {t}_df (term TEXT PRIMARY KEY, df INTEGER NOT NULL)")
                conn.execute(f"CREATE TABLE IF NOT EXISTS {t}_sources (source TEXT PRIMARY KEY, hash TEXT NOT NULL,"
                             " ids JSONB NOT NULL)")
                conn.execute(f"CREATE TABLE IF NOT EXISTS {t}_meta (id INTEGER PRIMARY KEY CHECK (id = 1),"
                             " embedder TEXT NOT NULL, n BIGINT NOT NULL, total BIGINT NOT NULL)")
                conn.execute(f"INSERT INTO {t}_meta VALUES (1, %s, 0, 0) ON CONFLICT (id) DO NOTHING",
                             (self.embedder.name,))
                conn.execute(f"CREATE INDEX IF NOT EXISTS {t}_gin ON {t}_docs USING gin (terms)")
                stored = _scalar(conn, f"SELECT embedder FROM {t}_meta")
        if stored != self.embedder.name:
            raise ConfigError(f"store {self.name!r} holds vectors of embedder {stored!r}, not "
                              f"{self.embedder.name!r}: open it with that embedder, or use another store name")

    # --- writes ---------------------------------------------------------------------------------------

    def _hashes(self, ids: Sequence[str]) -> dict[str, str]:
        with self._pool.connection() as conn:
            rows = conn.execute(f"SELECT id, hash FROM {self.table}_docs WHERE id = ANY(%s)", (list(ids),))
            return {r[0]: r[1] for r in rows}

    def _forget(self, conn: Any, ids: list[str]) -> int:
        """Take documents out of df and the stats (inside a write transaction); returns how many."""
        t = self.table
        old = conn.execute(f"SELECT tsvector_to_array(terms), length FROM {t}_docs WHERE id = ANY(%s) FOR UPDATE",
                           (ids,)).fetchall()
        if not old:
            return 0
        counts: dict[str, int] = defaultdict(int)
        for lexemes, _ in old:
            for term in lexemes:
                counts[term] += 1
        terms, n = list(counts), [counts[k] for k in counts]
        conn.execute(f"UPDATE {t}_df SET df = {t}_df.df - c.n FROM unnest(%s::text[], %s::int[]) AS c(term, n)"
                     f" WHERE {t}_df.term = c.term", (terms, n))
        conn.execute(f"DELETE FROM {t}_df WHERE df <= 0")
        conn.execute(f"UPDATE {t}_meta SET n = n - %s, total = total - %s", (len(old), sum(r[1] for r in old)))
        return len(old)

    def _write(self, rows: Sequence[Row]) -> None:
        t = self.table
        ids = [r.doc.id for r in rows]
        counts: dict[str, int] = defaultdict(int)
        for r in rows:
            for term in set(r.terms):
                counts[term] += 1
        ordered = sorted(counts)
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._lock_key,))
            self._forget(conn, ids)
            with conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO {t}_docs (id, text, metadata, hash, terms, length, embedding)"
                    " VALUES (%s, %s, %s::jsonb, %s, %s::tsvector, %s, %s) ON CONFLICT (id) DO UPDATE SET"
                    " text = EXCLUDED.text, metadata = EXCLUDED.metadata, hash = EXCLUDED.hash,"
                    " terms = EXCLUDED.terms, length = EXCLUDED.length, embedding = EXCLUDED.embedding",
                    [(r.doc.id, r.doc.text, metadata_json(r.doc.metadata), r.content_hash, tsvector_literal(r.terms),
                      len(r.terms), np.asarray(r.vector, dtype=np.float32)) for r in rows],
                )
            conn.execute(f"INSERT INTO {t}_df (term, df) SELECT * FROM unnest(%s::text[], %s::int[])"
                         f" ON CONFLICT (term) DO UPDATE SET df = {t}_df.df + EXCLUDED.df",
                         (ordered, [counts[k] for k in ordered]))
            conn.execute(f"UPDATE {t}_meta SET n = n + %s, total = total + %s",
                         (len(rows), sum(len(r.terms) for r in rows)))

    def _after_upsert(self) -> None:
        """Build the HNSW index once the store has outgrown exact search (after a whole upsert, so
        that a bulk load is indexed in one pass)."""
        t = self.table
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._lock_key,))
            size, indexed = self._state(conn)
            if size > self.exact_limit and not indexed:
                conn.execute("SET LOCAL maintenance_work_mem = '512MB'")
                conn.execute(f"CREATE INDEX IF NOT EXISTS {t}_hnsw ON {t}_docs USING hnsw"
                             f" (embedding vector_cosine_ops) WITH (m = {self.hnsw_m},"
                             f" ef_construction = {self.hnsw_ef_construction})")

    def _state(self, conn: Any) -> tuple[int, bool]:
        """Documents in the store, and whether the HNSW index exists."""
        row = conn.execute(f"SELECT n, EXISTS (SELECT 1 FROM pg_indexes WHERE tablename = %s AND indexname = %s)"
                           f" FROM {self.table}_meta", (f"{self.table}_docs", f"{self.table}_hnsw")).fetchone()
        return (int(row[0]), bool(row[1])) if row else (0, False)

    def delete(self, ids: Iterable[str]) -> int:
        ids = list(dict.fromkeys(ids))
        if not ids:
            return 0
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._lock_key,))
            removed = self._forget(conn, ids)
            conn.execute(f"DELETE FROM {self.table}_docs WHERE id = ANY(%s)", (ids,))
        return removed

    def get_source(self, source: str) -> SourceRecord | None:
        with self._pool.connection() as conn:
            row = conn.execute(f"SELECT hash, ids FROM {self.table}_sources WHERE source = %s", (source,)).fetchone()
        return None if row is None else SourceRecord(source, row[0], tuple(row[1]))

    def set_source(self, record: SourceRecord) -> None:
        with self._pool.connection() as conn:
            conn.execute(f"INSERT INTO {self.table}_sources (source, hash, ids) VALUES (%s, %s, %s::jsonb)"
                         " ON CONFLICT (source) DO UPDATE SET hash = EXCLUDED.hash, ids = EXCLUDED.ids",
                         (record.source, record.content_hash, json.dumps(list(record.ids), ensure_ascii=False)))

    # --- reads ----------------------------------------------------------------------------------------

    def __len__(self) -> int:
        with self._pool.connection() as conn:
            return int(_scalar(conn, f"SELECT count(*) FROM {self.table}_docs"))

    def get(self, ids: Sequence[str]) -> dict[str, Document]:
        with self._pool.connection() as conn:
            rows = conn.execute(f"SELECT id, text, metadata FROM {self.table}_docs WHERE id = ANY(%s)", (list(ids),))
            return {r[0]: Document(r[0], r[1], r[2]) for r in rows}

    def _bm25(self, query_terms: Sequence[str], n: int) -> list[Scored]:
        if not query_terms:
            return []
        t = self.table
        sql = (
            f"WITH st AS (SELECT n::float8 AS n, total::float8 / greatest(n, 1) AS avgdl FROM {t}_meta),"
            f" q AS (SELECT d.term, ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5)) AS idf FROM {t}_df d, st"
            "  WHERE d.term = ANY(%(terms)s))"
            " SELECT doc.id, sum(q.idf * cardinality(u.positions)"
            f"  / (cardinality(u.positions) + {BM25_K1} * (1 - {BM25_B} + {BM25_B} * doc.length / st.avgdl))) AS score"
            f" FROM {t}_docs doc CROSS JOIN st, LATERAL unnest(doc.terms) AS u(lexeme, positions, weights)"
            " JOIN q ON q.term = u.lexeme"
            " WHERE doc.terms @@ %(tsquery)s::tsquery"
            " GROUP BY doc.id ORDER BY score DESC, doc.id LIMIT %(n)s"
        )
        with self._pool.connection() as conn:
            rows = conn.execute(sql, {"terms": list(query_terms), "tsquery": tsquery_literal(query_terms),
                                     "n": n + TIE_MARGIN})
            return ranked((Scored(r[0], float(r[1])) for r in rows if r[1] > 0), n)

    def _dense(self, vector: np.ndarray, n: int) -> list[Scored]:
        q = np.asarray(vector, dtype=np.float32)
        with self._pool.connection() as conn, conn.transaction():
            _, indexed = self._state(conn)
            if not indexed:
                conn.execute("SET LOCAL enable_indexscan = off")  # a sequential scan: exact
            else:
                conn.execute(f"SET LOCAL hnsw.ef_search = {min(1000, max(100, 2 * n))}")
            rows = conn.execute(f"SELECT id, 1 - (embedding <=> %s) FROM {self.table}_docs"
                                " ORDER BY embedding <=> %s LIMIT %s", (q, q, n + TIE_MARGIN)).fetchall()
        return ranked((Scored(r[0], float(r[1])) for r in rows), n)

    def drop(self) -> None:
        """Delete the store's tables (all its documents)."""
        with self._pool.connection() as conn:
            for suffix in ("docs", "df", "sources", "meta"):
                conn.execute(f"DROP TABLE IF EXISTS {self.table}_{suffix}")

    def close(self) -> None:
        self._pool.close()


__all__ = ["PgVectorStore", "require_pgvector", "tsquery_literal", "tsvector_literal"]
