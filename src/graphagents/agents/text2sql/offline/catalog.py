"""What each table and column of a schema can be called, read off names and comments.

A column is known by the words of its name (``unit_price`` -> unit, price), by the head phrase of
its comment ("회원 가입일 (YYYY-MM-DD)" -> 회원 가입일, 가입일, 가입) and by the synonyms of those
words in a small bilingual glossary, so that "가격" finds ``price`` and "revenue" finds the
comment's "매출". Nothing here names a table of any particular database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import lexicon as lx

if TYPE_CHECKING:
    from ..schema import SchemaGraph

__all__ = ["Catalog", "ColumnWords", "Formula", "TableWords", "norm", "word_forms"]

# Synonym sets: a term matches a schema word when their sets meet. Generic business vocabulary.
GLOSSARY: tuple[frozenset[str], ...] = tuple(frozenset(s.split("|")) for s in (
    "price|가격|정가|값|비싸|비싼|싸|싼|저렴|저렴한|cost|costs|expensive|cheap|단가",
    "name|이름|명|성명|title|제목", "amount|금액|액수|paid|결제액",
    "quantity|수량|개수|qty|판매량|팔리|팔린|sold|sell|판매 수량", "rating|평점|별점|점수|score|stars",
    "salary|연봉|급여|월급|pay|wage|annual salary|earn|earns|earned|earning",
    "grade|등급|level|tier", "region|지역|area|지방",
    "status|상태", "gender|성별|sex", "customer|고객|회원|client|손님", "product|상품|제품|item|물건",
    "order|주문|placed|ordered|bought|purchased|구매|구입", "payment|결제|지불",
    "review|리뷰|후기|wrote|written|write|writes|reviewed", "store|매장|점포|지점|shop|branch",
    "employee|직원|사원|staff|worker|점원", "category|카테고리|분류|종류", "method|수단|방법|방식",
    "position|직급|직책|role|job", "revenue|sales|매출|매출액|판매액|turnover|spend|spending|spent|구매액",
    "join|joined|가입|signup|signed up|register|registered|가입자", "open|opened|개점|개업|문을 열|오픈|opening",
    "birth|생년월일|생일|born|출생", "book|책|도서", "author|저자|작가|writer", "loan|대출|borrow|borrowed|빌린",
    "member|회원|patron", "page|pages|페이지|쪽", "cancel|cancelled|canceled|취소", "deliver|delivered|배송완료",
    "ship|shipping|shipped|배송중", "online|온라인|온라인몰", "offline|오프라인", "credit card|신용카드",
    "male|남성|남자|man|men", "female|여성|여자|woman|women", "hire|hired|입사|hiring|채용", "date|일자|날짜|일",
    "city|도시", "country|국가|나라", "type|유형|타입", "content|내용|text|본문", "id|아이디|번호|number|no",
    "year|연도|년도", "published|출판|출간|발행", "genre|장르", "due|반납 예정", "return|returned|반납",
    "location|위치|소재", "age|나이", "email|이메일", "phone|전화", "address|주소",
    # common stored values of Korean commerce data, so English questions reach Korean labels
    "bank transfer|wire transfer|account transfer|계좌이체", "mobile payment|phone payment|휴대폰결제",
    "payment completed|payment complete|결제완료", "general|regular|normal|basic|일반",
    "store manager|branch manager|점장", "electronics|appliances|home appliances|가전",
    "food|groceries|grocery|식품", "clothing|clothes|apparel|fashion|의류", "cosmetics|beauty|화장품",
    "household goods|household|living|생활용품", "furniture|가구", "toys|toy|완구|장난감",
    "pets|pet supplies|반려동물",
))  # fmt: skip
_SYN: dict[str, frozenset[str]] = {}
for _set in GLOSSARY:
    for _w in _set:
        _SYN[_w] = _SYN.get(_w, frozenset()) | _set

_HEAD = re.compile(r"^[^(.,;:]+")
_FORMULA = re.compile(r"([가-힣A-Za-z_]+)\s*=\s*([a-z_][a-z0-9_]*(?:\s*[*+/-]\s*[a-z_][a-z0-9_]*)+)")
_EXCLUDE = re.compile(r"\(([a-z_][a-z0-9_]*)\s*=\s*'([^']+)'\)[^.]*?(?:제외|exclude)", re.I)
_ID_WORDS = ("id", "코드", "번호", "code", "no", "key")


def norm(text: str) -> str:
    return re.sub(r"[\s_]+", "", text.lower())


def word_forms(word: str) -> set[str]:
    """A word, its English singular, the stem of a verb form, and its glossary synonyms."""
    w = word.lower().strip()
    forms = {w, lx.singular(w), norm(w)}
    if w.endswith("ed") and len(w) > 4:
        forms.update({w[:-2], w[:-1]})
    if w.endswith("다") and len(w) > 1:
        forms.add(w[:-1])
    for f in list(forms):
        forms |= _SYN.get(f, frozenset())
    return {f for f in forms if f}


@dataclass
class ColumnWords:
    table: str
    name: str
    type: str
    comment: str
    primary_key: bool
    words: set[str] = field(default_factory=set)  # every form the column answers to
    head: str = ""  # comment head phrase, normalised
    codes: tuple[tuple[str, str], ...] = ()
    samples: tuple[str, ...] = ()

    @property
    def is_date(self) -> bool:
        t = self.type.lower()
        return "date" in t or "time" in t or self.name.lower().endswith(("_date", "_at", "_on"))

    @property
    def is_numeric(self) -> bool:
        t = self.type.lower()
        return any(k in t for k in ("int", "real", "float", "double", "numeric", "decimal", "number"))

    @property
    def is_text(self) -> bool:
        return not self.is_numeric and not self.is_date


@dataclass
class TableWords:
    name: str
    entity: set[str]  # what one row is called: "customer", "고객"
    words: set[str]
    columns: list[ColumnWords]
    primary_key: tuple[str, ...]
    fks: dict[str, tuple[str, str]]  # from_column -> (to_table, to_column)
    row_estimate: int | None
    comment: str

    def column(self, name: str) -> ColumnWords | None:
        return next((c for c in self.columns if c.name == name), None)

    @property
    def label(self) -> ColumnWords | None:
        """The column a person names a row by: a text column called or commented as a name."""
        texts = [c for c in self.columns if c.is_text and not c.primary_key and c.name not in self.fks]
        for c in texts:
            if "name" in c.name.lower() or "title" in c.name.lower():
                return c
        for c in texts:
            if "이름" in c.comment or "명" in c.head[-1:]:
                return c
        return None


@dataclass(frozen=True)
class Formula:
    """A metric defined in a comment, e.g. "매출 = quantity * unit_price" on a line-item table."""

    word: str
    table: str
    expression: str
    excludes: tuple[tuple[str, str], ...]  # (column, value) rows the comment says to leave out


def _phrase_words(text: str) -> set[str]:
    out: set[str] = set()
    head = (_HEAD.match(text or "") or [""])[0].strip()
    if not head:
        return out
    out.add(norm(head))
    pieces = head.split()
    for p in pieces:
        out |= word_forms(p)
    if lx.is_hangul(head):
        nouns = [t.form for t in lx.korean_tokens(head) if t.tag in ("NNG", "NNP", "SL", "NNB")]
        for n in nouns:
            if n != "일":
                out |= word_forms(n)
        if len(pieces) > 1:
            out.add(norm(" ".join(pieces[-2:])))
    return out


class Catalog:
    """Words for every table and column of one schema graph, built once per schema version."""

    def __init__(self, graph: SchemaGraph) -> None:
        self.graph = graph
        self.tables: dict[str, TableWords] = {}
        self.formulas: list[Formula] = []
        for name in graph.table_names():
            self.tables[name] = self._table(graph.table(name))
        for t in self.tables.values():
            for m in _FORMULA.finditer(t.comment):
                cols = re.findall(r"[a-z_][a-z0-9_]*", m[2])
                if all(t.column(c) for c in cols):
                    excludes = tuple((c, v) for c, v in _EXCLUDE.findall(t.comment))
                    self.formulas.append(Formula(m[1], t.name, m[2], excludes))

    def _table(self, node: Any) -> TableWords:
        cols = []
        for c in node.columns:
            cw = ColumnWords(node.name, c.name, c.type or "", c.comment or "", c.primary_key)
            parts = lx.english_tokens(c.name.replace("_", " "))
            for p in parts:
                cw.words |= word_forms(p.form)
            cw.words.add(norm(c.name))
            cw.words |= _phrase_words(cw.comment)
            cw.head = norm((_HEAD.match(cw.comment or "") or [""])[0])
            cw.codes = tuple(c.codes)
            cw.samples = tuple(str(s) for s in c.samples)
            cols.append(cw)
        entity = {lx.singular(node.name.lower()), norm(node.name)}
        name_parts = node.name.lower().split("_")
        entity |= word_forms(" ".join(name_parts))
        if len(name_parts) == 1:
            entity |= word_forms(name_parts[0])
        for pk in node.primary_key:
            comment = next((c.comment for c in node.columns if c.name == pk), "") or ""
            head = (_HEAD.match(comment) or [""])[0].strip()
            pk_words = [w for w in head.split() if w.lower() not in _ID_WORDS]
            if pk_words:
                entity.add(norm(" ".join(pk_words)))
                if len(pk_words) == 1:
                    entity |= word_forms(pk_words[0])
        words = set(entity) | _phrase_words(node.comment or "")
        fks = {fk.from_column: (fk.to_table, fk.to_column) for fk in node.fks_out}
        return TableWords(node.name, entity, words, cols, tuple(node.primary_key), fks, node.row_estimate,
                          node.comment or "")

    def formula_for(self, word: str) -> Formula | None:
        forms = word_forms(word)
        return next((f for f in self.formulas if forms & word_forms(f.word)), None)

    def column(self, table: str, column: str) -> ColumnWords:
        col = self.tables[table].column(column)
        if col is None:
            raise KeyError(f"{table}.{column}")
        return col

    def referencing(self, table: str) -> list[tuple[str, str]]:
        """Columns (table, column) that hold a foreign key to ``table``'s primary key."""
        return [(t.name, c) for t in self.tables.values() for c, (to, _) in t.fks.items() if to == table]

    def distance(self, a: str, b: str) -> int:
        if a == b:
            return 0
        try:
            return len(self.graph.join_path([a, b]))
        except LookupError:
            return 99
