"""Person names in utterances, corrections, and words that must never become names."""

from __future__ import annotations

import pytest

from graphagents.korean import extract_person_name


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("김민수입니다", "김민수"),
        ("제 이름은 김민수예요", "김민수"),
        ("이름은 김철수가 아니라 김민수예요", "김민수"),
        ("김민수로 바꿔주세요", "김민수"),
        ("성함은 박지영", "박지영"),
        ("홍길동", "홍길동"),
        ("김민수, 010-1111-2222", "김민수"),
        ("이름은 정하늘이에요", "정하늘"),
        ("이름 정하늘", "정하늘"),
        ("남궁민수입니다", "남궁민수"),
        ("선우정아입니다", "선우정아"),
        ("황보민수입니다", "황보민수"),
        ("독고영재요", "독고영재"),
        ("제갈량이요", "제갈량"),
        ("강다니엘이요", "강다니엘"),
        ("박서준입니다", "박서준"),
        ("박지민이요", "박지민"),
        ("저는 최지우라고 합니다", "최지우"),
        ("김철수 말고 김민수요", "김민수"),
        ("이름을 김철수에서 김민수로 바꿔주세요", "김민수"),
        ("김민수예요 김철수 아니고요", "김민수"),
        ("성함은 이수입니다", "이수"),
        ("네 김민수 맞아요", "김민수"),
        ("윤아요", "윤아"),
        ("이름은 김 민수입니다", "김민수"),
        ("이지은입니다", "이지은"),
        ("아 네 임윤아예요", "임윤아"),
        ("성함이요? 송혜교요", "송혜교"),
        ("고객명은 권상우입니다", "권상우"),
        ("제 이름은 서강준이고 번호는 010-1111-2222예요", "서강준"),
        ("이름을 박보검으로 바꿔주세요", "박보검"),
        ("전 정우성이라고 합니다", "정우성"),
        ("이름이 틀렸는데 김영수예요", "김영수"),
        ("예금주는 박하늘", "박하늘"),
        ("성함은 공유입니다", "공유"),
        ("정다은으로 해주세요", "정다은"),
        ("이름이 김민지예요 김민수 아니고요", "김민지"),
        ("이름은 박가은입니다", "박가은"),
        # unspaced STT output
        ("이름은김철수가아니라김민수예요", "김민수"),
        ("성함은정하늘입니다", "정하늘"),
        ("아니이름이최민호예요", "최민호"),
        ("이름을이영희로바꿔주세요", "이영희"),
        ("아니요강다니엘이요", "강다니엘"),
    ],
)
def test_extract_person_name(text: str, expected: str) -> None:
    assert extract_person_name(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "네",
        "아니요",
        "맞아요",
        "수정",
        "번호",
        "수정할게요",
        "정정할게요",
        "네 맞아요",
        "번호가 틀렸어요",
        "이름이 틀렸어요",
        "이름 바꿔주세요",
        "이름이요",
        "성함이요?",
        "오늘이요",
        "정말요?",
        "이거요",
        "이수요",  # two syllables and no label: too risky to call a name
        "하루 500만원이요",
        "이천만원으로 해주세요",
        "전화번호 바꿀게요",
        "공일공 일이삼사 오육칠팔",
        "안녕하세요",
        "보안카드로 할게요",
        "모바일 OTP로 할게요",
        "신청할게요",
        "상담원 연결해주세요",
        "김철수가 아니에요",
        "신한은행이요",
        "전부 다 맞아요",
        "지금 바꿀래요",
        "배고파요",
        "이름이랑 번호 둘 다 맞아요",
        "오타 있어요",
        "해외 IP 차단해 주세요",
        "제 명의로 할게요",
        "이걸로 해주세요",
        "모바일로 해주세요",
        "사천으로 해주세요",
        "일반으로 할게요",
    ],
)
def test_no_name(text: str) -> None:
    assert extract_person_name(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("길은호예요", "길은호"), ("길은호입니다", "길은호"), ("길은호라고 해요", "길은호"), ("김하은이에요", "김하은"),
        ("김민준이고, 번호는 010-2222-3333이에요", "김민준"), ("박서연이고요, 번호는 010-1234-1234", "박서연"),
        ("성은 길이고 이름은 은호예요", "길은호"), ("남궁은호입니다", "남궁은호"),
    ],
)
def test_names_with_copulas_and_joining_endings(text: str, expected: str) -> None:
    """Issue 9: "…이고", "…이고요" were taken with the ending or lost; bare "길은호예요" was missed."""
    assert extract_person_name(text) == expected


def test_a_bare_name_counts_only_when_a_name_was_asked() -> None:
    assert extract_person_name("길은호") is None
    assert extract_person_name("길은호", expected=True) == "길은호"
    assert extract_person_name("길은호 맞아요", expected=True) == "길은호"


@pytest.mark.parametrize(
    "text", ["은호예요", "신청할게요", "배고파요", "오늘이요", "정말이에요", "사용할게요", "감사합니다"]
)
def test_words_that_only_look_like_names(text: str) -> None:
    assert extract_person_name(text, expected=True) is None


def test_hangul_glued_to_a_number_is_its_ending_not_a_name() -> None:
    """Issue 23: "...-4126이에요" after "아니 그게 아니라" was read as the name 이에."""
    from graphagents.korean import extract_person_name

    text = "번호는 010-9109-4133 아니 그게 아니라 010-9109-4126이에요"
    assert extract_person_name(text) is None
    assert extract_person_name(text, expected=True) is None
    assert extract_person_name("아니 그게 아니라 김민준이에요") == "김민준"


@pytest.mark.parametrize(("text", "expected"), [
    ("임대인 노은서 씨에게 보내요", [("노은서", "씨")]),
    ("집주인 배성우님께", [("배성우", "님")]),
    ("저는 문가영이고 세입자예요", [("문가영", "")]),
    ("선우재덕 님이 주인이에요", [("선우재덕", "님")]),
    ("곽도원으로 적어 주세요", [("곽도원", "")]),
    ("여 씨", []),  # a surname alone is no name
])
def test_find_person_names(text: str, expected: list[tuple[str, str]]) -> None:
    from graphagents.korean import find_person_names

    assert [(n.name, n.honorific) for n in find_person_names(text)] == expected


@pytest.mark.parametrize("text", ["주소는 어디예요", "전입신고 했어요", "보증금 3천만원 돌려받기", "신청할게요",
                                  "010-1234-5678로 연락"])
def test_words_that_are_no_names(text: str) -> None:
    from graphagents.korean import find_person_names

    assert find_person_names(text) == []


def test_name_spans_index_the_normalised_text() -> None:
    from graphagents.korean import find_person_names

    text = "수신: 백지영(임대인)"
    (n,) = find_person_names(text)
    assert text[n.start:n.end] == "백지영" and not n.honorific
