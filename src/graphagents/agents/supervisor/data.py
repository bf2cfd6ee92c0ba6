"""The real-estate data set: found on disk, loaded on first use, cached per process.

The statutes and the synthetic transactions and loan products ship inside the package
(``realestate/``, sources and licences in its README); the labelled development queries are in
``evaldata/``. ``find_dataset`` returns that folder, or wherever the ``data`` option or the
``GRAPHAGENTS_REALESTATE_DATA`` variable points (a folder of the same layout). The transactions
become a real SQL database (SQLite under DATA_DIR by default, PostgreSQL on request) so that the
market tool can ask the text2sql agent about them like about any other database.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from graphagents.errors import ConfigError
from graphagents.packagedata import package_path
from graphagents.store import building_sqlite, sqlite_stamp

from .records import Article, LoanProduct

ARTICLES = "laws/articles.jsonl"
TRANSACTIONS_CSV = "synthetic/apt_transactions_SYNTHETIC.csv"
LOAN_PRODUCTS = "synthetic/loan_products_SYNTHETIC.jsonl"
ENV_VAR = "GRAPHAGENTS_REALESTATE_DATA"
_PACKAGE = __package__ or "graphagents.agents.supervisor"

TABLE = "apt_transactions"
SQLITE_NAME = "supervisor_transactions.sqlite"
COLUMNS: tuple[tuple[str, str, str], ...] = (
    # name, SQL type, Korean comment (the text2sql agent links questions to these)
    ("id", "INTEGER PRIMARY KEY", "거래 번호"),
    ("deal_type", "TEXT NOT NULL", "거래 유형: 매매 또는 전세"),
    ("sido", "TEXT NOT NULL", "시도 (예: 서울특별시)"),
    ("sigungu", "TEXT NOT NULL", "시군구 (예: 강남구)"),
    ("complex", "TEXT NOT NULL", "아파트 단지명"),
    ("exclusive_area_m2", "REAL NOT NULL", "전용면적(㎡)"),
    ("contract_ym", "INTEGER NOT NULL", "계약년월 (YYYYMM)"),
    ("contract_day", "INTEGER", "계약일"),
    ("amount_manwon", "INTEGER NOT NULL", "거래금액(매매) 또는 보증금(전세), 만원"),
    ("floor", "INTEGER", "층"),
    ("build_year", "INTEGER", "건축년도"),
    ("synthetic", "INTEGER NOT NULL", "합성(가상) 데이터 여부: 1이면 실제 거래가 아님"),
)
TABLE_COMMENT = "아파트 매매·전세 실거래 내역 (합성 데이터: 실제 시세가 아님)"


def find_dataset(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The dataset folder: the explicit path, $GRAPHAGENTS_REALESTATE_DATA, or the bundled one."""
    chosen = explicit or os.environ.get(ENV_VAR)
    if chosen:
        path = Path(chosen).expanduser()
        if not (path / ARTICLES).is_file():
            raise ConfigError(f"{str(path)!r} is not the real-estate dataset: {ARTICLES} is missing there")
        return path
    return package_path(_PACKAGE, "realestate")


def dev_queries_path() -> Path:
    """The labelled development queries (36, written for graphagents, CC0)."""
    return package_path(_PACKAGE, "evaldata", "dev_queries.jsonl")


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    out = []
    for n, line in enumerate(lines, 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{str(path)!r} line {n} is not JSON: {exc.msg}") from None
    return out


@lru_cache(maxsize=4)
def load_articles(root: Path) -> tuple[Article, ...]:
    """Every statute article of the dataset, in file order."""
    articles = []
    for row in _read_jsonl(root / ARTICLES):
        meta = row.get("law_meta") or {}
        articles.append(Article(
            id=row["id"], law=row["law"], law_short=row["law_short"], article_no=row["article_no"],
            title=row.get("title") or "", text=row.get("text") or "", deleted=bool(row.get("deleted")),
            effective=str(meta.get("시행일자") or ""), url=str((row.get("source") or {}).get("url") or ""),
        ))
    return tuple(articles)


@lru_cache(maxsize=4)
def load_loan_products(root: Path) -> tuple[LoanProduct, ...]:
    products = []
    for row in _read_jsonl(root / LOAN_PRODUCTS):
        products.append(LoanProduct(
            id=row["id"], name=row["name"], purpose=row["purpose"], rate_annual=float(row["rate_annual"]),
            max_amount_manwon=int(row["max_amount_manwon"]), term_years=tuple(int(t) for t in row["term_years"]),
            eligibility=row.get("eligibility", ""), max_ltv=row.get("max_ltv"), max_dsr=row.get("max_dsr"),
            max_deposit_ratio=row.get("max_deposit_ratio"), synthetic=bool(row.get("synthetic", True)),
        ))
    return tuple(products)


def load_queries(path: Path) -> list[dict[str, Any]]:
    """Labelled queries in the dev file's format (one JSON object per line)."""
    rows = _read_jsonl(path)
    for n, row in enumerate(rows, 1):
        missing = {"id", "query", "teams"} - set(row)
        if missing:
            raise ConfigError(f"{str(path)!r} query {n} lacks {sorted(missing)}: "
                              "use the format of evaldata/dev_queries.jsonl")
    return rows


def transaction_rows(root: Path) -> list[tuple[Any, ...]]:
    """The synthetic CSV as typed rows in ``COLUMNS`` order."""
    path = root / TRANSACTIONS_CSV
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            raw = list(csv.DictReader(fh))
    except OSError as exc:
        raise ConfigError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    rows = []
    for i, r in enumerate(raw, 1):
        rows.append((i, r["deal_type"], r["sido"], r["sigungu"], r["complex"], float(r["exclusive_area_m2"]),
                     int(r["contract_ym"]), int(r["contract_day"]), int(r["amount_manwon"]), int(r["floor"]),
                     int(r["build_year"]), 1 if r.get("synthetic", "true").lower() == "true" else 0))
    return rows


def _stamp(root: Path) -> int:
    digest = hashlib.sha256((root / TRANSACTIONS_CSV).read_bytes())
    digest.update(repr(COLUMNS).encode())
    return int(digest.hexdigest()[:7], 16)


_build_lock = threading.Lock()


def transactions_sqlite(root: Path, data_dir: Path) -> Path:
    """The SQLite copy of the transactions under ``data_dir``, rebuilt when the CSV or schema changed."""
    target = Path(data_dir) / SQLITE_NAME
    stamp = _stamp(root)
    with _build_lock:
        if target.is_file() and sqlite_stamp(target) == stamp:
            return target
        with building_sqlite(target, stamp) as con:
            cols = ", ".join(f"{name} {kind}" for name, kind, _ in COLUMNS)
            con.execute(f"CREATE TABLE {TABLE} ({cols})")
            marks = ", ".join("?" * len(COLUMNS))
            con.executemany(f"INSERT INTO {TABLE} VALUES ({marks})", transaction_rows(root))
            con.execute(f"CREATE INDEX ix_{TABLE}_sigungu ON {TABLE} (sigungu, deal_type)")
            con.execute("CREATE TABLE _comments (table_name TEXT NOT NULL, column_name TEXT, comment TEXT NOT NULL)")
            comments = [(TABLE, None, TABLE_COMMENT), *((TABLE, name, c) for name, _, c in COLUMNS)]
            con.executemany("INSERT INTO _comments VALUES (?, ?, ?)", comments)
        return target


def load_transactions_postgres(url: str, root: Path, *, replace: bool = True) -> int:
    """Create ``apt_transactions`` (with Korean column comments) in the database at ``url``; rows loaded."""
    from psycopg import sql

    from graphagents.sql import connect

    rows = transaction_rows(root)
    conn = connect(url)
    with conn, conn.cursor() as cur:
        if replace:
            cur.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(TABLE)))
        cols = sql.SQL(", ").join(
            sql.SQL("{} {}").format(sql.Identifier(name), sql.SQL(kind.replace("REAL", "DOUBLE PRECISION")))
            for name, kind, _ in COLUMNS
        )
        cur.execute(sql.SQL("CREATE TABLE {} ({})").format(sql.Identifier(TABLE), cols))
        names = sql.SQL(", ").join(sql.Identifier(name) for name, _, _ in COLUMNS)
        with cur.copy(sql.SQL("COPY {} ({}) FROM STDIN").format(sql.Identifier(TABLE), names)) as copy:
            for row in rows:
                copy.write_row(row)
        cur.execute(sql.SQL("COMMENT ON TABLE {} IS {}").format(sql.Identifier(TABLE), sql.Literal(TABLE_COMMENT)))
        for name, _, comment in COLUMNS:
            target = sql.Identifier(TABLE, name)
            cur.execute(sql.SQL("COMMENT ON COLUMN {} IS {}").format(target, sql.Literal(comment)))
        cur.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(TABLE)))
    conn.close()
    return len(rows)
