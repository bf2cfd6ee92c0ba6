"""Deterministic generator of the demo retail data.

SQLite and PostgreSQL are both filled from :func:`generate_demo_data`, so the two engines hold the
same rows and a gold query must return the same multiset on either. All randomness goes through one
seeded ``random.Random`` and never iterates a set of strings, so the output does not depend on
``PYTHONHASHSEED``. Dates are ISO strings (see ``schema.py`` for why).
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import TypeVar

from .schema import TABLES

DEFAULT_SEED = 20240601
N_CUSTOMERS = 5_000
N_ORDERS = 45_000  # about 2.5 lines per order: order_items ends up well above 100,000 rows

_T = TypeVar("_T")
Row = tuple[object, ...]
DemoData = dict[str, list[Row]]

REGIONS = [  # code, name, share of customers
    ("SEL", "서울", 25), ("GGI", "경기", 22), ("BSN", "부산", 9), ("ICN", "인천", 8), ("DGU", "대구", 6),
    ("GWJ", "광주", 5), ("DJN", "대전", 5), ("ULS", "울산", 4), ("GWN", "강원", 4), ("JEJ", "제주", 3),
]
GRADES = [
    ("G", "일반", "가입 후 기본 등급", 70, 1.0),
    ("S", "실버", "연간 구매 50만원 이상", 22, 2.0),
    ("V", "VIP", "연간 구매 200만원 이상 최우수 고객", 8, 4.0),
]
STATUSES = [
    ("P", "결제완료", "결제가 끝나고 출고를 기다리는 주문"),
    ("S", "배송중", "출고되어 배송 중인 주문"),
    ("D", "배송완료", "고객에게 배송이 끝난 주문"),
    ("C", "취소", "고객 또는 판매자가 취소한 주문 (매출 제외)"),
]
PAYMENT_METHODS = [("CC", "신용카드", 45), ("BT", "계좌이체", 12), ("KP", "카카오페이", 20),
                   ("NP", "네이버페이", 15), ("MP", "휴대폰결제", 8)]
STORES = [  # name, region, type
    ("서울 강남점", "SEL"), ("서울 홍대점", "SEL"), ("서울 잠실점", "SEL"), ("서울 여의도점", "SEL"),
    ("경기 분당점", "GGI"), ("경기 수원점", "GGI"), ("경기 일산점", "GGI"), ("부산 해운대점", "BSN"),
    ("부산 서면점", "BSN"), ("인천 송도점", "ICN"), ("인천 부평점", "ICN"), ("대구 동성로점", "DGU"),
    ("광주 충장로점", "GWJ"), ("대전 둔산점", "DJN"), ("울산 삼산점", "ULS"), ("강원 춘천점", "GWN"),
    ("제주 연동점", "JEJ"),
]
ONLINE_STORE = ("온라인몰", "SEL")
CATEGORIES = [  # name, product nouns, (min price, max price)
    ("가전", ["무선 청소기", "공기청정기", "전기밥솥", "블루투스 이어폰", "스마트 TV", "제습기", "커피머신"],
     (50_000, 2_500_000)),
    ("식품", ["유기농 현미", "제주 감귤", "한우 선물세트", "포기김치", "견과류 믹스", "홍삼 스틱",
              "원두커피"], (5_000, 150_000)),
    ("의류", ["니트 가디건", "청바지", "패딩 점퍼", "린넨 셔츠", "트렌치코트", "후드티", "슬랙스"],
     (20_000, 300_000)),
    ("화장품", ["수분 크림", "선크림", "클렌징 폼", "립스틱", "에센스", "토너", "쿠션 팩트"],
     (10_000, 120_000)),
    ("생활용품", ["세탁 세제", "칫솔 세트", "수건 세트", "물티슈", "주방 세제", "수납함"], (3_000, 50_000)),
    ("도서", ["에세이", "장편소설", "요리책", "자기계발서", "그림책", "여행 가이드"], (10_000, 40_000)),
    ("스포츠", ["요가 매트", "러닝화", "등산 배낭", "덤벨 세트", "자전거 헬멧", "캠핑 의자"],
     (15_000, 400_000)),
    ("가구", ["원목 식탁", "사무용 의자", "컴퓨터 책상", "패브릭 소파", "침대 프레임", "책장"],
     (80_000, 1_500_000)),
    ("완구", ["블록 세트", "곰 인형", "RC 자동차", "직소 퍼즐", "보드게임"], (10_000, 150_000)),
    ("반려동물", ["강아지 사료", "고양이 모래", "캣타워", "산책 리드줄", "펫 간식"], (5_000, 200_000)),
]
BRANDS = ["한빛", "다온", "해담", "온누리", "새봄", "아라", "가온", "라온", "미르", "누리"]
MODIFIERS = ["프리미엄", "스마트", "미니", "슬림", "클래식", "데일리", "에코", "프로"]
PRODUCTS_PER_CATEGORY = 30
SURNAMES = ["김"] * 21 + ["이"] * 15 + ["박"] * 8 + ["최"] * 5 + ["정"] * 5 + list(
    "강조윤장임한오서신권황안송류전홍고문양손배백허유남심노하곽성차주우구민진나")
GIVEN_SYLLABLES = list("민서지현준우예도하윤수영진성은혜연재동훈유아소희정호승채다원시경태주나")
POSITIONS = [("점장", 1, (60_000_000, 80_000_000)), ("매니저", 2, (42_000_000, 55_000_000)),
             ("사원", 6, (28_000_000, 38_000_000))]
REVIEW_TEXTS = {
    5: ["정말 만족합니다", "배송도 빠르고 품질도 좋아요", "재구매 의사 있어요", "가격 대비 최고입니다"],
    4: ["전반적으로 만족해요", "괜찮은 편이에요", "포장이 꼼꼼했어요"],
    3: ["보통이에요", "가격만큼 합니다", "무난해요"],
    2: ["기대보다 아쉬워요", "배송이 늦었어요", "품질이 별로예요"],
    1: ["다시는 안 사요", "불량품이 왔어요", "환불하고 싶어요"],
}
MONTH_WEIGHT = [0.8, 0.85, 0.9, 0.9, 1.0, 0.95, 0.9, 0.9, 1.0, 1.05, 1.3, 1.45]  # Nov/Dec peak
_ONE_TO_FIVE = (1, 2, 3, 4, 5)
_LINES_CUM = (25, 55, 80, 92, 100)  # lines per order
_QTY_CUM = (70, 90, 97, 99, 100)  # quantity per line
FIRST_ORDER_DAY = date(2023, 1, 1).toordinal()
LAST_ORDER_DAY = date(2024, 12, 31).toordinal()


_ISO_CACHE: dict[int, str] = {}


def _iso(ordinal: int) -> str:
    text = _ISO_CACHE.get(ordinal)
    if text is None:
        text = _ISO_CACHE[ordinal] = date.fromordinal(ordinal).isoformat()
    return text


def _pick(rng: random.Random, values: Sequence[_T], cum_weights: Sequence[float]) -> _T:
    """Same draw as ``rng.choices(values, cum_weights=...)[0]`` without its per-call overhead (300k calls)."""
    return values[bisect.bisect(cum_weights, rng.random() * cum_weights[-1])]


def _day(rng: random.Random, start: date, end: date) -> int:
    return rng.randint(start.toordinal(), end.toordinal())


def _person_name(rng: random.Random) -> str:
    return rng.choice(SURNAMES) + rng.choice(GIVEN_SYLLABLES) + rng.choice(GIVEN_SYLLABLES)


def _price(rng: random.Random, low: int, high: int) -> int:
    """Log-uniform price ending in 900 or 000, like a real price tag."""
    raw = int(low * (high / low) ** rng.random())
    rounded = max(1_000, round(raw, -3))
    return rounded - 100 if rng.random() < 0.6 else rounded


@dataclass(frozen=True)
class _Buyer:
    customer_id: int
    region_code: str
    grade_code: str
    join_day: int


@dataclass(frozen=True)
class _Catalogue:
    prices: list[int]  # index = product_id
    quality: list[float]  # index = product_id; mean review rating


@dataclass(frozen=True)
class _Channels:
    online_store: int
    offline_stores: list[int]
    stores_by_region: dict[str, list[int]]
    staff_by_store: dict[int, list[int]]


def generate_demo_data(seed: int = DEFAULT_SEED) -> DemoData:
    """Build every table's rows in schema order; the same seed always gives the same rows."""
    rng = random.Random(seed)
    data: DemoData = {t.name: [] for t in TABLES}
    data["regions"] = [(code, name) for code, name, _ in REGIONS]
    data["customer_grades"] = [(code, name, desc) for code, name, desc, _, _ in GRADES]
    data["status_codes"] = list(STATUSES)
    data["payment_methods"] = [(code, name) for code, name, _ in PAYMENT_METHODS]
    data["categories"] = [(i, name) for i, (name, _, _) in enumerate(CATEGORIES, start=1)]

    data["customers"], buyers = _customers(rng)
    data["products"], catalogue = _products(rng)
    data["stores"], data["employees"], channels = _stores_and_employees(rng)
    _orders(rng, data, buyers, catalogue, channels)
    return data


def _customers(rng: random.Random) -> tuple[list[Row], list[_Buyer]]:
    region_codes = [code for code, _, _ in REGIONS]
    region_weights = list(itertools.accumulate(w for _, _, w in REGIONS))
    grade_codes = [g[0] for g in GRADES]
    grade_weights = list(itertools.accumulate(g[3] for g in GRADES))
    rows: list[Row] = []
    buyers: list[_Buyer] = []
    for cid in range(1, N_CUSTOMERS + 1):
        name = _person_name(rng)
        gender = "F" if rng.random() < 0.52 else "M"
        birth = _iso(_day(rng, date(1955, 1, 1), date(2005, 12, 31)))
        region = _pick(rng, region_codes, region_weights)
        grade = _pick(rng, grade_codes, grade_weights)
        joined = _day(rng, date(2018, 1, 1), date(2024, 6, 30))
        rows.append((cid, name, gender, birth, region, grade, _iso(joined)))
        buyers.append(_Buyer(cid, region, grade, joined))
    return rows, buyers


def _products(rng: random.Random) -> tuple[list[Row], _Catalogue]:
    rows: list[Row] = []
    prices = [0]
    quality = [0.0]
    seen: dict[str, None] = {}
    for cat_id, (_, nouns, (low, high)) in enumerate(CATEGORIES, start=1):
        cat_quality = rng.uniform(3.3, 4.4)
        made = 0
        while made < PRODUCTS_PER_CATEGORY:
            name = f"{rng.choice(BRANDS)} {rng.choice(MODIFIERS)} {rng.choice(nouns)}"
            if name in seen:
                continue
            seen[name] = None
            made += 1
            pid = len(rows) + 1
            launch = _iso(_day(rng, date(2019, 1, 1), date(2024, 9, 30)))
            price = _price(rng, low, high)
            rows.append((pid, name, cat_id, price, launch))
            prices.append(price)
            quality.append(min(4.9, max(2.2, rng.gauss(cat_quality, 0.35))))
    return rows, _Catalogue(prices, quality)


def _stores_and_employees(rng: random.Random) -> tuple[list[Row], list[Row], _Channels]:
    stores: list[Row] = []
    employees: list[Row] = []
    by_region: dict[str, list[int]] = {}
    staff: dict[int, list[int]] = {}
    for sid, (name, region) in enumerate(STORES, start=1):
        opened = _day(rng, date(2012, 1, 1), date(2021, 12, 31))
        stores.append((sid, name, region, "OFF", _iso(opened)))
        by_region.setdefault(region, []).append(sid)
        for position, count, (low, high) in POSITIONS:
            for _ in range(count if position != "사원" else rng.randint(3, count)):
                hired = rng.randint(opened, date(2024, 6, 30).toordinal())
                salary = round(rng.randint(low, high), -5)
                eid = len(employees) + 1
                employees.append((eid, _person_name(rng), sid, position, _iso(hired), salary))
                staff.setdefault(sid, []).append(eid)
    online = len(stores) + 1
    stores.append((online, ONLINE_STORE[0], ONLINE_STORE[1], "ON", "2015-03-02"))
    return stores, employees, _Channels(online, list(range(1, online)), by_region, staff)


def _status(rng: random.Random, day: int) -> str:
    if day >= date(2024, 12, 24).toordinal():
        return "P" if rng.random() < 0.5 else "S"
    if day >= date(2024, 12, 15).toordinal():
        r = rng.random()
        return "S" if r < 0.4 else ("D" if r < 0.9 else "C")
    return "C" if rng.random() < 0.12 else "D"


def _orders(
    rng: random.Random, data: DemoData, buyers: list[_Buyer], catalogue: _Catalogue, channels: _Channels
) -> None:
    grade_activity = {g[0]: g[4] for g in GRADES}
    buyer_cum = list(itertools.accumulate(grade_activity[b.grade_code] for b in buyers))
    product_ids = list(range(1, len(catalogue.prices)))
    popularity = [1.0 / (rank ** 0.8) for rank in range(1, len(product_ids) + 1)]
    rng.shuffle(popularity)
    prod_cum = list(itertools.accumulate(popularity))
    method_codes = [m[0] for m in PAYMENT_METHODS]
    method_cum = list(itertools.accumulate(m[2] for m in PAYMENT_METHODS))
    max_weight = max(MONTH_WEIGHT)

    orders, items, payments, reviews = data["orders"], data["order_items"], data["payments"], data["reviews"]
    for oid in range(1, N_ORDERS + 1):
        buyer = _pick(rng, buyers, buyer_cum)
        first = max(FIRST_ORDER_DAY, buyer.join_day)
        while True:  # rejection sampling gives the Nov/Dec peak
            day = rng.randint(first, LAST_ORDER_DAY)
            if rng.random() * max_weight < MONTH_WEIGHT[date.fromordinal(day).month - 1]:
                break
        employee_id: int | None = None
        if rng.random() < 0.35:
            store_id = channels.online_store
        else:
            local = channels.stores_by_region.get(buyer.region_code, [])
            near = local and rng.random() < 0.8
            store_id = rng.choice(local) if near else rng.choice(channels.offline_stores)
            employee_id = rng.choice(channels.staff_by_store[store_id])
        status = _status(rng, day)
        orders.append((oid, buyer.customer_id, store_id, employee_id, _iso(day), status))

        n_lines = _pick(rng, _ONE_TO_FIVE, _LINES_CUM)
        picked = dict.fromkeys(_pick(rng, product_ids, prod_cum) for _ in range(n_lines))
        total = 0
        for pid in picked:
            qty = _pick(rng, _ONE_TO_FIVE, _QTY_CUM)
            r = rng.random()
            discount = 0.0 if r < 0.75 else (0.05 if r < 0.9 else 0.10)
            unit = int(catalogue.prices[pid] * (1 - discount)) // 10 * 10
            items.append((len(items) + 1, oid, pid, qty, unit))
            total += qty * unit
            if status == "D" and rng.random() < 0.18:
                rating = min(5, max(1, round(rng.gauss(catalogue.quality[pid], 0.9))))
                reviews.append((len(reviews) + 1, pid, buyer.customer_id, oid, rating,
                                _iso(day + rng.randint(3, 20)), rng.choice(REVIEW_TEXTS[rating])))
        method = _pick(rng, method_codes, method_cum)
        payments.append((oid, oid, method, total, _iso(day)))


def _check_shapes(data: DemoData) -> None:
    """Guard against a generator edit that forgets a column: cheap, runs on every build."""
    for table in TABLES:
        width = len(table.columns)
        bad = next((r for r in data[table.name] if len(r) != width), None)
        if bad is not None:
            raise RuntimeError(f"{table.name}: row {bad!r} has {len(bad)} values, expected {width}")


def demo_data(seed: int = DEFAULT_SEED) -> DemoData:
    """Generate and shape-check; what the loaders call."""
    data = generate_demo_data(seed)
    _check_shapes(data)
    return data

