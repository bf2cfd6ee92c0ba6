"""The async PostgreSQL checkpointer the runtime uses: LangGraph's ``AsyncPostgresSaver`` without
its two per-call costs that a server with many concurrent sessions pays on every step.

1. It (de)serializes checkpoint blobs and writes with ``asyncio.to_thread``: a thread hop, a
   wake-up of the loop and a GIL hand-over for a few hundred microseconds of msgpack work on a
   slotfill-sized state, several times per turn. Here that work runs inline.
2. It holds one ``asyncio.Lock`` around every query, also when it was given a connection pool: a
   process's checkpoint reads and writes queue behind each other's network round trips. With a
   pool each query takes its own connection, so here the lock is only used for a single
   connection (as upstream does).

The methods below mirror ``langgraph-checkpoint-postgres`` 3.x (``aput``, ``aput_writes``,
``_load_checkpoint_tuple``, ``_cursor``) with those two changes; the storage format is the same
(tests/core/test_pg_checkpoint.py reads what this saver wrote with the stock savers). Imported only
when a PostgreSQL checkpointer is configured (the ``postgres`` extra).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_serializable_checkpoint_metadata,
)
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from psycopg import AsyncCursor
from psycopg.rows import DictRow, dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool


class InlinePostgresSaver(AsyncPostgresSaver):
    """``AsyncPostgresSaver`` that serializes inline and, on a pool, runs queries concurrently."""

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
        for key, value in checkpoint["channel_values"].items():
            if isinstance(value, _DeltaSnapshot):
                blob_values[key] = copy["channel_values"].pop(key)
                copy["channel_values"][key] = True
            elif value is None or isinstance(value, (str, int, float, bool)):
                pass
            else:
                blob_values[key] = copy["channel_values"].pop(key)
        blob_versions = {k: v for k, v in new_versions.items() if k in blob_values}
        blobs = self._dump_blobs(thread_id, checkpoint_ns, blob_values, blob_versions) if blob_versions else None
        row = (thread_id, checkpoint_ns, checkpoint["id"], parent_id, Jsonb(copy),
               Jsonb(get_serializable_checkpoint_metadata(config, metadata)))
        async with self._cursor(pipeline=True) as cur:
            if blobs:
                await cur.executemany(self.UPSERT_CHECKPOINT_BLOBS_SQL, blobs)
            await cur.execute(self.UPSERT_CHECKPOINTS_SQL, row)
        return {"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns,
                                 "checkpoint_id": checkpoint["id"]}}

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                          task_path: str = "") -> None:
        query = (self.UPSERT_CHECKPOINT_WRITES_SQL if all(w[0] in WRITES_IDX_MAP for w in writes)
                 else self.INSERT_CHECKPOINT_WRITES_SQL)
        configurable = config["configurable"]
        params = self._dump_writes(configurable["thread_id"], configurable["checkpoint_ns"],
                                   configurable["checkpoint_id"], task_id, task_path, writes)
        async with self._cursor(pipeline=True) as cur:
            await cur.executemany(query, params)

    async def _load_checkpoint_tuple(self, value: DictRow) -> CheckpointTuple:
        def config_of(checkpoint_id: str) -> RunnableConfig:
            return {"configurable": {"thread_id": value["thread_id"], "checkpoint_ns": value["checkpoint_ns"],
                                     "checkpoint_id": checkpoint_id}}

        checkpoint = {**value["checkpoint"], "channel_values": {
            **(value["checkpoint"].get("channel_values") or {}), **self._load_blobs(value["channel_values"])}}
        parent = value["parent_checkpoint_id"]
        return CheckpointTuple(config_of(value["checkpoint_id"]), checkpoint, value["metadata"],  # type: ignore[arg-type]
                               config_of(parent) if parent else None, self._load_writes(value["pending_writes"]))
