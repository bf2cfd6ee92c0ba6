"""The async PostgreSQL checkpointer the runtime uses: LangGraph's ``AsyncPostgresSaver`` with the
per-call costs that a server with many concurrent sessions pays on every step taken out.

1. It (de)serializes checkpoint blobs and writes with ``asyncio.to_thread``: a thread hop, a
   wake-up of the loop and a GIL hand-over for a few hundred microseconds of msgpack work on a
   slotfill-sized state, several times per turn. Here that work runs inline.
2. It holds one ``asyncio.Lock`` around every query, also when it was given a connection pool: a
   process's checkpoint reads and writes queue behind each other's network round trips. With a
   pool each query takes its own connection, so here the lock is only used for a single
   connection (as upstream does).
3. It sends a checkpoint as a pipeline of one statement per blob plus the checkpoint row, and a
   task's writes as one statement per write (a slotfill turn: 35 statements). Here a checkpoint
   with its blobs is one statement and a task's writes are one, the rows passed as arrays.
4. A turn reads the thread's latest checkpoint three times (the runtime before the run, the run
   itself, the runtime after it), each a join over the blobs and writes tables. Inside
   :func:`graphagents._checkpoint.turn_reads`, which the runtime opens while it holds the
   session's lock (no other process writes the thread meanwhile), the thread's head checkpoint is
   kept as the rows the database holds (serialized bytes, JSON text as jsonb returns it), updated
   by this saver's own writes once they commit, and decoded like a database row on every read:
   one query a turn. A write that fails forgets the head; the next read goes to the database.

The methods below mirror ``langgraph-checkpoint-postgres`` 3.2 (``aget_tuple``, ``aput``,
``aput_writes``, ``_load_checkpoint_tuple``, ``_cursor``); the storage format is the same
(tests/core/test_pg_checkpoint.py reads what this saver wrote with the stock savers). Imported only
when a PostgreSQL checkpointer is configured (the ``postgres`` extra).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_id,
    get_serializable_checkpoint_metadata,
)
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from psycopg import AsyncCursor
from psycopg.rows import DictRow, dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from ._checkpoint import current_turn_reads

__all__ = ["InlinePostgresSaver"]

# One statement per checkpoint: its new blobs (as arrays) in a data-modifying CTE, which runs to
# completion whether or not the outer statement reads it, then the checkpoint row.
PUT_CHECKPOINT_SQL = """
WITH blobs AS (
    INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
    SELECT %(thread_id)s, %(checkpoint_ns)s, b.channel, b.version, b.type, b.blob
    FROM unnest(%(channels)s::text[], %(versions)s::text[], %(types)s::text[], %(blobs)s::bytea[])
        AS b(channel, version, type, blob)
    ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
)
INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
VALUES (%(thread_id)s, %(checkpoint_ns)s, %(checkpoint_id)s, %(parent_id)s, %(checkpoint)s, %(metadata)s)
ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id)
DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata
"""

_PUT_WRITES_SQL = """
INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob)
SELECT %(thread_id)s, %(checkpoint_ns)s, %(checkpoint_id)s, %(task_id)s, %(task_path)s,
    w.idx, w.channel, w.type, w.blob
FROM unnest(%(idx)s::int[], %(channels)s::text[], %(types)s::text[], %(blobs)s::bytea[]) AS w(idx, channel, type, blob)
ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO
"""
UPSERT_WRITES_SQL = _PUT_WRITES_SQL + (
    " UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob")
INSERT_WRITES_SQL = _PUT_WRITES_SQL + " NOTHING"


@dataclass
class _Head:
    """A thread's latest checkpoint as its database rows hold it."""

    checkpoint_id: str
    parent_id: str | None
    checkpoint: str  # the JSON text of the checkpoint column
    metadata: str
    versions: dict[str, Any]  # the checkpoint's channel versions
    blobs: dict[str, tuple[str, bytes, bytes | None]]  # channel -> (version, type, blob)
    writes: dict[tuple[str, int], list[bytes]] = field(default_factory=dict)  # (task id, idx) -> row as selected

    def row(self, thread_id: str, checkpoint_ns: str) -> dict[str, Any]:
        """The row ``SELECT_SQL`` would return, decoded afresh (callers mutate what they get)."""
        return {
            "thread_id": thread_id, "checkpoint_ns": checkpoint_ns, "checkpoint_id": self.checkpoint_id,
            "parent_checkpoint_id": self.parent_id, "checkpoint": json.loads(self.checkpoint),
            "metadata": json.loads(self.metadata),
            "channel_values": [[channel.encode(), type_, blob] for channel, (_v, type_, blob) in self.blobs.items()],
            "pending_writes": list(self.writes.values()),
        }


def _numeric(text: str) -> float | int:
    """A JSON number as PostgreSQL's jsonb gives it back: a numeric, printed without an exponent,
    so ``1e+16`` comes back as the integer 10000000000000000 while ``1e-07`` stays a float."""
    mantissa, _, exponent = text.lower().partition("e")
    if exponent and max(0, len(mantissa.partition(".")[2]) - int(exponent)) == 0:
        return int(Decimal(text))
    return float(text)


def _jsonb_order(value: Any) -> Any:
    """``value`` with every object's keys in jsonb's order (shorter keys first, then bytewise)."""
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: (len(k.encode()), k.encode()))
        return {k: _jsonb_order(value[k]) for k in keys}
    if isinstance(value, list):
        return [_jsonb_order(v) for v in value]
    return value


def _jsonb_text(value: Any) -> str:
    """The JSON text of what a jsonb column holding ``value`` (as psycopg's ``Jsonb`` sends it with
    ``json.dumps``) reads back as: same numbers and key order as a database read would decode."""
    return json.dumps(_jsonb_order(json.loads(json.dumps(value), parse_float=_numeric)))


class InlinePostgresSaver(AsyncPostgresSaver):
    """``AsyncPostgresSaver`` that serializes inline, runs a pool's queries concurrently, writes a
    checkpoint or a task's writes in one statement and, inside ``_checkpoint.turn_reads``, reads a head
    checkpoint once."""

    @asynccontextmanager
    async def _cursor(self, *, pipeline: bool = False) -> AsyncIterator[AsyncCursor[DictRow]]:
        if not isinstance(self.conn, AsyncConnectionPool) or self.pipe is not None:
            async with super()._cursor(pipeline=pipeline) as cur:  # one connection: upstream's lock
                yield cur
            return
        async with self.conn.connection() as conn:
            if pipeline and self.supports_pipeline:
                async with conn.pipeline(), conn.cursor(binary=True, row_factory=dict_row) as cur:
                    yield cur
            elif pipeline:
                async with conn.transaction(), conn.cursor(binary=True, row_factory=dict_row) as cur:
                    yield cur
            else:
                async with conn.cursor(binary=True, row_factory=dict_row) as cur:
                    yield cur

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        thread_id = config["configurable"]["thread_id"]
        reads = current_turn_reads(thread_id)
        if reads is None:
            return await super().aget_tuple(config)
        checkpoint_ns = config["configurable"].get("checkpoint_ns", "")
        checkpoint_id = get_checkpoint_id(config)
        key = (thread_id, checkpoint_ns)
        head = reads.heads.get(key)
        if head is not None and (not checkpoint_id or checkpoint_id == head.checkpoint_id):
            return await self._load_checkpoint_tuple(head.row(thread_id, checkpoint_ns))  # type: ignore[arg-type]
        if checkpoint_id:
            return await super().aget_tuple(config)
        generation = reads.generation.get(key, 0)
        async with self._cursor() as cur:
            await cur.execute(self.SELECT_SQL + "WHERE thread_id = %s AND checkpoint_ns = %s "
                              "ORDER BY checkpoint_id DESC LIMIT 1", (thread_id, checkpoint_ns), binary=True)
            value = await cur.fetchone()
        if value is None:
            return None
        if value["checkpoint"]["v"] < 4 and value["parent_checkpoint_id"]:
            return await super().aget_tuple(config)  # pending sends to migrate: upstream's path, uncached
        if reads.generation.get(key, 0) == generation:  # no write of this task committed meanwhile
            versions = value["checkpoint"].get("channel_versions") or {}
            blobs = {}
            for channel, type_, blob in value["channel_values"] or ():
                name = channel.decode()
                blobs[name] = (versions[name], type_, blob)
            reads.heads[key] = _Head(
                value["checkpoint_id"], value["parent_checkpoint_id"], json.dumps(value["checkpoint"]),
                json.dumps(value["metadata"]), dict(versions), blobs,
                {(w[0].decode(), int(w[5])): w for w in value["pending_writes"] or ()})
        return await self._load_checkpoint_tuple(value)

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
                   new_versions: ChannelVersions) -> RunnableConfig:
        configurable = config["configurable"].copy()
        thread_id = configurable.pop("thread_id")
        checkpoint_ns = configurable.pop("checkpoint_ns")
        parent_id = configurable.pop("checkpoint_id", None)
        copy = checkpoint.copy()
        copy["channel_values"] = copy["channel_values"].copy()
        # primitive values stay inline in the checkpoint row; the others go to the blobs table
        blob_values: dict[str, Any] = {}
        for channel, value in checkpoint["channel_values"].items():
            if isinstance(value, _DeltaSnapshot):
                blob_values[channel] = copy["channel_values"].pop(channel)
                copy["channel_values"][channel] = True
            elif value is None or isinstance(value, (str, int, float, bool)):
                pass
            else:
                blob_values[channel] = copy["channel_values"].pop(channel)
        blob_versions = {k: v for k, v in new_versions.items() if k in blob_values}
        blobs = self._dump_blobs(thread_id, checkpoint_ns, blob_values, blob_versions) if blob_versions else []
        serializable = get_serializable_checkpoint_metadata(config, metadata)
        params = {
            "thread_id": thread_id, "checkpoint_ns": checkpoint_ns, "checkpoint_id": checkpoint["id"],
            "parent_id": parent_id, "checkpoint": Jsonb(copy), "metadata": Jsonb(serializable),
            "channels": [b[2] for b in blobs], "versions": [b[3] for b in blobs],
            "types": [b[4] for b in blobs], "blobs": [b[5] for b in blobs],
        }
        reads, key = current_turn_reads(thread_id), (thread_id, checkpoint_ns)
        try:
            async with self._cursor() as cur:
                await cur.execute(PUT_CHECKPOINT_SQL, params)
        except BaseException:
            if reads is not None:
                reads.changed(key)
            raise
        if reads is not None:
            previous = reads.heads.get(key)
            early = reads.early.pop((thread_id, checkpoint_ns, checkpoint["id"]), {})
            if previous is not None and previous.checkpoint_id > checkpoint["id"]:
                return self._config_of(thread_id, checkpoint_ns, checkpoint["id"])  # the head stays the latest
            head = self._next_head(previous, checkpoint, copy, serializable, parent_id, new_versions, blobs)
            if head is not None:
                if previous is not None and previous.checkpoint_id == head.checkpoint_id:
                    head.writes.update(previous.writes)  # the checkpoint was put again: its writes stay
                head.writes.update(early)
            reads.changed(key, head)
        return self._config_of(thread_id, checkpoint_ns, checkpoint["id"])

    @staticmethod
    def _config_of(thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> RunnableConfig:
        return {"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns,
                                 "checkpoint_id": checkpoint_id}}

    @staticmethod
    def _next_head(previous: _Head | None, checkpoint: Checkpoint, stored: Mapping[str, Any],
                   metadata: Mapping[str, Any], parent_id: str | None, new_versions: ChannelVersions,
                   blobs: list[tuple[str, str, str, str, str, bytes | None]]) -> _Head | None:
        """The head after ``aput``: the blobs its channel versions join to in the database (the ones
        just written, none for another new version, the previous head's for an unchanged one), or
        None when that is not known here (the next read goes to the database)."""
        written = {b[2]: (b[3], b[4].encode(), b[5]) for b in blobs}
        versions = _jsonb_order(dict(checkpoint.get("channel_versions") or {}))  # the join's order
        kept: dict[str, tuple[str, bytes, bytes | None]] = {}
        for channel, version in versions.items():
            if channel in written:
                kept[channel] = written[channel]
            elif channel in new_versions:
                continue  # a new version with no blob (an inline or empty value)
            elif previous is not None and previous.versions.get(channel) == version:
                if channel in previous.blobs:
                    kept[channel] = previous.blobs[channel]
            else:
                return None
        return _Head(checkpoint["id"], parent_id, _jsonb_text(stored), _jsonb_text(metadata), versions, kept)

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                          task_path: str = "") -> None:
        upsert = all(w[0] in WRITES_IDX_MAP for w in writes)
        configurable = config["configurable"]
        thread_id, checkpoint_ns = configurable["thread_id"], configurable["checkpoint_ns"]
        checkpoint_id = configurable["checkpoint_id"]
        rows: dict[int, tuple[Any, ...]] = {}  # one row per key, as one statement per write would leave
        for row in self._dump_writes(thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, writes):
            if upsert or row[5] not in rows:
                rows[row[5]] = row
        params = {
            "thread_id": thread_id, "checkpoint_ns": checkpoint_ns, "checkpoint_id": checkpoint_id,
            "task_id": task_id, "task_path": task_path, "idx": list(rows),
            "channels": [r[6] for r in rows.values()], "types": [r[7] for r in rows.values()],
            "blobs": [r[8] for r in rows.values()],
        }
        reads, key = current_turn_reads(thread_id), (thread_id, checkpoint_ns)
        try:
            async with self._cursor() as cur:
                await cur.execute(UPSERT_WRITES_SQL if upsert else INSERT_WRITES_SQL, params)
        except BaseException:
            if reads is not None:
                reads.changed(key)
            raise
        if reads is None:
            return
        head = reads.heads.get(key)
        if head is not None and checkpoint_id < head.checkpoint_id:
            return  # an older checkpoint's writes (durability "async"): not part of the head's row
        if head is not None and checkpoint_id == head.checkpoint_id:
            target = head.writes
        else:  # the checkpoint itself has not committed yet (durability "async"): kept for its aput
            target = reads.early.setdefault((thread_id, checkpoint_ns, checkpoint_id), {})
        for idx, row in rows.items():
            if upsert or (task_id, idx) not in target:
                target[(task_id, idx)] = [task_id.encode(), row[6].encode(), row[7].encode(), row[8],
                                          task_path.encode(), str(idx).encode()]
        reads.changed(key, head)

    async def _load_checkpoint_tuple(self, value: DictRow) -> CheckpointTuple:
        def config_of(checkpoint_id: str) -> RunnableConfig:
            return {"configurable": {"thread_id": value["thread_id"], "checkpoint_ns": value["checkpoint_ns"],
                                     "checkpoint_id": checkpoint_id}}

        checkpoint = {**value["checkpoint"], "channel_values": {
            **(value["checkpoint"].get("channel_values") or {}), **self._load_blobs(value["channel_values"])}}
        parent = value["parent_checkpoint_id"]
        return CheckpointTuple(config_of(value["checkpoint_id"]), checkpoint, value["metadata"],  # type: ignore[arg-type]
                               config_of(parent) if parent else None, self._load_writes(value["pending_writes"]))
