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
5. Every checkpoint and every task's writes is a statement and a commit of its own. Inside a turn
   they are held back and stored together, in one statement, when the thread is next read (the
   runtime reads it as the run ends), when the turn ends, or after the turn's ``linger`` (in the
   background); with a linger of 0 each is stored as it comes. The statements run on the
   connection the turn holds for its session's lock, not on one checked out of the pool each time.

The methods below mirror ``langgraph-checkpoint-postgres`` 3.2 (``aget_tuple``, ``aput``,
``aput_writes``, ``_load_checkpoint_tuple``, ``_cursor``); the storage format is the same
(tests/core/test_pg_checkpoint.py reads what this saver wrote with the stock savers). Imported only
when a PostgreSQL checkpointer is configured (the ``postgres`` extra).
"""

from __future__ import annotations

import json
import logging
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
from psycopg_pool import AsyncConnectionPool

from ._checkpoint import TurnReads, current_turn_reads
from ._pg_arrays import BoolArray, ByteaArray, Int4Array, TextArray

logger = logging.getLogger(__name__)

__all__ = ["InlinePostgresSaver"]

# Checkpoints with their new blobs, and writes, as arrays (one per column) in one statement: each
# part a data-modifying CTE, which runs to completion whether or not the outer statement reads it.
# Each key once (deduplicated before): a blob's first version stays, a checkpoint put again takes
# its last row; a write of a ``WRITES_IDX_MAP`` channel replaces what is there, another only takes
# a free key, as the stock saver's statements, one per row, would leave them.
_BLOBS_CTE = """
blobs AS (
    INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
    SELECT %(thread_id)s, %(checkpoint_ns)s, b.channel, b.version, b.type, b.blob
    FROM unnest(%(channels)s::text[], %(versions)s::text[], %(types)s::text[], %(blobs)s::bytea[])
        AS b(channel, version, type, blob)
    ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
)
"""
_WRITES_CTES = """
w AS (
    SELECT * FROM unnest(%(w_checkpoint_ids)s::text[], %(w_task_ids)s::text[], %(w_task_paths)s::text[],
        %(w_idx)s::int[], %(w_channels)s::text[], %(w_types)s::text[], %(w_blobs)s::bytea[], %(w_upserts)s::bool[])
        AS w(checkpoint_id, task_id, task_path, idx, channel, type, blob, upsert)
),
new_writes AS (
    INSERT INTO checkpoint_writes
        (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob)
    SELECT %(thread_id)s, %(checkpoint_ns)s, checkpoint_id, task_id, task_path, idx, channel, type, blob
    FROM w WHERE NOT upsert
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO NOTHING
),
replaced_writes AS (
    INSERT INTO checkpoint_writes
        (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob)
    SELECT %(thread_id)s, %(checkpoint_ns)s, checkpoint_id, task_id, task_path, idx, channel, type, blob
    FROM w WHERE upsert
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
    DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob
)
"""
_CHECKPOINTS_INSERT = """
INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
SELECT %(thread_id)s, %(checkpoint_ns)s, c.id, c.parent, c.checkpoint::jsonb, c.metadata::jsonb
FROM unnest(%(ids)s::text[], %(parents)s::text[], %(checkpoints)s::text[], %(metadatas)s::text[])
    AS c(id, parent, checkpoint, metadata)
ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id)
DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata
"""
PUT_SQL = "WITH" + _BLOBS_CTE + _CHECKPOINTS_INSERT
PUT_WITH_WRITES_SQL = "WITH" + _BLOBS_CTE + "," + _WRITES_CTES + _CHECKPOINTS_INSERT
PUT_WRITES_SQL = "WITH" + _WRITES_CTES + "SELECT 1"


@dataclass(frozen=True)
class _Write:
    """One row of ``checkpoint_writes``; ``upsert``: it replaces a row with its key, else it only
    takes a free key."""

    checkpoint_id: str
    task_id: str
    task_path: str
    idx: int
    channel: str
    type: str
    blob: bytes | None
    upsert: bool

    @property
    def key(self) -> tuple[str, str, int]:
        return self.checkpoint_id, self.task_id, self.idx

    def selected(self) -> list[bytes | None]:
        """The row as ``SELECT_SQL``'s ``pending_writes`` holds it."""
        return [self.task_id.encode(), self.channel.encode(), self.type.encode(), self.blob,
                self.task_path.encode(), str(self.idx).encode()]


def _writes_params(writes: Sequence[_Write]) -> dict[str, Any]:
    return {"w_checkpoint_ids": TextArray(w.checkpoint_id for w in writes),
            "w_task_ids": TextArray(w.task_id for w in writes), "w_task_paths": TextArray(w.task_path for w in writes),
            "w_idx": Int4Array(w.idx for w in writes), "w_channels": TextArray(w.channel for w in writes),
            "w_types": TextArray(w.type for w in writes), "w_blobs": ByteaArray(w.blob for w in writes),
            "w_upserts": BoolArray(w.upsert for w in writes)}


def _keep(target: dict[Any, Any], key: Any, write: _Write, value: Any) -> None:
    """``target[key] = value`` as the database keeps ``write``: a replacing write always, another
    only where the key is free."""
    if write.upsert or key not in target:
        target[key] = value


@dataclass
class _Put:
    """A checkpoint as ``aput`` got it and as its rows will hold it."""

    checkpoint: Checkpoint
    stored: dict[str, Any]  # the checkpoint column: the channel values that go to blobs left out
    metadata: dict[str, Any]
    parent_id: str | None
    new_versions: ChannelVersions
    blobs: list[tuple[str, str, str, str, str, bytes | None]]  # as ``_dump_blobs`` gives them


@dataclass
class _Held:
    """What a turn holds back for one (thread, namespace): checkpoints in order, writes by key."""

    puts: list[_Put] = field(default_factory=list)
    writes: dict[tuple[str, str, int], _Write] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.puts or self.writes)


def _puts_params(puts: Sequence[_Put]) -> dict[str, Any]:
    rows = {put.checkpoint["id"]: put for put in puts}  # put again: its last row
    blobs: dict[tuple[str, str], tuple[str, str, str, str, str, bytes | None]] = {}
    for put in puts:
        for blob in put.blobs:
            blobs.setdefault((blob[2], blob[3]), blob)  # a blob's first version stays
    return {
        "ids": TextArray(rows), "parents": TextArray(put.parent_id for put in rows.values()),
        "checkpoints": TextArray(json.dumps(put.stored) for put in rows.values()),
        "metadatas": TextArray(json.dumps(put.metadata) for put in rows.values()),
        "channels": TextArray(b[2] for b in blobs.values()), "versions": TextArray(b[3] for b in blobs.values()),
        "types": TextArray(b[4] for b in blobs.values()), "blobs": ByteaArray(b[5] for b in blobs.values()),
    }


@dataclass
class _Head:
    """A thread's latest checkpoint as its database rows hold it."""

    checkpoint_id: str
    parent_id: str | None
    checkpoint: Any  # the checkpoint column: its JSON text as read, or the value written (see ``row``)
    metadata: Any
    versions: dict[str, Any]  # the checkpoint's channel versions
    blobs: dict[str, tuple[str, bytes, bytes | None]]  # channel -> (version, type, blob)
    writes: dict[tuple[str, int], list[bytes | None]] = field(default_factory=dict)  # (task id, idx) -> row

    def row(self, thread_id: str, checkpoint_ns: str) -> dict[str, Any]:
        """The row ``SELECT_SQL`` would return, decoded afresh (callers mutate what they get)."""
        if not isinstance(self.checkpoint, str):  # written by this turn: as jsonb gives it back, once
            self.checkpoint, self.metadata = _jsonb_text(self.checkpoint), _jsonb_text(self.metadata)
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
        keys = sorted(value, key=_jsonb_key)
        return {k: _jsonb_order(value[k]) for k in keys}
    if isinstance(value, list):
        return [_jsonb_order(v) for v in value]
    return value


def _jsonb_key(key: str) -> tuple[int, str]:
    return len(key.encode()), key  # UTF-8's byte order is the code points' order


def _jsonb_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    pairs.sort(key=lambda kv: _jsonb_key(kv[0]))
    return dict(pairs)


def _jsonb_text(value: Any) -> str:
    """The JSON text of what a jsonb column holding ``value`` (as psycopg's ``Jsonb`` sends it with
    ``json.dumps``) reads back as: same numbers and key order as a database read would decode."""
    return json.dumps(json.loads(json.dumps(value), parse_float=_numeric, object_pairs_hook=_jsonb_object))


class InlinePostgresSaver(AsyncPostgresSaver):
    """``AsyncPostgresSaver`` that serializes inline, runs a pool's queries concurrently, stores a
    checkpoint or a task's writes in one statement and, inside ``_checkpoint.turn_reads``, reads a
    head checkpoint once, stores a run in one statement and uses the turn's connection."""

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

    @asynccontextmanager
    async def _turn_cursor(self, reads: TurnReads | None) -> AsyncIterator[AsyncCursor[DictRow]]:
        """A cursor on the connection the turn holds (no pool checkout per statement), else the pool's."""
        if reads is None or reads.conn is None:
            async with self._cursor() as cur:
                yield cur
            return
        async with reads.conn.cursor(binary=True, row_factory=dict_row) as cur:
            yield cur

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        thread_id = config["configurable"]["thread_id"]
        reads = current_turn_reads(thread_id)
        if reads is None:
            return await super().aget_tuple(config)
        checkpoint_ns = config["configurable"].get("checkpoint_ns", "")
        key = (thread_id, checkpoint_ns)
        await reads.flush()  # a read sees everything the run stored (held back or being sent)
        checkpoint_id = get_checkpoint_id(config)
        head = reads.heads.get(key)
        if head is not None and (not checkpoint_id or checkpoint_id == head.checkpoint_id):
            return await self._load_checkpoint_tuple(head.row(thread_id, checkpoint_ns))  # type: ignore[arg-type]
        if checkpoint_id:
            return await super().aget_tuple(config)
        generation = reads.generation.get(key, 0)
        async with self._turn_cursor(reads) as cur:
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

    async def alist(self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
                    before: RunnableConfig | None = None, limit: int | None = None) -> AsyncIterator[CheckpointTuple]:
        reads = current_turn_reads(config["configurable"]["thread_id"]) if config else None
        if reads is not None:
            await reads.flush()
        async for item in super().alist(config, filter=filter, before=before, limit=limit):
            yield item

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
        put = _Put(checkpoint, dict(copy), dict(get_serializable_checkpoint_metadata(config, metadata)), parent_id,
                   new_versions, blobs)
        key = (thread_id, checkpoint_ns)
        reads = current_turn_reads(thread_id)
        if reads is None or reads.linger <= 0:
            await self._store(reads, key, _Held([put]))
        else:  # held back: it goes with the run's next statement, when the thread is read or the turn ends
            held = reads.pending.setdefault(key, _Held())
            held.puts.append(put)
            reads.hold_back(lambda background: self._flush_all(reads, background))
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
        return _Head(checkpoint["id"], parent_id, stored, metadata, versions, kept)

    def _committed(self, reads: TurnReads, key: tuple[str, str], held: _Held) -> None:
        """``held`` committed: the thread's head follows its checkpoints in order (None when one is
        not known here); the writes on the head are part of its row, those on a checkpoint not put
        yet wait for its ``aput``."""
        head = reads.heads.get(key)
        for put in held.puts:
            head = self._after_put(reads, key, head, put)
        for write in held.writes.values():
            if head is not None and write.checkpoint_id == head.checkpoint_id:
                _keep(head.writes, (write.task_id, write.idx), write, write.selected())
            elif head is None or write.checkpoint_id > head.checkpoint_id:
                early = reads.early.setdefault((key[0], key[1], write.checkpoint_id), {})
                _keep(early, (write.task_id, write.idx), write, write.selected())
        reads.changed(key, head)

    def _after_put(self, reads: TurnReads, key: tuple[str, str], previous: _Head | None, put: _Put) -> _Head | None:
        checkpoint_id = put.checkpoint["id"]
        if previous is not None and previous.checkpoint_id > checkpoint_id:
            return previous  # the head stays the latest
        early = reads.early.pop((key[0], key[1], checkpoint_id), {})
        head = self._next_head(previous, put.checkpoint, put.stored, put.metadata, put.parent_id, put.new_versions,
                               put.blobs)
        if head is not None:
            if previous is not None and previous.checkpoint_id == head.checkpoint_id:
                head.writes.update(previous.writes)  # the checkpoint was put again: its writes stay
            head.writes.update(early)
        return head

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                          task_path: str = "") -> None:
        upsert = all(w[0] in WRITES_IDX_MAP for w in writes)
        configurable = config["configurable"]
        thread_id, checkpoint_ns = configurable["thread_id"], configurable["checkpoint_ns"]
        checkpoint_id = configurable["checkpoint_id"]
        rows: dict[int, _Write] = {}  # one row per key, as one statement per write would leave
        for row in self._dump_writes(thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, writes):
            write = _Write(checkpoint_id, task_id, task_path, row[5], row[6], row[7], row[8], upsert)
            _keep(rows, write.idx, write, write)
        reads, key = current_turn_reads(thread_id), (thread_id, checkpoint_ns)
        if reads is None or reads.linger <= 0:
            await self._store(reads, key, _Held(writes={w.key: w for w in rows.values()}))
            return
        # Inside a turn they wait for the run's next statement (see ``aput``): a crash before then
        # loses the task's result and the checkpoints with it, the thread staying as it was.
        held = reads.pending.setdefault(key, _Held())
        for write in rows.values():
            _keep(held.writes, write.key, write, write)
        reads.hold_back(lambda background: self._flush_all(reads, background))

    async def _store(self, reads: TurnReads | None, key: tuple[str, str], held: _Held) -> None:
        """Send ``held`` now and keep the turn's head up to date (forgotten when the statement fails)."""
        try:
            await self._send(reads, key, held)
        except BaseException:
            if reads is not None:
                reads.changed(key)
            raise
        if reads is not None:
            self._committed(reads, key, held)

    async def _send(self, reads: TurnReads | None, key: tuple[str, str], held: _Held) -> None:
        """One statement for everything ``held`` has (on the turn's connection when it has one)."""
        params: dict[str, Any] = {"thread_id": key[0], "checkpoint_ns": key[1]}
        if held.puts:
            params.update(_puts_params(held.puts))
        if held.writes:
            params.update(_writes_params(list(held.writes.values())))
        sql = (PUT_WITH_WRITES_SQL if held.writes else PUT_SQL) if held.puts else PUT_WRITES_SQL
        async with self._turn_cursor(reads) as cur:
            await cur.execute(sql, params)

    async def _flush_all(self, reads: TurnReads, background: bool) -> None:
        for key in [k for k, held in reads.pending.items() if held]:
            try:
                await self._flush(reads, key, keep=background)
            except Exception:
                if not background:
                    raise
                logger.warning("checkpoints of thread %s could not be stored yet; they go with its next "
                               "statement", key[0], exc_info=True)

    async def _flush(self, reads: TurnReads, key: tuple[str, str], *, keep: bool = False) -> None:
        """Send what is held back for ``key`` now (a read needs it, the run ended, or it waited too
        long). When the statement fails it is dropped (the caller reports the error), or with
        ``keep`` held back again (a background flush: the next statement takes it, or reports)."""
        held = reads.pending.pop(key, None)
        if not held:
            return
        reads.took()
        try:
            await self._store(reads, key, held)
        except BaseException:
            if keep:
                later = reads.pending.setdefault(key, _Held())
                later.puts[:0] = held.puts
                for write_key, write in held.writes.items():
                    later.writes.setdefault(write_key, write)  # a newer write of the key stays
            raise

    async def _load_checkpoint_tuple(self, value: DictRow) -> CheckpointTuple:
        def config_of(checkpoint_id: str) -> RunnableConfig:
            return {"configurable": {"thread_id": value["thread_id"], "checkpoint_ns": value["checkpoint_ns"],
                                     "checkpoint_id": checkpoint_id}}

        checkpoint = {**value["checkpoint"], "channel_values": {
            **(value["checkpoint"].get("channel_values") or {}), **self._load_blobs(value["channel_values"])}}
        parent = value["parent_checkpoint_id"]
        return CheckpointTuple(config_of(value["checkpoint_id"]), checkpoint, value["metadata"],  # type: ignore[arg-type]
                               config_of(parent) if parent else None, self._load_writes(value["pending_writes"]))
