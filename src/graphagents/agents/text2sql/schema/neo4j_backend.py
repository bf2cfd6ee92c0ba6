"""Neo4j backend: the schema graph kept in a Neo4j server, as in the note.

Model: ``(:Table {schema, name, ...})-[:HAS_COLUMN]->(:Column {schema, table, name, ...})`` and
``(:Column)-[:FK_TO]->(:Column)``, every node tagged with the schema fingerprint (``schema``) so
several schema versions can share one server. Embeddings live on ``(:Segment {schema, text,
vector})`` nodes keyed by text, which makes re-introspection incremental the same way as the
embedded backend: only texts not yet stored are encoded. FK importance comes from Cypher counts
(note 5.1). Similarity is computed in Python over the vectors read once at load: the same
numbers as the embedded backend, and no dependency on a vector-index plugin or server version.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from graphagents.errors import ConfigError, ServiceUnavailableError, redact_url
from graphagents.retrieval import Embedder, load_embedder
from graphagents.sql import SchemaInfo

from .graph import SchemaGraph, importance_from_degrees
from .model import Sampler, TableNode, node_from_json, node_to_json, nodes_from_schema, segment_texts
from .store import embed_texts

_FK_COUNTS = """
MATCH (t:Table {schema: $fp})
OPTIONAL MATCH (t)-[:HAS_COLUMN]->(:Column)<-[:FK_TO]-(:Column)<-[:HAS_COLUMN]-(src:Table)
WITH t, count(src) AS incoming
OPTIONAL MATCH (t)-[:HAS_COLUMN]->(:Column)-[:FK_TO]->(:Column)<-[:HAS_COLUMN]-(dst:Table)
RETURN t.name AS name, incoming, count(dst) AS outgoing
"""


def _driver(uri: str | None) -> Any:
    uri = uri or os.environ.get("NEO4J_URI")
    if not uri:
        raise ConfigError("the neo4j schema backend needs a server: pass neo4j_uri or set NEO4J_URI")
    try:
        import neo4j
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ConfigError("the neo4j schema backend needs the driver: pip install 'graphagents[neo4j]'") from exc
    password = os.environ.get("NEO4J_PASSWORD")
    auth = (os.environ.get("NEO4J_USER", "neo4j"), password) if password else None
    driver = neo4j.GraphDatabase.driver(uri, auth=auth)
    try:
        driver.verify_connectivity()
    except Exception as exc:
        driver.close()
        raise ServiceUnavailableError(f"cannot reach Neo4j at {redact_url(uri)}: {exc}") from exc
    return driver


class Neo4jSchemaStore:
    """Reads and writes one schema version (``fingerprint``) in a Neo4j database."""

    def __init__(self, driver: Any, database: str | None = None) -> None:
        self.driver = driver
        self.database = database or os.environ.get("NEO4J_DATABASE") or None

    def _run(self, cypher: str, **params: Any) -> list[dict[str, Any]]:
        records, _, _ = self.driver.execute_query(cypher, params, database_=self.database)
        return [dict(r) for r in records]

    def ensure_constraints(self) -> None:
        for label, key in (("Table", "t.schema, t.name"), ("Segment", "t.schema, t.text")):
            self._run(f"CREATE INDEX ga_{label.lower()}_key IF NOT EXISTS FOR (t:{label}) ON ({key})")

    def tables(self, fingerprint: str) -> dict[str, TableNode]:
        rows = self._run("MATCH (t:Table {schema: $fp}) RETURN t.json AS json", fp=fingerprint)
        return {n.name: n for n in (node_from_json(json.loads(r["json"])) for r in rows)}

    def vectors(self, fingerprints: list[str]) -> dict[str, np.ndarray]:
        rows = self._run("MATCH (s:Segment) WHERE s.schema IN $fps RETURN s.text AS text, s.vector AS vector",
                         fps=fingerprints)
        return {r["text"]: np.asarray(r["vector"], dtype=np.float32) for r in rows}

    def latest_other(self, fingerprint: str) -> str | None:
        rows = self._run("MATCH (s:Schema) WHERE s.fingerprint <> $fp RETURN s.fingerprint AS fp "
                         "ORDER BY s.updated_at DESC LIMIT 1", fp=fingerprint)
        return rows[0]["fp"] if rows else None

    def write(self, fingerprint: str, nodes: list[TableNode], vectors: dict[str, np.ndarray]) -> None:
        """Replace this fingerprint's tables, columns and FK edges; add the segment vectors it lacks."""
        self._run("MATCH (t:Table {schema: $fp}) OPTIONAL MATCH (t)-[:HAS_COLUMN]->(c:Column) DETACH DELETE t, c",
                  fp=fingerprint)
        tables = [{"name": n.name, "comment": n.comment, "rows": n.row_estimate, "fingerprint": n.fingerprint,
                   "json": json.dumps(node_to_json(n), ensure_ascii=False),
                   "columns": [{"name": c.name, "type": c.type, "comment": c.comment, "pk": c.primary_key}
                               for c in n.columns]} for n in nodes]  # fmt: skip
        self._run(
            "UNWIND $tables AS t CREATE (tn:Table {schema: $fp, name: t.name, comment: t.comment,"
            " row_estimate: t.rows, fingerprint: t.fingerprint, json: t.json})"
            " WITH tn, t UNWIND t.columns AS c CREATE (tn)-[:HAS_COLUMN]->(:Column {schema: $fp,"
            " table: t.name, name: c.name, type: c.type, comment: c.comment, primary_key: c.pk})",
            fp=fingerprint, tables=tables,
        )
        fks = [{"ft": fk.from_table, "fc": fk.from_column, "tt": fk.to_table, "tc": fk.to_column}
               for n in nodes for fk in n.fks_out]  # fmt: skip
        self._run(
            "UNWIND $fks AS fk MATCH (a:Column {schema: $fp, table: fk.ft, name: fk.fc}),"
            " (b:Column {schema: $fp, table: fk.tt, name: fk.tc}) CREATE (a)-[:FK_TO]->(b)",
            fp=fingerprint, fks=fks,
        )
        have = {r["text"] for r in self._run("MATCH (s:Segment {schema: $fp}) RETURN s.text AS text", fp=fingerprint)}
        fresh = [{"text": t, "vector": v.astype(float).tolist()} for t, v in vectors.items() if t not in have]
        for start in range(0, len(fresh), 500):
            self._run("UNWIND $rows AS r CREATE (:Segment {schema: $fp, text: r.text, vector: r.vector})",
                      fp=fingerprint, rows=fresh[start : start + 500])
        self._run("MERGE (s:Schema {fingerprint: $fp}) SET s.updated_at = timestamp()", fp=fingerprint)

    def fk_counts(self, fingerprint: str) -> dict[str, tuple[int, int]]:
        return {r["name"]: (int(r["incoming"]), int(r["outgoing"])) for r in self._run(_FK_COUNTS, fp=fingerprint)}

    def drop(self, fingerprint: str) -> None:
        """Delete one schema version entirely (tests clean up with this)."""
        self._run("MATCH (n) WHERE (n:Table OR n:Column OR n:Segment) AND n.schema = $fp DETACH DELETE n",
                  fp=fingerprint)
        self._run("MATCH (s:Schema {fingerprint: $fp}) DELETE s", fp=fingerprint)


def load_neo4j(
    schema: SchemaInfo,
    *,
    fingerprint: str,
    uri: str | None,
    embedder: Embedder | None = None,
    sampler: Sampler | None = None,
    driver: Any = None,
) -> SchemaGraph:
    """Sync ``schema`` into Neo4j (incrementally) and return a graph ranked with Cypher FK counts."""
    embedder = embedder or load_embedder()
    own_driver = driver is None
    driver = driver or _driver(uri)
    try:
        store = Neo4jSchemaStore(driver)
        store.ensure_constraints()
        previous = store.tables(fingerprint)
        base = fingerprint if previous else store.latest_other(fingerprint)
        if not previous and base:
            previous = store.tables(base)
        known = store.vectors([fp for fp in {fingerprint, base} if fp])
        nodes = nodes_from_schema(schema, sampler=sampler, reuse=previous)
        texts = segment_texts(nodes)
        matrix, encoded = embed_texts(texts, embedder, known)
        vectors = dict(zip(texts, matrix, strict=True))
        same = {n.name: n.fingerprint for n in previous.values()} == {n.name: n.fingerprint for n in nodes}
        if encoded or not same or base != fingerprint:
            store.write(fingerprint, nodes, vectors)
        counts = store.fk_counts(fingerprint)
        importance = importance_from_degrees([counts.get(n.name, (0, 0)) for n in nodes])
    finally:
        if own_driver:
            driver.close()
    graph = SchemaGraph(nodes, fingerprint=fingerprint, vectors=vectors, embedder=embedder, importance=importance)
    graph.embedded_count = encoded
    return graph
