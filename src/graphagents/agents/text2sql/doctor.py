"""``graphagents doctor``'s checks for text2sql (``AgentSpec.doctor``): the database it would query
and, when ``NEO4J_URI`` is set, the Neo4j schema-graph server."""

from __future__ import annotations

import os
from pathlib import Path

from graphagents.errors import redact_url
from graphagents.registry import Check, DoctorContext

__all__ = ["checks"]


def checks(ctx: DoctorContext) -> list[Check]:
    out = [Check("text2sql database", lambda: _database(ctx)), Check("text2sql dev set", _dev)]
    if os.environ.get("NEO4J_URI"):
        out.append(Check("text2sql neo4j", _neo4j))
    return out


def _database(ctx: DoctorContext) -> str:
    """The ``db`` option's database (the demo SQLite by default), opened and introspected without
    building anything: the demo file is made on first use, and the doctor says so instead."""
    from graphagents.store import sqlite_stamp

    from .agent_context import open_checked
    from .demo.sqlite import DEMO_SQLITE_NAME, data_stamp

    url = ctx.options.get("db")
    if not url:
        path = Path(ctx.settings.data_dir) / DEMO_SQLITE_NAME
        if not path.is_file() or sqlite_stamp(path) != data_stamp():
            return f"the demo SQLite is built on first use at {path}"
        url = f"sqlite:///{path.resolve()}"
    db = open_checked(str(url))
    try:
        return f"{len(db.introspect().tables)} tables at {redact_url(db.url)}"
    finally:
        db.close()


def _dev() -> str:
    """The bundled defog questions and whether the databases they need can be loaded."""
    from importlib.util import find_spec

    from graphagents.packagedata import defog_dev_questions
    from graphagents.sql import load_questions

    questions = load_questions(defog_dev_questions())
    dbs = sorted({q.db_name for q in questions})
    have = "installed" if find_spec("defog_data") else "missing: pip install 'graphagents[defog]'"
    return f"defog: {len(questions)} questions over {', '.join(dbs)} (databases from defog-data: {have})"


def _neo4j() -> str:
    try:
        import neo4j
    except ImportError:
        return "NEO4J_URI is set but the driver is missing: pip install 'graphagents[neo4j]'"
    uri = os.environ["NEO4J_URI"]
    auth = (os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD", ""))
    with neo4j.GraphDatabase.driver(uri, auth=auth) as driver:
        driver.verify_connectivity()
    return f"reachable at {redact_url(uri)}"
