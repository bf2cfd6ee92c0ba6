"""Import and exercise pandas in the worker before the audit hook exists.

pandas imports many modules lazily, on first use of a feature; each such import opens files,
which an armed child may not do. Running the common operations once here loads them into the
worker, and every forked child inherits them. A feature missed here fails in the child with a
clear "import ... is blocked" error rather than silently reading the disk.
"""

from __future__ import annotations

import os

__all__ = ["COMMON_ZONES", "WARMUP_CODE", "run"]

# Time zones read from disk once here (zoneinfo caches them); others fail in the child.
COMMON_ZONES = (
    "UTC", "Asia/Seoul", "Asia/Tokyo", "Asia/Shanghai", "Asia/Singapore", "Europe/London",
    "Europe/Paris", "Europe/Berlin", "America/New_York", "America/Chicago", "America/Los_Angeles",
)  # fmt: skip
_KEEP: list[object] = []

# Representative generated code: filters, joins, groupby, pivots, dates, strings, formatting.
WARMUP_CODE = """
import math, datetime, re, statistics, collections, itertools
df = pd.DataFrame({"a": [1, 2, 3, 4], "b": ["x", "y", "x", "z"], "c": [1.5, None, 2.5, 4.0],
                   "d": ["2020-01-01", "2020-02-01", "2021-03-04", "2022-01-01"]})
other = pd.DataFrame({"b": ["x", "y"], "e": [10, 20]})
out = [
    df.query("a > 1 and b == 'x'"), df.query("a > @math.pi"), df.eval("f = a * 2"),
    df.groupby("b")["a"].agg(["sum", "mean", "count", "max", "min", "median", "std", "nunique"]),
    df.groupby("b", as_index=False).agg(total=("a", "sum")), df.groupby(["b", "a"]).size().unstack(),
    df.merge(other, on="b", how="left"), df.join(other.set_index("b"), on="b"), pd.concat([df, df]),
    pd.to_datetime(df["d"]).dt.year, pd.to_datetime(df["d"], errors="coerce").dt.strftime("%Y-%m"),
    pd.to_datetime(df["d"], format="%Y-%m-%d").dt.to_period("M"), pd.Timestamp("2020-01-01") + pd.Timedelta(days=3),
    df["b"].str.upper().str.contains("X", case=False, regex=True), df["b"].str.extract(r"(\\w)"),
    df["b"].str.replace("x", "y", regex=False).str.split(",").str[0], df["b"].str.len(),
    df["b"].str.strip().str.lower().str.startswith("x"), df["b"].str.normalize("NFKC"),
    repr(df), str(df), df.to_string(), df.to_dict("records"), df.to_dict(), df.to_numpy().tolist(),
    repr(df["a"]), repr(df.groupby("b")), repr(df.dtypes), df.describe(include="all"), df.info,
    df.sort_values(["a", "b"], ascending=[False, True]).head(2), df.nlargest(2, "a"), df.nsmallest(1, "c"),
    df.pivot_table(index="b", values="a", aggfunc="mean"), pd.crosstab(df["b"], df["a"]),
    df.melt(id_vars=["b"]), df["a"].apply(lambda x: x + 1), df.apply(lambda r: r["a"], axis=1),
    df["a"].rolling(2).mean(), df["a"].expanding().sum(), df["a"].cumsum(), df["a"].pct_change(),
    df["a"].rank(), df["b"].value_counts(normalize=True), df[["a", "c"]].corr(), df["a"].diff(),
    pd.to_numeric(pd.Series(["1", "2,3", "x"]).str.replace(",", ""), errors="coerce"),
    pd.cut(df["a"], 2), pd.qcut(df["a"], 2), df["c"].fillna(0).round(1), df.dropna(), df.isna().sum(),
    df.drop_duplicates("b"), df["b"].unique(), df["b"].nunique(), df.loc[df["a"].idxmax()],
    df.iloc[0:2, 0:2], df.set_index("b").loc["x"], df.reset_index(drop=True), df.rename(columns={"a": "A"}),
    df.astype({"a": "float64"}), df["b"].astype("category").cat.codes, df.select_dtypes("number"),
    df.assign(g=lambda t: t["a"] * 2), df.where(df["a"] > 1), df["a"].between(1, 3), df["b"].isin(["x"]),
    df["a"].clip(1, 2), df.sample(2, random_state=0), df.T, df.shape, df.columns.tolist(), df.mean(numeric_only=True),
    np.where(df["a"] > 2, "hi", "lo"), np.select([df["a"] > 2], ["hi"], "lo"), np.mean(df["a"].to_numpy()),
    np.round(np.float64(2.345), 2), np.nan_to_num(np.array([np.nan])), np.percentile([1, 2, 3], 50),
    np.random.default_rng(0).integers(0, 5, 3), np.linalg.norm(np.array([3.0, 4.0])), np.unique([1, 1, 2]),
    f"{df['a'].mean():.2f}", "{:,.1f}".format(1234.5), re.findall(r"\\d+", "a12b3"), re.sub("a", "b", "a"),
    statistics.median([1, 2, 3]), collections.Counter("aab").most_common(1), list(itertools.combinations([1, 2], 2)),
    datetime.date(2020, 1, 1).strftime("%Y"), datetime.datetime(2020, 1, 1) - datetime.timedelta(days=1),
    pd.date_range("2020-01-01", periods=3, freq="D"), pd.Series([1, 2]).quantile(0.5),
    df.groupby("b")["a"].transform("sum"), df.groupby("b").apply(lambda g: g["a"].sum(), include_groups=False),
    df.explode("b"), df.duplicated(), df.sort_index(), df.any(), df.all(), df["a"].mode(), pd.NA,
    pd.isna(None), pd.Series([1.0, None]).interpolate(),
]
try:
    df["missing_column"]
except KeyError:
    pass
"""


def run() -> None:
    """Import what children may use and run :data:`WARMUP_CODE` once (in the worker, unarmed)."""
    import collections
    import ctypes  # noqa: F401  (the child's prctl; imported here, never reachable from generated code)
    import datetime
    import decimal  # noqa: F401
    import itertools
    import math
    import re
    import statistics
    import unicodedata  # noqa: F401

    import numpy as np
    import pandas as pd
    import pyarrow as pa

    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    from .codec import decode_value, encode_value
    from .protocol import decode_body, encode_body

    env = {"pd": pd, "np": np, "math": math, "datetime": datetime, "re": re}
    env.update(statistics=statistics, collections=collections, itertools=itertools)
    exec(compile(WARMUP_CODE, "<warmup>", "exec"), env)
    import zoneinfo
    from zoneinfo import _zoneinfo  # type: ignore[attr-defined]  # pandas' pure-Python twin

    for zone in COMMON_ZONES:  # both classes cache weakly: keep the instances alive
        _KEEP.extend([zoneinfo.ZoneInfo(zone), _zoneinfo.ZoneInfo(zone), pd.Timestamp("2020-01-01", tz=zone)])
    frame = env["df"]
    for value in (frame, frame["a"], 1.5, [1, "a"], {"k": pd.Timestamp("2020-01-01")}, None):
        header, blobs = encode_value(value, max_rows=10, max_items=10, max_chars=100)
        decoded = decode_body(encode_body(header, blobs))
        decode_value(*decoded)
    _ensure_single_thread()


def _ensure_single_thread() -> None:
    """fork() copies only the calling thread; a pool thread left behind would deadlock children."""
    try:
        threads = len(os.listdir("/proc/self/task"))
    except OSError:
        return
    if threads != 1:
        import sys

        print(f"graphagents sandbox worker: {threads} threads before fork (expected 1)", file=sys.stderr)
