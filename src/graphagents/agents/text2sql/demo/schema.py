"""Schema of the demo retail database, written once for SQLite and PostgreSQL.

The DDL uses only types both engines understand (INTEGER, TEXT, DATE), so one renderer serves both;
the engines differ only in where the Korean comments go (``COMMENT ON`` vs a ``_comments`` table).
Dates are ISO ``YYYY-MM-DD``: PostgreSQL stores DATE, SQLite keeps the same text, so gold SQL can
filter with plain string literals (``order_date >= '2024-01-01'``) and bucket months with
``SUBSTR(CAST(order_date AS TEXT), 1, 7)`` on either engine.

Indexes are deliberately incomplete: ``orders.order_date`` and ``order_items.product_id`` have none,
so an ``explain`` tool has full scans to find.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ColumnType = Literal["INTEGER", "TEXT", "DATE"]


@dataclass(frozen=True)
class Column:
    name: str
    type: ColumnType
    comment: str
    primary_key: bool = False
    not_null: bool = False
    references: str | None = None  # "table(column)"
    check: str | None = None


@dataclass(frozen=True)
class Table:
    name: str
    comment: str
    columns: tuple[Column, ...]
    indexes: tuple[str, ...] = ()  # single-column secondary indexes

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


def _pk(name: str, comment: str, type_: ColumnType = "INTEGER") -> Column:
    return Column(name, type_, comment, primary_key=True)


def _fk(name: str, target: str, comment: str, type_: ColumnType = "INTEGER", not_null: bool = True) -> Column:
    return Column(name, type_, comment, not_null=not_null, references=target)


TABLES: tuple[Table, ...] = (
    Table(
        "regions",
        "지역 코드표. 고객과 매장의 소재 지역을 3자리 영문 코드로 관리한다 (예: SEL=서울, BSN=부산).",
        (
            _pk("region_code", "지역 코드 (SEL=서울, BSN=부산, ICN=인천, DGU=대구, GWJ=광주, DJN=대전, "
                "ULS=울산, GGI=경기, GWN=강원, JEJ=제주)", "TEXT"),
            Column("region_name", "TEXT", "지역 한글 이름 (예: 서울, 부산)", not_null=True),
        ),
    ),
    Table(
        "customer_grades",
        "고객 등급 코드표. customers.grade_code 의 의미를 정의한다.",
        (
            _pk("grade_code", "등급 코드 (G=일반, S=실버, V=VIP)", "TEXT"),
            Column("grade_name", "TEXT", "등급 이름 (일반, 실버, VIP)", not_null=True),
            Column("description", "TEXT", "등급 부여 기준 설명"),
        ),
    ),
    Table(
        "status_codes",
        "주문 상태 코드표. orders.status_code 의 의미를 정의한다.",
        (
            _pk("status_code", "주문 상태 코드 (P=결제완료, S=배송중, D=배송완료, C=취소)", "TEXT"),
            Column("status_name", "TEXT", "주문 상태 이름 (결제완료, 배송중, 배송완료, 취소)", not_null=True),
            Column("description", "TEXT", "상태 설명"),
        ),
    ),
    Table(
        "payment_methods",
        "결제 수단 코드표. payments.method_code 의 의미를 정의한다.",
        (
            _pk("method_code", "결제 수단 코드 (CC=신용카드, BT=계좌이체, KP=카카오페이, NP=네이버페이, "
                "MP=휴대폰결제)", "TEXT"),
            Column("method_name", "TEXT", "결제 수단 이름", not_null=True),
        ),
    ),
    Table(
        "categories",
        "상품 카테고리 (가전, 식품, 의류 등).",
        (
            _pk("category_id", "카테고리 ID"),
            Column("category_name", "TEXT", "카테고리 이름", not_null=True),
        ),
    ),
    Table(
        "customers",
        "회원 고객. 가입 정보와 등급, 거주 지역을 담는다.",
        (
            _pk("customer_id", "고객 ID"),
            Column("customer_name", "TEXT", "고객 이름 (한글 성명)", not_null=True),
            Column("gender", "TEXT", "성별 (M=남성, F=여성)", not_null=True, check="gender IN ('M', 'F')"),
            Column("birth_date", "DATE", "생년월일 (YYYY-MM-DD)", not_null=True),
            _fk("region_code", "regions(region_code)", "거주 지역 코드 (regions 참조, 예: SEL=서울)", "TEXT"),
            _fk("grade_code", "customer_grades(grade_code)",
                "고객 등급 코드 (G=일반, S=실버, V=VIP; customer_grades 참조)", "TEXT"),
            Column("join_date", "DATE", "회원 가입일 (YYYY-MM-DD)", not_null=True),
        ),
        indexes=("region_code",),
    ),
    Table(
        "products",
        "판매 상품 목록.",
        (
            _pk("product_id", "상품 ID"),
            Column("product_name", "TEXT", "상품명", not_null=True),
            _fk("category_id", "categories(category_id)", "카테고리 ID (categories 참조)"),
            Column("price", "INTEGER", "정가 (원)", not_null=True, check="price > 0"),
            Column("launch_date", "DATE", "출시일 (YYYY-MM-DD)", not_null=True),
        ),
    ),
    Table(
        "stores",
        "오프라인 매장과 온라인몰. 주문이 접수된 판매 채널이다.",
        (
            _pk("store_id", "매장 ID"),
            Column("store_name", "TEXT", "매장 이름 (예: 서울 강남점)", not_null=True),
            _fk("region_code", "regions(region_code)", "매장 소재 지역 코드 (regions 참조)", "TEXT"),
            Column("store_type", "TEXT", "매장 유형 (OFF=오프라인 매장, ON=온라인몰)", not_null=True,
                   check="store_type IN ('OFF', 'ON')"),
            Column("opened_date", "DATE", "개점일 (YYYY-MM-DD)", not_null=True),
        ),
    ),
    Table(
        "employees",
        "매장 직원.",
        (
            _pk("employee_id", "직원 ID"),
            Column("employee_name", "TEXT", "직원 이름", not_null=True),
            _fk("store_id", "stores(store_id)", "소속 매장 ID (stores 참조)"),
            Column("position", "TEXT", "직급 (점장, 매니저, 사원)", not_null=True),
            Column("hire_date", "DATE", "입사일 (YYYY-MM-DD)", not_null=True),
            Column("salary", "INTEGER", "연봉 (원)", not_null=True),
        ),
        indexes=("store_id",),
    ),
    Table(
        "orders",
        "주문 헤더. 2023-01-01 부터 2024-12-31 까지의 주문이다.",
        (
            _pk("order_id", "주문 ID"),
            _fk("customer_id", "customers(customer_id)", "주문 고객 ID (customers 참조)"),
            _fk("store_id", "stores(store_id)", "주문 접수 매장 ID (stores 참조)"),
            _fk("employee_id", "employees(employee_id)", "응대 직원 ID (온라인 주문은 NULL)", not_null=False),
            Column("order_date", "DATE", "주문일 (YYYY-MM-DD). 인덱스 없음", not_null=True),
            _fk("status_code", "status_codes(status_code)",
                "주문 상태 코드 (P=결제완료, S=배송중, D=배송완료, C=취소; status_codes 참조)", "TEXT"),
        ),
        indexes=("customer_id",),
    ),
    Table(
        "order_items",
        "주문 상세 (주문별 상품 라인). 매출 = quantity * unit_price 이며 취소 주문(status_code='C')은 "
        "매출에서 제외한다.",
        (
            _pk("order_item_id", "주문 상세 ID"),
            _fk("order_id", "orders(order_id)", "주문 ID (orders 참조)"),
            _fk("product_id", "products(product_id)", "상품 ID (products 참조). 인덱스 없음"),
            Column("quantity", "INTEGER", "주문 수량", not_null=True, check="quantity > 0"),
            Column("unit_price", "INTEGER", "할인 적용 후 판매 단가 (원)", not_null=True),
        ),
        indexes=("order_id",),
    ),
    Table(
        "payments",
        "주문 결제 내역. 주문 1건당 결제 1건이다.",
        (
            _pk("payment_id", "결제 ID"),
            _fk("order_id", "orders(order_id)", "주문 ID (orders 참조)"),
            _fk("method_code", "payment_methods(method_code)",
                "결제 수단 코드 (CC=신용카드, BT=계좌이체, KP=카카오페이, NP=네이버페이, MP=휴대폰결제)",
                "TEXT"),
            Column("amount", "INTEGER", "결제 금액 (원)", not_null=True),
            Column("paid_date", "DATE", "결제일 (YYYY-MM-DD)", not_null=True),
        ),
    ),
    Table(
        "reviews",
        "배송완료 주문의 상품 리뷰.",
        (
            _pk("review_id", "리뷰 ID"),
            _fk("product_id", "products(product_id)", "리뷰 대상 상품 ID (products 참조)"),
            _fk("customer_id", "customers(customer_id)", "작성 고객 ID (customers 참조)"),
            _fk("order_id", "orders(order_id)", "리뷰가 달린 주문 ID (orders 참조)"),
            Column("rating", "INTEGER", "평점 (1~5점)", not_null=True, check="rating BETWEEN 1 AND 5"),
            Column("review_date", "DATE", "작성일 (YYYY-MM-DD)", not_null=True),
            Column("content", "TEXT", "리뷰 내용"),
        ),
        indexes=("product_id",),
    ),
)

TABLES_BY_NAME: dict[str, Table] = {t.name: t for t in TABLES}


def create_table_sql(table: Table, *, foreign_keys: bool = True) -> str:
    """Render CREATE TABLE in the subset of SQL shared by SQLite and PostgreSQL.

    PostgreSQL passes ``foreign_keys=False`` and adds them after COPY (:func:`foreign_key_sql`):
    one bulk validation is several times faster than a trigger check per row.
    """
    parts = []
    for col in table.columns:
        piece = f"{col.name} {col.type}"
        if col.primary_key:
            piece += " PRIMARY KEY"
        if col.not_null:
            piece += " NOT NULL"
        if col.check:
            piece += f" CHECK ({col.check})"
        if col.references and foreign_keys:
            piece += f" REFERENCES {col.references}"
        parts.append(piece)
    body = ",\n  ".join(parts)
    return f"CREATE TABLE {table.name} (\n  {body}\n)"


def foreign_key_sql(table: Table) -> list[str]:
    return [
        f"ALTER TABLE {table.name} ADD FOREIGN KEY ({col.name}) REFERENCES {col.references}"
        for col in table.columns
        if col.references
    ]


def create_index_sql(table: Table, column: str) -> str:
    return f"CREATE INDEX idx_{table.name}_{column} ON {table.name} ({column})"
