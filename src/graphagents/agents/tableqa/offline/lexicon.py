"""A small Korean-English lexicon for the offline planner: what Korean words for table columns,
tables and common cell values usually are in English (보너스 -> bonus, 부서 -> department/dept,
직급 -> grade/rank, 노트북 -> laptop, 서울 -> Seoul).

It is consulted before the sentence embedder and only links when the English words name exactly
one thing in the tables (a column, a table, or a cell value spelled that way), so a word the
tables do not use still falls through to the embedder, or to a decline.
"""

from __future__ import annotations

__all__ = ["KOREAN_WORDS", "PEOPLE_WORDS", "english_words"]

# Korean words that mean the rows of a table of people ("직원은 몇 명": how many employees).
PEOPLE_WORDS = frozenset({"직원", "사원", "인원", "사람", "구성원", "멤버", "임직원", "근무자", "명단", "인력"})

KOREAN_WORDS: dict[str, tuple[str, ...]] = {
    # people and organisation
    "직원": ("employee", "staff"), "사원": ("employee", "staff"), "인원": ("employee", "staff", "people"),
    "사람": ("people", "person", "employee"), "임직원": ("employee", "staff"),
    "부서": ("department", "dept", "division", "team", "unit"), "팀": ("team",), "본부": ("division",),
    "직급": ("grade", "rank", "level", "position", "title"), "직위": ("position", "title", "grade"),
    "직책": ("position", "role", "title"), "역할": ("role",), "직무": ("job", "role"),
    "이름": ("name",), "성명": ("name",), "성별": ("gender", "sex"), "나이": ("age",), "연령": ("age",),
    "생년": ("birth",), "생일": ("birthday", "birth"), "입사": ("hire", "joined", "join"),
    "입사년도": ("hire_year", "hire", "joined"), "입사연도": ("hire_year", "hire", "joined"),
    "관리자": ("manager", "head", "lead"), "매니저": ("manager",), "담당자": ("manager", "owner", "rep"),
    "상사": ("manager", "boss"), "고객": ("customer", "client"), "학생": ("student",), "선수": ("player",),
    "회원": ("member",), "사용자": ("user",), "직업": ("job", "occupation"),
    # money
    "보너스": ("bonus",), "상여금": ("bonus",), "상여": ("bonus",), "급여": ("salary", "pay", "wage"),
    "월급": ("salary", "pay", "wage"), "연봉": ("salary", "annual_salary", "pay"), "봉급": ("salary", "pay"),
    "임금": ("wage", "salary", "pay"), "예산": ("budget",), "금액": ("amount", "total", "value"),
    "가격": ("price", "cost"), "단가": ("price", "unit_price"), "비용": ("cost", "expense"),
    "매출": ("sales", "revenue", "amount"), "매출액": ("sales", "revenue"), "수익": ("revenue", "profit", "income"),
    "이익": ("profit",), "이윤": ("profit",), "손실": ("loss",), "세금": ("tax",), "할인": ("discount",),
    "수수료": ("fee", "commission"), "잔액": ("balance",), "부채": ("debt", "liability"), "자산": ("asset",),
    # things and places
    "제품": ("product", "item"), "상품": ("product", "item"), "품목": ("item", "product"),
    "주문": ("order",), "거래": ("transaction", "trade", "deal"), "판매": ("sale", "sales"),
    "수량": ("quantity", "qty", "count"), "재고": ("stock", "inventory"), "카테고리": ("category",),
    "분류": ("category", "type", "class"), "종류": ("type", "kind", "category"), "유형": ("type",),
    "지역": ("region", "area"), "도시": ("city",), "국가": ("country", "nation"), "나라": ("country", "nation"),
    "주소": ("address",), "위치": ("location",), "층": ("floor",), "건물": ("building",), "지점": ("branch", "store"),
    "매장": ("store", "shop"), "회사": ("company",), "기업": ("company",), "공급업체": ("supplier", "vendor"),
    "학교": ("school",), "과목": ("subject", "course"), "점수": ("score", "point", "points"),
    "성적": ("grade", "score"), "등급": ("grade", "rating", "level"), "순위": ("rank", "ranking"),
    "평점": ("rating",), "인구": ("population",), "면적": ("area",), "높이": ("height",), "키": ("height",),
    "무게": ("weight",), "몸무게": ("weight",), "길이": ("length",), "거리": ("distance",),
    "시간": ("time", "hours", "duration"), "기간": ("duration", "period"),
    # dates
    "날짜": ("date",), "일자": ("date",), "연도": ("year",), "년도": ("year",), "해": ("year",),
    "월": ("month",), "분기": ("quarter",), "요일": ("weekday", "day"),
    # ids and codes
    "번호": ("number", "no", "id"), "코드": ("code",), "아이디": ("id",), "전화": ("phone",),
    "전화번호": ("phone",), "이메일": ("email",), "상태": ("status", "state"), "비고": ("note", "notes"),
    # common cell values
    "영업": ("sales",), "개발": ("development", "dev", "engineering"), "인사": ("hr", "human resources"),
    "재무": ("finance", "fin"), "회계": ("accounting", "finance"), "마케팅": ("marketing", "mkt"),
    "기획": ("planning",), "총무": ("general affairs",), "연구": ("research", "r&d"), "생산": ("production",),
    "구매": ("purchasing", "procurement"), "법무": ("legal",), "운영": ("operations", "ops"),
    "노트북": ("laptop", "notebook"), "모니터": ("monitor",), "키보드": ("keyboard",), "마우스": ("mouse",),
    "컴퓨터": ("computer", "pc"), "휴대폰": ("phone", "mobile"), "프린터": ("printer",), "태블릿": ("tablet",),
    "남성": ("male", "m"), "여성": ("female", "f"), "남자": ("male", "m"), "여자": ("female", "f"),
    "서울": ("seoul",), "부산": ("busan",), "인천": ("incheon",), "대구": ("daegu",), "대전": ("daejeon",),
    "광주": ("gwangju",), "울산": ("ulsan",), "세종": ("sejong",), "수원": ("suwon",), "제주": ("jeju",),
    "미국": ("usa", "united states", "us"), "중국": ("china",), "일본": ("japan",), "한국": ("korea", "south korea"),
    "영국": ("uk", "united kingdom"), "독일": ("germany",), "프랑스": ("france",),
}  # fmt: skip

_SUFFIXES = ("부서", "부", "팀", "과", "실", "들", "님", "씨")


def english_words(phrase: str) -> tuple[str, ...]:
    """The English words of a Korean noun phrase ("영업부" -> sales, "보너스" -> bonus), or ()."""
    word = phrase.replace(" ", "")
    if word in KOREAN_WORDS:
        return KOREAN_WORDS[word]
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and word[: -len(suffix)] in KOREAN_WORDS:
            return KOREAN_WORDS[word[: -len(suffix)]]
    return ()
