"""Price statistics over transaction rows: by region, size class and period; trend; jeonse ratio.

Rows come from whatever table the market tool queried (ours or the user's), so columns are
recognised by name (``amount_manwon``, ``거래금액`` ...), not by position.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from ..records import Transaction

PYEONG_M2 = 3.305785
SIZE_CLASSES: tuple[tuple[str, float, float], ...] = (
    ("전용 60㎡ 이하", 0.0, 60.0),
    ("전용 60~85㎡", 60.0, 85.0),
    ("전용 85㎡ 초과", 85.0, 10_000.0),
)

_ALIASES: dict[str, tuple[str, ...]] = {
    "deal_type": ("deal_type", "거래유형", "거래구분", "전월세구분", "type"),
    "sigungu": ("sigungu", "시군구", "gu", "district", "region"),
    "complex": ("complex", "단지명", "apt_name", "아파트", "name"),
    "area_m2": ("exclusive_area_m2", "전용면적", "전용면적(㎡)", "area", "area_m2", "exclusive_area"),
    "contract_ym": ("contract_ym", "계약년월", "deal_ym", "ym"),
    "amount_manwon": ("amount_manwon", "거래금액", "거래금액(만원)", "보증금", "보증금(만원)", "deal_amount", "price"),
    "contract_day": ("contract_day", "계약일", "deal_day"),
    "floor": ("floor", "층"),
    "build_year": ("build_year", "건축년도"),
}


def _index(columns: Sequence[str]) -> dict[str, int]:
    lowered = {str(c).strip().lower(): i for i, c in enumerate(columns)}
    found: dict[str, int] = {}
    for field, names in _ALIASES.items():
        for name in names:
            if name.lower() in lowered:
                found[field] = lowered[name.lower()]
                break
    return found


def _number(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value).replace(",", "").strip())
    except ValueError:
        return None


def to_transactions(columns: Sequence[str], rows: Iterable[Sequence[Any]],
                    default_deal_type: str | None = None) -> list[Transaction]:
    """Rows of a result table as transactions; rows without an amount, area or month are skipped."""
    idx = _index(columns)
    needed = {"amount_manwon", "area_m2", "contract_ym"}
    if not needed <= set(idx):
        return []
    out = []
    for row in rows:
        amount, area, ym = (_number(row[idx[k]]) for k in ("amount_manwon", "area_m2", "contract_ym"))
        if amount is None or area is None or ym is None:
            continue
        deal = str(row[idx["deal_type"]]) if "deal_type" in idx else (default_deal_type or "")

        def opt(key: str, row: Sequence[Any] = row) -> int | None:
            n = _number(row[idx[key]]) if key in idx else None
            return int(n) if n is not None else None

        out.append(Transaction(
            deal_type=deal, sigungu=str(row[idx["sigungu"]]) if "sigungu" in idx else "",
            complex=str(row[idx["complex"]]) if "complex" in idx else "", area_m2=area,
            contract_ym=int(ym), amount_manwon=int(amount), contract_day=opt("contract_day"),
            floor=opt("floor"), build_year=opt("build_year"),
        ))
    return out


def size_class(area_m2: float) -> str:
    for label, low, high in SIZE_CLASSES:
        if low < area_m2 <= high or (low == 0.0 and area_m2 <= high):
            return label
    return SIZE_CLASSES[-1][0]


def months_back(latest_ym: int, months: int) -> int:
    """The first YYYYMM of the ``months``-month window ending at ``latest_ym``."""
    year, month = divmod(latest_ym, 100)
    index = year * 12 + (month - 1) - (months - 1)
    return (index // 12) * 100 + index % 12 + 1


def select(txs: Sequence[Transaction], *, deal_type: str | None = None, sigungu: str | None = None,
           area_range: tuple[float, float] | None = None, months: int | None = None) -> tuple[
               list[Transaction], dict[str, Any]]:
    """Filter rows and say which filters applied (the period is relative to the latest month present)."""
    applied: dict[str, Any] = {}
    out = list(txs)
    if deal_type:  # rows of a table without a deal-type column ("") are kept: their type is unknown
        out = [t for t in out if t.deal_type in (deal_type, "")]
        applied["deal_type"] = deal_type
    if sigungu:
        # a user's table may hold whole addresses ("서울특별시 강남구 역삼동"): the 구 is one of its words
        out = [t for t in out if not t.sigungu or t.sigungu == sigungu or sigungu in t.sigungu.split()]
        applied["sigungu"] = sigungu
    if area_range:
        low, high = area_range
        out = [t for t in out if low <= t.area_m2 <= high]
        applied["area_m2"] = [low, high]
    if months and out:
        latest = max(t.contract_ym for t in out)
        start = months_back(latest, months)
        out = [t for t in out if t.contract_ym >= start]
        applied["period"] = [start, latest]
    return out, applied


def _summary(values: list[int]) -> dict[str, Any]:
    return {"count": len(values), "mean": round(statistics.fmean(values)), "median": round(statistics.median(values)),
            "min": min(values), "max": max(values)}


def price_stats(txs: Sequence[Transaction], by: str = "size") -> list[dict[str, Any]]:
    """Count / mean / median / min / max of the amount, and per-3.3㎡ (평당) price, per group."""
    keyf = {"size": lambda t: size_class(t.area_m2), "region": lambda t: t.sigungu or "전체",
            "period": lambda t: f"{t.year}년 {(t.month - 1) // 3 + 1}분기", "complex": lambda t: t.complex,
            "all": lambda t: "전체"}[by]
    groups: dict[tuple[str, str], list[Transaction]] = defaultdict(list)
    for t in txs:
        groups[(t.deal_type, keyf(t))].append(t)
    out = []
    for (deal, key), items in sorted(groups.items()):
        amounts = [t.amount_manwon for t in items]
        per_pyeong = [t.amount_manwon / (t.area_m2 / PYEONG_M2) for t in items]
        out.append({"deal_type": deal or "거래", "group": key, **_summary(amounts),
                    "per_3_3m2_median": round(statistics.median(per_pyeong)),
                    "period": [min(t.contract_ym for t in items), max(t.contract_ym for t in items)]})
    return out


def trend(txs: Sequence[Transaction]) -> dict[str, Any] | None:
    """Monthly median price per ㎡, its least-squares slope, and first vs last quarter of the window."""
    by_month: dict[int, list[float]] = defaultdict(list)
    for t in txs:
        by_month[t.contract_ym].append(t.amount_manwon / t.area_m2)
    if len(by_month) < 3:
        return None
    months = sorted(by_month)
    medians = [statistics.median(by_month[m]) for m in months]
    xs = [((m // 100) * 12 + m % 100) for m in months]
    x0 = xs[0]
    xs = [x - x0 for x in xs]
    slope = statistics.linear_regression(xs, medians).slope
    k = max(1, len(months) // 4)
    first, last = statistics.fmean(medians[:k]), statistics.fmean(medians[-k:])
    change = (last - first) / first
    direction = "상승" if change > 0.02 else "하락" if change < -0.02 else "보합"
    return {"months": months, "median_per_m2": [round(v, 1) for v in medians],
            "slope_per_m2_per_month": round(slope, 2), "change_pct": round(change * 100, 1),
            "direction": direction, "numbers": f"첫 {k}개월 ㎡당 중앙값 평균 {first:,.0f}만원 → "
                                                f"마지막 {k}개월 {last:,.0f}만원"}


def jeonse_ratio(txs: Sequence[Transaction]) -> dict[str, Any] | None:
    """Median 전세 / median 매매 per (complex, size class), and overall over matched pairs."""
    groups: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for t in txs:
        groups[(t.complex, size_class(t.area_m2))][t.deal_type].append(t.amount_manwon)
    pairs: list[dict[str, Any]] = []
    for (complex_name, size), deals in sorted(groups.items()):
        if deals.get("매매") and deals.get("전세"):
            sale, jeonse = statistics.median(deals["매매"]), statistics.median(deals["전세"])
            pairs.append({"complex": complex_name, "size": size, "sale_median": round(sale),
                          "jeonse_median": round(jeonse), "ratio_pct": round(jeonse / sale * 100, 1),
                          "n_sale": len(deals["매매"]), "n_jeonse": len(deals["전세"])})
    if not pairs:
        return None
    ratios = [float(p["ratio_pct"]) for p in pairs]
    return {"pairs": pairs, "median_ratio_pct": round(statistics.median(ratios), 1),
            "numbers": f"단지·면적 {len(pairs)}쌍의 전세 중앙값 ÷ 매매 중앙값"}


def _key(name: str) -> str:
    return "".join(name.split()).lower()


def restrict_to_complex(found: dict[str, Any], complex_name: str) -> dict[str, Any]:
    """The market result kept to the rows of the complex the question names.

    The SQL sub-agent may answer "헬리오시티 거래 내역" with rows it could link (the district, or
    every row): those are not that complex's prices. Kept: rows whose complex column contains the
    name. None kept (or no complex column to check) -> no table, and ``complex_missing`` says so."""
    table = found.get("table") or {}
    columns, rows = list(table.get("columns") or []), list(table.get("rows") or [])
    idx = _index(columns).get("complex")
    want = _key(complex_name)
    kept = [r for r in rows if idx is not None and want in _key(str(r[idx]))]
    names = sorted({str(r[idx]) for r in kept}) if idx is not None else []
    if len(names) > 1 and not any(_key(n) == want for n in names):
        # "가상단지C" is in several districts: one median over all of them is no complex's price
        why = (f"같은 이름의 단지가 여러 곳({', '.join(names)})에 있어 어느 단지인지 알 수 없습니다: "
               "구를 함께 알려 주세요")
        return {**found, "table": None, "rows": 0, "status": "complex_missing",
                "complex_missing": {"name": complex_name, "why": why, "returned_rows": len(rows)},
                "missing": [f"{complex_name}의 거래 — {why}"]}
    if kept:
        return {**found, "table": {**table, "rows": kept}, "rows": len(kept)}
    why = ("거래 테이블에 단지명 열이 없어 확인할 수 없습니다" if idx is None and rows
           else "시세 데이터에 이 단지의 거래가 없습니다")
    return {**found, "table": None, "rows": 0, "status": "complex_missing",
            "complex_missing": {"name": complex_name, "why": why, "returned_rows": len(rows)},
            "missing": [f"{complex_name}의 거래 — {why}"]}
