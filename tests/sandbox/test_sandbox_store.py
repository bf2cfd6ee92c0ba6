"""The artifact store: content ids, Parquet on disk, a bounded memory cache, copies that protect."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from graphagents.errors import InputError
from graphagents.sandbox import ArtifactStore, get_store


@pytest.fixture
def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {"name": ["a", "b", None], "n": [1, 2, 3], "x": [0.5, np.nan, 2.0], "t": pd.to_datetime(["2020-01-01"] * 3)}
    )


def test_same_content_same_id_and_one_file(tmp_path: Path, frame: pd.DataFrame) -> None:
    store = ArtifactStore(tmp_path)
    first = store.put(frame)
    second = store.put(frame.copy())
    assert first == second and first.startswith("tbl_") and len(first) == 36
    assert len(list(tmp_path.rglob("*.parquet"))) == 1
    changed = frame.copy()
    changed.loc[0, "n"] = 99
    assert store.put(changed) != first


def test_round_trip_from_disk_in_a_new_store(tmp_path: Path, frame: pd.DataFrame) -> None:
    table_id = ArtifactStore(tmp_path).put(frame)
    again = ArtifactStore(tmp_path)  # empty memory cache: reads the Parquet file
    assert table_id in again
    pd.testing.assert_frame_equal(again.get(table_id), frame)
    info = again.info(table_id)
    assert info.rows == 3 and info.columns == ("name", "n", "x", "t")


def test_get_returns_a_copy_that_cannot_change_the_store(tmp_path: Path, frame: pd.DataFrame) -> None:
    store = ArtifactStore(tmp_path)
    table_id = store.put(frame)
    got = store.get(table_id)
    got.loc[0, "n"] = -1
    got["new"] = 1
    pd.testing.assert_frame_equal(store.get(table_id), frame)


def test_memory_cache_is_bounded(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path, memory_bytes=200_000)
    ids = [store.put(pd.DataFrame({"v": np.arange(10_000) + i})) for i in range(5)]
    assert len(store._frames) < 5  # 80 KB each: they cannot all stay decoded
    for i, table_id in enumerate(ids):  # evicted ones come back from disk
        assert store.get(table_id)["v"].iloc[0] == i


def test_ids_are_validated(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    for bad in ("../../etc/passwd", "tbl_xyz", "tbl_" + "0" * 32):
        assert bad not in store
        with pytest.raises(InputError):
            store.get(bad)
    with pytest.raises(InputError):
        store.put([1, 2])  # type: ignore[arg-type]


def test_ipc_bytes_hash_to_the_id(tmp_path: Path, frame: pd.DataFrame) -> None:
    from graphagents.sandbox.store import table_id_for

    store = ArtifactStore(tmp_path)
    table_id = store.put(frame)
    assert table_id_for(store.ipc(table_id)) == table_id


def test_default_store_lives_under_data_dir() -> None:
    import os

    assert str(get_store().root).startswith(os.environ["GRAPHAGENTS_DATA_DIR"])
