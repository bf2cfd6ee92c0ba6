"""The six profile slots from Korean and English text, the profile they build, and what a cached
answer depends on.

    extract_slots("65세 남성이고 당뇨 있고 메트포르민 500mg 하루 두 번 먹어요")
    # demographics {age: 65, sex: male, age_group: older_adult}, conditions [diabetes],
    # medications [{name: metformin, dose: "500 mg", frequency: "하루 2회"}]
    extract_slots("이제 메트포르민 안 먹어요").removals   # [("medications", "metformin")]
    profile = merge_profile(empty_profile(), update)     # newer wins, removals remove, no mutation
    profile_summary(profile)  # "65세 남성 | 질환: 당뇨병 | 복용약: 메트포르민 500mg 하루 2회"
    question_signature("타이레놀 500mg 하루 몇 번?")  # {"drugs": "acetaminophen", "doses": "500mg"}

What counts as the user's own fact (a profile slot) is deliberate: a condition, drug or symptom a
question merely names ("메트포르민 부작용이 뭐예요?", "What causes headaches?") is not the user's,
so it needs a cue in its clause: having it ("당뇨 있고", "I have asthma", "고혈압 환자인데"),
taking it ("먹어요", "복용 중", "맞고 있어요", "I take", "I'm on"), feeling it ("머리가 아파요").
Negation in the clause ("안 먹어요", "끊었어요", "없어요", "I stopped taking", "I don't have")
turns the item into a removal and never adds it. Hypotheticals and questions ("당뇨가 있으면",
"먹어도 되나요?", "몇 번 먹어요?") add nothing. Vitals and labs are read wherever they are said
("혈압 140/90", "공복혈당 180", "HbA1c 7.2%").

:func:`question_signature` is different: it reads everything the question names, asserted or not,
because the answer depends on it (see its docstring).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphagents.cache import quantities
from graphagents.korean import Dose, fold, parse_doses, parse_number, tokenize

from .lexicon import Term, canonical_condition, canonical_drug, find_terms, korean_name

__all__ = [
    "SLOTS",
    "SlotUpdate",
    "age_group",
    "as_profile",
    "empty_profile",
    "extract_slots",
    "merge_profile",
    "profile_summary",
    "question_signature",
]

SLOTS = ("demographics", "conditions", "symptoms", "medications", "vitals", "labs")


@dataclass(frozen=True)
class SlotUpdate:
    """What one message says about the user: the six slots plus explicit removals.

    ``removals`` holds ``(slot, canonical value)`` pairs: ("medications", "metformin") for "이제
    메트포르민 안 먹어요", ("conditions", "diabetes") for "당뇨 없어요"."""

    demographics: dict[str, Any] = field(default_factory=dict)
    conditions: list[str] = field(default_factory=list)
    symptoms: list[str] = field(default_factory=list)
    medications: list[dict[str, Any]] = field(default_factory=list)
    vitals: dict[str, str] = field(default_factory=dict)
    labs: dict[str, str] = field(default_factory=dict)
    removals: list[tuple[str, str]] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not any(getattr(self, name) for name in (*SLOTS, "removals"))

    def as_dict(self) -> dict[str, Any]:
        """The JSON-safe form (the state's ``slot_out``); removals as ``[slot, value]`` lists."""
        out: dict[str, Any] = {name: copy.deepcopy(getattr(self, name)) for name in SLOTS}
        out["removals"] = [list(pair) for pair in self.removals]
        return out


# ---------------------------------------------------------------------------------------------
# Clauses and cues

# Clause boundaries: sentence punctuation, commas, Korean connective endings ("있고 ", "아픈데 ",
# "먹지만 "), English "but" and an "and" that starts a new statement ("I'm 42 and take ...").
_CLAUSE_CUT = re.compile(
    r"[.!?;\n]+|,\s*|(?:(?<=[가-힣]데)|(?<=지만)|(?<=면서)|(?<=니까)|(?<=라서)|(?<=어서)|(?<=아서))\s+|"
    r"(?<=[가-힣]고)\s+(?!있|계|싶|나서|난|해)|\bbut\s+|\band\s+(?=(?:i|i'm|im|i've|take|taking|have|had|my|"
    r"also|was|am|now|currently|recently|then)\b)"
)


def _clauses(low: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in _CLAUSE_CUT.finditer(low):
        if m.start() > start:
            spans.append((start, m.start()))
        start = m.end()
    if start < len(low):
        spans.append((start, len(low)))
    return [(a, b) for a, b in spans if low[a:b].strip()]


def _compact(s: str) -> str:
    return re.sub(r"\s+", "", s)


_KO_TAKE = re.compile(
    r"먹(?:어요|어|고|는|습니다|음|었|은|던)|드시|드세|드심|복용(?!법|량|방법|하면|해도|시|해야|할|하는법)|맞(?:고|아요|아|습니다|는)|"
    r"투약|투여(?:받|중)|처방(?:받|을받|약)|쓰고있|써요|씁니다|쓰고|사용(?:중|하고)|주사(?:를|)?(?:맞|놓)|챙겨먹|먹는중|복약|"
    r"흡입|뿌려|뿌리고|붙이고|붙여요|발라요|바르고"
)
_EN_TAKE = re.compile(
    r"\b(?:i|i'm|im|i've|we)\b.*\b(?:take|taking|takes|took|using|use|on|prescribed|started|start|inject|injecting)\b|"
    r"\b(?:taking|prescribed|on)\b\s+\w|\bmy\s+(?:meds?|medications?|pills?|inhaler)\b|\b(?:put|started) me on\b"
)
_KO_STOP = re.compile(
    r"안(?:먹|드|맞|써|쓰|씀|복용|챙|해요|합니다)|(?:먹|복용하|드시|맞|쓰|챙기)지(?:않|말|마|도않)|끊|중단|중지|그만|"
    r"복용(?:안|하지않)|더이상(?:안|복용|먹)|끝났|끝냈|이제없"
)
_EN_STOP = re.compile(
    r"\b(?:stopped|stop|quit|discontinued|no longer|not taking|don't take|do not take|dont take|doesn't take|"
    r"came off|went off|off of|i'm off|am off|not on|ran out of|never took|never taken|don't use|do not use|"
    r"gave up|given up|weaned off|taken off|no more)\b"
)
_KO_HAVE = re.compile(
    r"있(?:어요|어|고|는데|습니다|음|다|지만|거든|었|던|긴|으니|으나|구요|고요|는|네요|대요)|"
    r"환자(?:인데|예요|이에요|입니다|이고|라서|이라|임|로|라|야)|앓|진단(?:받|을받|받았|됐|되었|이나왔)|걸렸|걸려|판정|"
    r"(?:이에요|예요|입니다|이고요?|인데|이라서|라서)$|약(?:을|)?(?:먹|복용|드시|처방)|병력|치료(?:중|받고|하고)|수술(?:받|했)|"
    r"(?:년|개월|달)(?:이|가)?(?:됐|되었|째|차)"
)
_EN_HAVE = re.compile(
    r"\b(?:i have|i've|i had|i've had|i've got|i got|diagnosed|i suffer|suffering from|history of|living with|"
    r"i'm diabetic|i am diabetic|i'm asthmatic|i'm allergic|i am allergic|my|i was told i have|i also have|"
    r"have had)\b|"
    r"\b(?:i'm|i am|im)\b.*\bwith\b|^\s*(?:and\s+|also\s+)*(?:have|has|had)\b"
)
_KO_NOT_HAVE = re.compile(
    r"없(?:어|고|습니다|음|다|는데|거든|었)|아니(?:에요|고|라|야|었|예요)|"
    r"아닙|완치|나았|다나|안걸|안 걸"
)
_EN_NOT_HAVE = re.compile(
    r"\b(?:don't have|do not have|dont have|no longer have|not diabetic|never had|never been diagnosed|cured|"
    r"no history of|free of|doesn't have|haven't got|not anymore|don't suffer|no more)\b"
)
# Hypotheticals, questions about a thing and third persons: the clause does not state the user's fact.
_KO_NOT_MINE = re.compile(
    r"(?:으면|이면|라면|다면|하면|으려면|려면|해도|어도|아도|가능|되나요|될까|나요|까요|인가|는지|ㄴ지)|"
    r"뭐|무엇|어떻게|왜|언제|얼마나|몇|어떤|원인|이유|가족력|어머니|아버지|엄마|아빠|남편|아내|부모|할머니|할아버지|"
    r"친구|동생|형이|누나|언니|오빠"
)
# Question words count at the start of a clause ("When should I ...?"), not inside a statement ("I was
# diagnosed when I was 12"); plans and advice are not facts ("my doctor wants me on a statin").
_EN_NOT_MINE = re.compile(
    r"^\s*(?:what|how|why|when|which|can|could|is it|are there|does|do you)\b|\b(?:if|should|might|considering|"
    r"thinking about|wants? me (?:on|to take)|my (?:mother|father|mom|dad|husband|wife|son|daughter|child|kid|friend|"
    r"brother|sister|grandmother|grandfather|parents?))\b|\?"
)


def _is_english(s: str) -> bool:
    return not re.search(r"[가-힣]", s)


# ---------------------------------------------------------------------------------------------
# Numbers

_NATIVE_TENS = {"열": 10, "스물": 20, "스무": 20, "서른": 30, "마흔": 40, "쉰": 50, "예순": 60, "일흔": 70,
                "여든": 80, "아흔": 90}
_NATIVE_UNITS = {"한": 1, "하나": 1, "두": 2, "둘": 2, "세": 3, "셋": 3, "네": 4, "넷": 4, "다섯": 5, "여섯": 6,
                 "일곱": 7, "여덟": 8, "아홉": 9}
_NATIVE = (
    r"(?:(?:" + "|".join(sorted(_NATIVE_TENS, key=len, reverse=True)) + r")\s?(?:"
    + "|".join(sorted(_NATIVE_UNITS, key=len, reverse=True)) + r")?|(?:"
    + "|".join(sorted(_NATIVE_UNITS, key=len, reverse=True)) + "))"
)
# A Sino-Korean age needs 십 or 백 ("육십오 세"): a lone syllable is a word ("이 세상").
_SINO = r"(?:[일이삼사오육칠팔구]?[십백])+[일이삼사오육칠팔구]?"
_EN_NUMBERS = {w: i for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
     "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"])}
_EN_NUMBER = "|".join(sorted(_EN_NUMBERS, key=len, reverse=True))


def _native_number(word: str) -> int | None:
    word = word.replace(" ", "")
    total = 0
    for tens, value in sorted(_NATIVE_TENS.items(), key=lambda kv: -len(kv[0])):
        if word.startswith(tens):
            total, word = value, word[len(tens):]
            break
    if word:
        if word not in _NATIVE_UNITS:
            return None
        total += _NATIVE_UNITS[word]
    return total or None


def _number(token: str) -> float | None:
    token = token.strip()
    if re.fullmatch(r"\d+(?:[.,]\d+)?", token):
        return float(token.replace(",", "."))
    if token in _EN_NUMBERS:
        return float(_EN_NUMBERS[token])
    native = _native_number(token)
    if native is not None:
        return float(native)
    value = parse_number(token)
    return float(value) if value is not None else None


def _fmt(value: float) -> str:
    return f"{value:g}"


# ---------------------------------------------------------------------------------------------
# Demographics

_AGE_STOP = r"(?!\s?(?:이상|이하|미만|초과|부터|까지|전후|이후|이전|때|무렵|쯤부터|넘|정도의|가량의|대))"
_AGE_PATTERNS = (
    re.compile(rf"(?<![\d.])(?:만\s?)?(\d{{1,3}})\s?(?:세|살){_AGE_STOP}"),
    re.compile(rf"(?<![가-힣])({_NATIVE})\s?살{_AGE_STOP}"),
    re.compile(rf"(?<![가-힣])({_SINO})\s?세{_AGE_STOP}"),
    re.compile(r"\b(?:i'm|i am|im)\s+(\d{1,3})\b(?!\s*(?:kg|kilos?|lbs?|pounds|cm|%|mg|weeks|months|days))"),
    re.compile(r"\b(\d{1,3})\s*[- ]?\s*(?:years?|yrs?)[- ]?old\b"),
    re.compile(rf"\b({_EN_NUMBER})[- ](?:years?|yrs?)[- ]old\b"),
    re.compile(r"\b(\d{1,3})\s*(?:yo|y/o|y\.o\.)(?![a-z])"),
    re.compile(r"\baged?\s+(\d{1,3})\b"),
)
_RELATIVES = re.compile(
    r"아들|딸|아이|애기|아기|우리\s?애|손자|손녀|엄마|아빠|어머니|아버지|남편|아내|부인|할머니|할아버지|동생|"
    r"\b(?:son|daughter|kid|child|baby|mother|father|mom|dad|husband|wife|grandma|grandpa|grandmother|"
    r"grandfather|brother|sister)\b"
)
_SEX = (
    (re.compile(r"남(?:성|자)(?!\s?(?:친구|아이|애|형제|분들|들))|(?<=[세살])\s?남(?![가-힣])|"
                r"\b(?:male|man|guy|gentleman)\b|(?<=\d)\s?m\b"), "male"),
    (re.compile(r"여(?:성|자)(?!\s?(?:친구|아이|애|형제|분들|들))|(?<=[세살])\s?여(?![가-힣])|"
                r"\b(?:female|woman|lady)\b|(?<=\d)\s?f\b"), "female"),
)
_PREGNANT = re.compile(
    r"임신\s?(?:중|했|하고\s?있|\d+\s?주|\d+\s?개월|초기|말기|한\s?상태|상태|이에요|입니다|했어요)|임산부|임신부|"
    r"\b(?:i'm|i am|im)\s+(?:\d+\s+weeks?\s+)?pregnant\b|\bexpecting a baby\b|\b\d+\s+weeks?\s+pregnant\b"
)
_NOT_PREGNANT = re.compile(
    r"임신\s?(?:아니|안\s?했|하지\s?않|은\s?아니|은\s?안|X)|\b(?:not|no longer)\s+pregnant\b"
)
_BREASTFEEDING = re.compile(r"수유\s?중|모유\s?수유|\b(?:breastfeeding|breast-feeding|nursing)\b")
_PREGNANCY_MENTION = re.compile(r"임신|임산부|임신부|\bpregnan")

# Words naming the age group of the person a question is about.
_GROUP_WORDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"신생아|영아|갓난|\b(?:newborns?|infants?|babies|baby|neonatal|neonates?)\b"), "infant"),
    (re.compile(r"(?<![가-힣])아기|(?<![가-힣])애기"), "infant"),
    (re.compile(r"청소년|사춘기|중학생|고등학생|"
                r"\b(?:teens?|teenagers?|adolescents?|adolescence|juvenile)\b"), "adolescent"),
    (re.compile(r"소아|어린이|유아|초등학생|(?<![가-힣])아이(?=[가는도의들를에한용]|\s|$)|(?<![가-힣])아이들|"
                r"(?<![가-힣])우리\s?애|\b(?:child|children|childhood|kids?|pediatric|paediatric|toddlers?|"
                r"school-age)\b"), "child"),
    (re.compile(r"노인|어르신|고령|노년|\b(?:elderly|older adults?|seniors?|geriatric|older people|aged 65)\b"),
     "older_adult"),
    (re.compile(r"성인|어른|\b(?:adults?|grown-ups?)\b"), "adult"),
)


def age_group(age: float | int) -> str:
    """"infant" (< 2), "child" (< 13), "adolescent" (< 18), "adult" (< 65), "older_adult"."""
    if age < 2:
        return "infant"
    if age < 13:
        return "child"
    if age < 18:
        return "adolescent"
    return "adult" if age < 65 else "older_adult"


def _ages(low: str) -> list[tuple[int, int, int]]:
    """(age, start, end) for every age said in ``low``."""
    found: list[tuple[int, int, int]] = []
    for pattern in _AGE_PATTERNS:
        for m in pattern.finditer(low):
            if any(a < m.end() and m.start() < b for _, a, b in found):
                continue
            value = _number(m.group(1))
            if value is not None and 0 <= value <= 120:
                found.append((int(value), m.start(), m.end()))
    return sorted(found, key=lambda t: t[1])


_SINO_TENS = {"이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "칠": 7, "팔": 8, "구": 9}
_DECADE_KO = re.compile(
    r"(?<![\d.가-힣])([1-9])0\s?대(?:\s?(초반|중반|후반))?|(?<![가-힣])([이삼사오육칠팔구])십\s?대(?:\s?(초반|중반|후반))?"
)
_DECADE_EN = re.compile(r"\b(?:in (?:my|his|her|their) )?(?:(early|mid|late)[- ])?([1-9])0s\b")
_PARTS = {"초반": (0, 3), "early": (0, 3), "중반": (4, 6), "mid": (4, 6), "후반": (7, 9), "late": (7, 9)}
_PART_KO = {"early": "초반", "mid": "중반", "late": "후반"}


def _decades(low: str) -> list[tuple[str, str | None, int, int]]:
    """("60대", "후반", start, end) for "60대 후반", "육십대", "in my late 60s"."""
    found: list[tuple[str, str | None, int, int]] = []
    for m in _DECADE_KO.finditer(low):
        tens = int(m.group(1)) if m.group(1) else _SINO_TENS[m.group(3)]
        found.append((f"{tens}0대", m.group(2) or m.group(4), m.start(), m.end()))
    for m in _DECADE_EN.finditer(low):
        part = _PART_KO.get(m.group(1) or "")
        found.append((f"{m.group(2)}0대", part, m.start(), m.end()))
    return sorted(found, key=lambda t: t[2])


def _decade_group(decade: str, part: str | None) -> str | None:
    """The age group of every age in "60대 후반" (older_adult), None when it spans two ("60대")."""
    low_age = int(decade[:-1])
    first, last = _PARTS.get(part or "", (0, 9))
    groups = {age_group(low_age + first), age_group(low_age + last)}
    return groups.pop() if len(groups) == 1 else None


def _demographics(low: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for age, start, end in _ages(low):
        window = low[max(0, start - 12):end + 8]
        if _RELATIVES.search(window):
            continue  # "다섯 살 아들", "my 5-year-old son": not the user's own age
        out["age"] = age
        out["age_group"] = age_group(age)
        break
    if "age" not in out:
        for decade, part, start, end in _decades(low):
            if _RELATIVES.search(low[max(0, start - 12):end + 8]):
                continue
            out["age_range"] = f"{decade} {part}" if part else decade
            group = _decade_group(decade, part)
            if group:
                out["age_group"] = group
            break
    for pattern, sex in _SEX:
        m = pattern.search(low)
        if m and not _RELATIVES.search(low[max(0, m.start() - 8):m.end() + 6]):
            out["sex"] = sex
            break
    if _NOT_PREGNANT.search(low):
        out["pregnant"] = False
    elif _PREGNANT.search(low):
        out["pregnant"] = True
        out.setdefault("sex", "female")
    if _BREASTFEEDING.search(low):
        out["breastfeeding"] = True
    return out


# ---------------------------------------------------------------------------------------------
# Symptoms: (canonical, pattern of the noun, pattern of a predicate that states it)

_SYMPTOMS: tuple[tuple[str, str, str], ...] = (
    ("chest pain", r"흉통|가슴\s?통증|\bchest pain\b",
     r"가슴이?\s?(?:아파|아프|아픈|아플|아팠|쥐어|답답|조여|뻐근|찌릿)"),
    ("headache", r"두통|\bheadaches?\b|\bmigraines?\b(?!\s+(?:type|familial))",
     r"머리가?\s?(?:아파|아프|아픈|아플|아팠|지끈|띵)|\bmy head hurts\b"),
    ("fever", r"발열|고열|미열|\bfever\b|\bfeverish\b",
     r"열(?:이|은|도)\s?(?:나|났|있|없|올라|높|내렸|떨어)|열이\s?\d|몸이\s?뜨거|"
     r"(?<![가-힣])열\s?(?:나요|나고|나서|났|날\s?때|나는|나면|남)"),
    ("cough", r"기침|\bcough(?:ing)?\b", r"기침(?:을|이)?\s?(?:해|하|나|심)"),
    ("sore throat", r"인후통|목\s?통증|\bsore throat\b", r"목이\s?(?:아파|아프|아픈|아플|아팠|따가|칼칼|붓)"),
    ("runny nose", r"콧물|\brunny nose\b", r"콧물이\s?(?:나|흘)"),
    ("nasal congestion", r"코막힘|\b(?:stuffy nose|nasal congestion)\b", r"코가\s?막"),
    ("nausea", r"메스꺼움|구역질|구역감|오심|\bnause(?:a|ous)\b", r"속이\s?(?:메스껍|울렁|안\s?좋)|메스꺼워|울렁거"),
    ("vomiting", r"구토|\bvomit(?:ing)?\b|\bthrowing up\b", r"토했|토해|토하"),
    ("diarrhea", r"설사|\bdiarrh(?:ea|oea)\b", r"설사(?:를|가)?\s?(?:해|하|나|계속)"),
    ("constipation", r"변비|\bconstipat(?:ion|ed)\b", r"변이\s?안\s?나|화장실을?\s?못"),
    ("abdominal pain", r"복통|배\s?통증|\b(?:abdominal pain|stomach ?ache|belly pain)\b",
     r"배가\s?(?:아파|아프|아픈|아플|아팠|쑤시)"),
    ("heartburn", r"속쓰림|\bheartburn\b", r"속이\s?쓰"),
    ("dizziness", r"어지럼증|어지러움|현기증|\bdizz(?:y|iness)\b|\blightheaded\b",
     r"어지러(?:워|운|웠)|어지럽|핑\s?돌"),
    ("fatigue", r"피로감|피로|무기력|\b(?:fatigue|tired(?:ness)?|exhausted)\b",
     r"피곤(?:해|하|한)|기운이\s?없|힘이\s?없"),
    ("shortness of breath", r"호흡곤란|숨가쁨|\b(?:shortness of breath|short of breath|breathless)\b",
     r"숨이\s?(?:차|가쁘|막|안\s?쉬)|숨쉬기(?:가)?\s?(?:힘들|어렵)"),
    ("palpitations", r"두근거림|심계항진|\bpalpitations?\b|\bracing heart\b", r"가슴이\s?두근|심장이\s?(?:두근|빨리)"),
    ("back pain", r"요통|허리\s?통증|\bback pain\b", r"허리가\s?(?:아파|아프|아픈|아플|아팠|쑤시)"),
    ("joint pain", r"관절통|관절\s?통증|\bjoint pain\b",
     r"(?:관절|무릎|손목|발목)이\s?(?:아파|아프|아픈|아플|아팠|쑤시)"),
    ("muscle pain", r"근육통|\b(?:muscle pain|muscle aches?|myalgia)\b", r"근육이\s?(?:아파|아프|쑤시)|몸살"),
    ("rash", r"발진|두드러기|\b(?:rash|hives)\b", r"두드러기가\s?(?:나|났)|발진이\s?(?:나|생)"),
    ("itching", r"가려움증|가려움|소양감|\bitch(?:ing|y)\b", r"가려(?:워|운|웠)|가렵"),
    ("swelling", r"부종|\bswelling\b|\bswollen\b", r"(?:다리|발|얼굴|손)이?\s?(?:부었|붓|부어)"),
    ("numbness", r"저림|감각\s?저하|\bnumbness\b|\bnumb\b|\btingling\b", r"저려|저리|찌릿찌릿"),
    ("blurred vision", r"시야\s?흐림|\bblurr(?:ed|y) vision\b", r"눈이\s?(?:침침|흐릿|뿌옇)|앞이\s?흐릿"),
    ("frequent urination", r"빈뇨|\bfrequent urination\b", r"소변(?:을|이)?\s?자주|화장실(?:을|에)?\s?자주"),
    ("excessive thirst", r"다갈증|\b(?:excessive thirst|very thirsty)\b", r"목이\s?자주\s?마르|갈증이\s?(?:심|나)"),
    ("weight loss", r"체중\s?감소|\b(?:weight loss|losing weight)\b", r"살이\s?(?:빠지|빠져|빠졌)|체중이\s?(?:줄|빠)"),
    ("insomnia", r"불면|\binsomnia\b|\bcan't sleep\b", r"잠을?\s?(?:못\s?자|잘\s?못|설치)|잠이\s?안\s?(?:와|온)"),
    ("bleeding", r"출혈|\bbleeding\b", r"피가\s?(?:나|났|멈추지)"),
    ("indigestion", r"\bindigestion\b|\bdyspepsia\b", r"소화가\s?(?:잘\s?)?안\s?(?:되|돼)|체했|체한\s?것\s?같"),
    ("seizure", r"경련|발작|\bseizures?\b|\bconvulsions?\b", r"경련(?:을|이)?\s?(?:했|해|일으)"),
    ("anxiety", r"불안감|\banxious\b", r"불안(?:해|하|한)"),
    ("depressed mood", r"우울감|\b(?:depressed|feeling down)\b", r"우울(?:해|하|한)"),
)
# Adverbs between the subject and the predicate: "배가 살살 아파요", "머리가 너무 지끈거려요".
_ADVERBS = (
    r"(?:(?:너무|많이|살살|자꾸|계속|좀|조금|심하게|갑자기|가끔|지끈지끈|욱신욱신|콕콕|쿡쿡|또|막|엄청|되게|아직)\s?)*"
)
_SYMPTOM_RE = [(name, re.compile(noun), re.compile(pred.replace(r"\s?(?:", r"\s?" + _ADVERBS + "(?:")))
               for name, noun, pred in _SYMPTOMS]
_KO_FEEL = re.compile(r"있|심해|심하|나요|나고|났|계속|며칠|지속|생겼|했어|해요|하고|때문|와요|와서|있어")
_EN_FEEL = re.compile(r"\b(?:i have|i've|i had|i'm having|i am having|i've been having|i feel|i'm feeling|i get|"
                      r"i keep|i'm|i am|my|experiencing|suffering)\b")
_KO_NO_SYMPTOM = re.compile(
    r"없(?:어|고|습니다|음|다|는데)|안\s?(?:나|아파|아프|해|하)|아니|"
    r"나았|멈췄|사라졌|괜찮아졌|내렸|떨어졌"
)
_EN_SYMPTOM_GONE = re.compile(r"\s*(?:is|has|have)\s+(?:gone|stopped|cleared|better)|\s*went away|\s*(?:is\s+)?gone")
_EN_NO_SYMPTOM = re.compile(r"\b(?:no|don't have|do not have|no longer|not|gone|went away|stopped|without)\b")


# ---------------------------------------------------------------------------------------------
# Vitals and labs: keyword, a short gap, then the value

# Sino-Korean numerals need a unit (십/백/천): a lone 이 is a particle; a final 이 before 에요/고 is the copula.
_VALUE = (
    r"(\d{1,4}(?:\.\d+)?|"
    r"(?:[일이삼사오육칠팔구]?[천백십])+(?:[일삼사오육칠팔구]|이(?!에요|예요|요|고|야|라|며|지|니))?)"
)
_GAP = r"(?!\s?약)[^\d\n.?!;,]{0,14}?"
_NOT_DOSE = r"(?!\s?(?:mg(?!\s?/\s?dl)|밀리그램|g\b|정(?!도)|알|번|회|세|살|시간|일|주|개월|년|명|시|분|mcg))"
_UNITS = {
    "mg/dl": "mg/dL", "mmol/l": "mmol/L", "%": "%", "퍼센트": "%", "프로": "%", "percent": "%", "mmhg": "mmHg",
    "bpm": "bpm",
    "회": "bpm", "도": "°C", "℃": "°C", "°c": "°C", "°f": "°F", "kg": "kg", "킬로": "kg", "키로": "kg",
    "lb": "lb", "lbs": "lb", "pounds": "lb", "cm": "cm", "센티": "cm", "u/l": "U/L", "iu/l": "U/L",
    "g/dl": "g/dL", "miu/l": "mIU/L", "ml/min": "mL/min/1.73m²", "ml/min/1.73m2": "mL/min/1.73m²",
}
_UNIT_RE = (
    r"\s?(mg\s?/\s?dl|mmol\s?/\s?l|ml/min(?:/1\.73m2)?|miu/l|iu/l|u/l|g/dl|mmhg|bpm|%|"
    r"퍼센트|percent|프로|℃|°c|°f|도|kg|킬로|키로|lbs?|pounds|cm|센티|회)?"
)


@dataclass(frozen=True)
class _Measure:
    slot: str  # "vitals" | "labs"
    key: str
    keywords: str
    unit: str
    low: float
    high: float


_MEASURES = (
    _Measure("labs", "fasting_glucose",
             r"공복\s?혈당|fasting\s+(?:blood\s+)?(?:glucose|sugar|plasma glucose)|\bfbs\b|\bfpg\b",
             "mg/dL", 20, 1000),
    _Measure("labs", "hba1c", r"당화\s?혈색소(?:\s?\(?axc\)?)?|헤모글로빈\s?axc|\bhbaxc\b|\baxc\b|에이원씨",
             "%", 3, 20),
    _Measure("labs", "ldl", r"\bldl(?:\s?-?\s?(?:c|콜레스테롤|cholesterol))?\b|엘디엘|나쁜\s?콜레스테롤",
             "mg/dL", 10, 500),
    _Measure("labs", "hdl", r"\bhdl(?:\s?-?\s?(?:c|콜레스테롤|cholesterol))?\b|에이치디엘|좋은\s?콜레스테롤",
             "mg/dL", 5, 200),
    _Measure("labs", "triglycerides", r"중성\s?지방|\btriglycerides?\b|\btg\b", "mg/dL", 10, 5000),
    _Measure("labs", "total_cholesterol", r"총\s?콜레스테롤|total\s+cholesterol|콜레스테롤|\bcholesterol\b",
             "mg/dL", 50, 800),
    _Measure("labs", "postprandial_glucose",
             r"식후\s?(?:\d\s?시간\s?)?혈당|\bpostprandial\s+(?:blood\s+)?(?:glucose|sugar)\b|"
             r"\bafter[- ]meal\s+(?:blood\s+)?(?:glucose|sugar)\b", "mg/dL", 20, 1500),
    _Measure("labs", "glucose", r"(?<!공복)(?<!공복\s)혈당(?:\s?수치)?|blood\s+(?:glucose|sugar)|\bglucose\b|\bsugar\b",
             "mg/dL", 20, 1500),
    _Measure("labs", "creatinine", r"크레아티닌|\bcreatinine\b", "mg/dL", 0.1, 20),
    _Measure("labs", "egfr", r"\begfr\b|사구체\s?여과율|\bgfr\b", "mL/min/1.73m²", 1, 200),
    _Measure("labs", "hemoglobin", r"(?<!당화)혈색소|헤모글로빈(?!\s?axc)|\bhemoglobin\b|\bhgb\b|\bhb\b",
             "g/dL", 2, 25),
    _Measure("labs", "ast", r"\bast\b|\bsgot\b", "U/L", 1, 5000),
    _Measure("labs", "alt", r"\balt\b|\bsgpt\b", "U/L", 1, 5000),
    _Measure("labs", "tsh", r"\btsh\b|갑상선\s?자극\s?호르몬", "mIU/L", 0.001, 200),
    _Measure("vitals", "heart_rate", r"맥박(?:수)?|심박(?:수)?|\bheart\s+rate\b|\bpulse(?:\s+rate)?\b|\bhr\b",
             "bpm", 20, 250),
    _Measure("vitals", "temperature", r"체온|\bbody\s+temperature\b|\btemperature\b|\btemp\b|열이|fever\s+of",
             "°C", 30, 110),
    _Measure("vitals", "weight", r"몸무게|체중|\bweight\b|\bweigh(?:s|ing)?\b", "kg", 1, 400),
    _Measure("vitals", "height", r"(?<![가-힣])키(?:가|는)?|\bheight\b", "cm", 40, 250),
    _Measure("vitals", "oxygen_saturation", r"산소\s?포화도|\bspox\b|oxygen\s+saturation|\bo2\s+sat\b|\bsat\b",
             "%", 50, 100),
    _Measure("vitals", "bmi", r"\bbmi\b|체질량\s?지수", "kg/m²", 10, 80),
)
# An ASCII word boundary: "LDL이 160" has no \\b between "l" and "이" (both are word characters).
_B = r"(?:(?<![a-z0-9])(?=[a-z0-9])|(?<=[a-z0-9])(?![a-z0-9]))"
_MEASURE_RE = [
    (m, re.compile(rf"(?:{m.keywords.replace(chr(92) + 'b', _B)}){_GAP}{_VALUE}(?![\d.]){_UNIT_RE}{_NOT_DOSE}"))
    for m in _MEASURES
]
_BP = re.compile(
    r"(?:혈압|blood\s+pressure|(?<![a-z])bp(?![a-z]))(?!\s?약)[^\d\n.?!;]{0,14}?(\d{2,3})\s?(?:/|over|에|-|에서)\s?(\d{2,3})\s?(mmhg)?"
)
# "수축기 140 이완기 90", "최고혈압 140 최저혈압 90", "systolic 140, diastolic 90".
_BP_PARTS = re.compile(
    r"(?:수축기(?:\s?혈압)?|최고\s?혈압|\bsystolic(?:\s+(?:blood\s+)?pressure)?)[^\d\n]{0,6}?(\d{2,3})[^\d\n]{0,8}?"
    r"(?:이완기(?:\s?혈압)?|최저\s?혈압|\bdiastolic(?:\s+(?:blood\s+)?pressure)?)[^\d\n]{0,6}?(\d{2,3})"
)
# Same length as the text, so spans stay valid: digits inside names would read as values.
_DIGIT_NAMES = re.compile(r"hba1c|a1c|spo2")


def _measurements(low: str) -> tuple[dict[str, str], dict[str, str], list[tuple[int, int]]]:
    text = _DIGIT_NAMES.sub(lambda m: m.group().replace("1", "x").replace("2", "x"), low)
    vitals: dict[str, str] = {}
    labs: dict[str, str] = {}
    spans: list[tuple[int, int]] = []
    for m in (*_BP_PARTS.finditer(text), *_BP.finditer(text)):
        if any(a < m.end() and m.start() < b for a, b in spans):
            continue
        sys_, dia = int(m.group(1)), int(m.group(2))
        if 50 <= sys_ <= 260 and 30 <= dia <= 160 and sys_ > dia:
            vitals["blood_pressure"] = f"{sys_}/{dia} mmHg"
            spans.append((m.start(), m.end()))
    for measure, pattern in _MEASURE_RE:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in spans):
                continue
            value = _number(m.group(1))
            if value is None:
                continue
            unit = _UNITS.get(re.sub(r"\s", "", m.group(2) or ""), measure.unit)
            if measure.key == "temperature" and (unit == "°F" or value > 50):
                unit = "°F"
            elif measure.key == "weight" and unit == "lb":
                pass
            elif unit not in (measure.unit, "mmol/L", "°F", "lb") or (measure.key != "heart_rate" and unit == "bpm"):
                unit = measure.unit
            if measure.key == "heart_rate":
                unit = "bpm"
            if unit == measure.unit and not measure.low <= value <= measure.high:
                continue
            target = vitals if measure.slot == "vitals" else labs
            target[measure.key] = f"{_fmt(value)} {unit}"
            spans.append((m.start(), m.end()))
            break
    return vitals, labs, spans


# ---------------------------------------------------------------------------------------------
# Medications

_PERIOD_KO = {"day": "하루", "week": "주", "month": "한 달"}


def _dose_text(dose: Dose) -> str:
    if dose.kind == "strength":
        return f"{_fmt(dose.value)} {dose.unit}"
    return f"{_fmt(dose.value)}{dose.unit}"


def _frequency_text(dose: Dose) -> str:
    if dose.kind == "interval":
        return f"{_fmt(dose.value)}시간마다"
    return f"{_PERIOD_KO.get(dose.per or 'day', '하루')} {_fmt(dose.value)}회"


def _medication(name: str, doses: list[Dose]) -> dict[str, Any]:
    strength = next((d for d in doses if d.kind == "strength"), None)
    count = next((d for d in doses if d.kind == "count"), None)
    freq = next((d for d in doses if d.kind in ("frequency", "interval")), None)
    dose = strength or count
    return {"name": name, "dose": _dose_text(dose) if dose else None,
            "frequency": _frequency_text(freq) if freq else None}


def _negated_take(clause: str, english: bool) -> bool:
    if english:
        return bool(_EN_STOP.search(clause))
    if _KO_STOP.search(_compact(clause)):
        # "안" must be the adverb, not part of a word (보안, 불안): ask Kiwi when it is the only cue.
        if re.search(r"끊|중단|중지|그만|지(?:않|말|마)|더이상|끝났|끝냈", _compact(clause)):
            return True
        return any(m.tag == "MAG" and m.form == "안" for m in tokenize(clause))
    return False


# ---------------------------------------------------------------------------------------------
# Extraction


def _condition_of(term: Term, terms: list[Term]) -> str:
    """A condition's canonical name; an allergy next to a drug is that drug's allergy: "페니실린
    알레르기", "allergic to penicillin", "penicillin allergy" -> "penicillin allergy"."""
    if term.canonical != "allergy":
        return term.canonical
    near = [t for t in terms if t.kind == "drug" and (0 <= term.start - t.end <= 3 or 0 <= t.start - term.end <= 4)]
    return f"{near[0].canonical} allergy" if near else term.canonical


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def extract_slots(text: str) -> SlotUpdate:
    """The six slots the user states about themself in ``text`` (Korean or English), plus removals.

    "65세 남성" -> age 65, male; "당뇨 있고 메트포르민 500mg 하루 두 번 먹어요" -> diabetes and
    metformin 500 mg 하루 2회; "이제 메트포르민 안 먹어요" -> removal of metformin; "I'm 42 and take
    lisinopril 10 mg" -> age 42 and lisinopril 10 mg. A name merely asked about adds nothing."""
    low = fold(text or "")
    if not low:
        return SlotUpdate()
    demographics = _demographics(low)
    vitals, labs, _ = _measurements(low)
    conditions: list[str] = []
    symptoms: list[str] = []
    medications: dict[str, dict[str, Any]] = {}
    removals: list[tuple[str, str]] = []
    terms = find_terms(low)
    for start, end in _clauses(low):
        clause = low[start:end]
        english = _is_english(clause)
        compact = _compact(clause)
        in_clause = [t for t in terms if start <= t.start < end]
        drugs = [t for t in in_clause if t.kind == "drug"]
        conds = [t for t in in_clause if t.kind == "condition"]
        not_mine = bool((_EN_NOT_MINE if english else _KO_NOT_MINE).search(clause if english else compact)
                        or _RELATIVES.search(clause))
        took = False
        if drugs:
            if _negated_take(clause, english):
                removals.extend(("medications", d.canonical) for d in drugs)
            else:
                doses = _doses(clause)
                takes = bool((_EN_TAKE if english else _KO_TAKE).search(clause if english else compact))
                if (takes or doses) and not not_mine:
                    took = True
                    for i, drug in enumerate(drugs):
                        stop = drugs[i + 1].start - start if i + 1 < len(drugs) else len(clause)
                        mine = [d for d in doses if drug.end - start <= d.start < stop] if len(drugs) > 1 else doses
                        medications[drug.canonical] = _medication(drug.canonical, mine)
        if conds:
            negated = bool((_EN_NOT_HAVE if english else _KO_NOT_HAVE).search(clause if english else compact))
            has = bool((_EN_HAVE if english else _KO_HAVE).search(clause if english else compact))
            if negated:
                removals.extend(("conditions", _condition_of(c, terms)) for c in conds)
            elif (has or took) and not not_mine:
                conditions.extend(_condition_of(c, terms) for c in conds)
            elif not english and not not_mine and _KO_TAKE.search(compact):
                # "혈압약 먹어요", "당뇨약 복용 중": taking the condition's medicine states the condition.
                conditions.extend(c.canonical for c in conds if c.surface.endswith("약") or low.startswith("약", c.end))
        for name, noun, predicate in _SYMPTOM_RE:
            stated = predicate.search(clause)
            named = noun.search(clause)
            found = named or stated
            if found is None:
                continue
            if english:
                before = clause[max(0, found.start() - 25):found.start()]
                negated = bool(_EN_NO_SYMPTOM.search(before) or _EN_SYMPTOM_GONE.search(clause, found.end()))
            else:
                negated = bool(_KO_NO_SYMPTOM.search(clause))
            if negated:
                removals.append(("symptoms", name))
                continue
            if english:
                if (stated or (named and _EN_FEEL.search(clause))) and not _EN_NOT_MINE.search(clause):
                    symptoms.append(name)
            elif _RELATIVES.search(clause):
                continue  # "아들이 열이 나요": someone else's symptom
            elif stated and not re.search(r"면|때|경우|원인|이유|뭐|무엇|왜", compact):
                symptoms.append(name)  # "머리가 아파요": the predicate states it
            elif named and _KO_FEEL.search(compact) and not not_mine:
                symptoms.append(name)  # "기침이 심해요": the noun with a cue
    removed = set(removals)
    return SlotUpdate(
        demographics=demographics,
        conditions=[c for c in _unique(conditions) if ("conditions", c) not in removed],
        symptoms=[s for s in _unique(symptoms) if ("symptoms", s) not in removed],
        medications=[m for m in medications.values() if ("medications", m["name"]) not in removed],
        vitals=vitals,
        labs=labs,
        removals=_unique_pairs(removals),
    )


def _unique_pairs(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return list(dict.fromkeys(pairs))


# ---------------------------------------------------------------------------------------------
# Profile


def as_profile(value: Mapping[str, Any] | None) -> dict[str, Any]:
    """A profile in this module's shape from either that shape or the flat slot dicts of the shared
    trap file (``{"age": 52, "conditions": ["chronic kidney disease"], "pregnant": true}``)."""
    if not value:
        return empty_profile()
    flat = ("age", "sex", "age_group", "pregnant", "breastfeeding")
    if not any(key in value for key in flat):
        return merge_profile(value, SlotUpdate())
    profile = empty_profile()
    for key in ("age", "sex", "age_group", "pregnant", "breastfeeding"):
        if value.get(key) is not None:
            profile["demographics"][key] = value[key]
    if "age" in profile["demographics"] and "age_group" not in profile["demographics"]:
        profile["demographics"]["age_group"] = age_group(float(profile["demographics"]["age"]))
    for key in ("conditions", "symptoms"):
        profile[key] = [str(v) for v in value.get(key) or []]
    profile["medications"] = [m if isinstance(m, Mapping) else {"name": str(m), "dose": None, "frequency": None}
                              for m in value.get("medications") or []]
    return profile


def empty_profile() -> dict[str, Any]:
    """A profile with the six slots and nothing in them."""
    return {"demographics": {}, "conditions": [], "symptoms": [], "medications": [], "vitals": {}, "labs": {}}


def _covers(general: str, specific: str) -> bool:
    """"diabetes" covers "type 2 diabetes": removing the first removes the second."""
    return specific == general or specific.endswith(" " + general)


_SEX_WORDS = {"male": "male", "m": "male", "man": "male", "남": "male", "남성": "male", "남자": "male",
              "female": "female", "f": "female", "woman": "female", "여": "female", "여성": "female", "여자": "female"}


def _drug_name(name: Any) -> str:
    text = str(name or "").strip()
    return canonical_drug(text) or text.lower()


def _condition_name(name: Any) -> str:
    text = str(name or "").strip()
    return canonical_condition(text) or text.lower()


def _demographics_of(values: Mapping[str, Any]) -> dict[str, Any]:
    """Demographics with canonical values: "gender": "남성" (a model's wording) -> "sex": "male"."""
    out = {k: copy.deepcopy(v) for k, v in values.items() if v is not None and k != "gender"}
    sex = values.get("sex") or values.get("gender")
    if sex is not None:
        out["sex"] = _SEX_WORDS.get(str(sex).strip().lower(), str(sex))
    if isinstance(out.get("age"), str) and out["age"].strip().isdigit():
        out["age"] = int(out["age"].strip())
    return out


def merge_profile(profile: Mapping[str, Any] | None, update: SlotUpdate) -> dict[str, Any]:
    """``profile`` with ``update`` applied field by field: newer values win, lists gain new items,
    a medication keeps its known dose or frequency when the update does not say them, a specific
    condition replaces its general form ("type 2 diabetes" replaces "diabetes"), and removals
    remove (removing "diabetes" also removes "type 2 diabetes"). ``profile`` is not mutated.

    Updates that did not come from :func:`extract_slots` (a model's JSON) are made canonical on the
    way in: drug and condition names through the lexicon ("Metformin", "메트포르민" -> "metformin";
    "당뇨병" -> "diabetes"), "gender"/"남성" -> "sex": "male"; medications without a name are skipped."""
    out = empty_profile()
    for name in SLOTS:
        value = (profile or {}).get(name)
        if value and isinstance(value, type(out[name])):
            out[name] = copy.deepcopy(value)
    demographics = _demographics_of(update.demographics or {})
    if "age" in demographics or "age_range" in demographics:
        # a new age or age range replaces the other and the group derived from it
        for key in ("age", "age_range", "age_group"):
            out["demographics"].pop(key, None)
    out["demographics"].update(demographics)
    if isinstance(demographics.get("age"), (int, float)) and "age_group" not in demographics:
        out["demographics"]["age_group"] = age_group(demographics["age"])
    for cond in (_condition_name(c) for c in update.conditions or []):
        if not cond:
            continue
        out["conditions"] = [c for c in out["conditions"] if not (c != cond and _covers(c, cond))]
        if cond not in out["conditions"] and not any(_covers(cond, c) for c in out["conditions"]):
            out["conditions"].append(cond)
    for symptom in (str(s).strip().lower() for s in update.symptoms or []):
        if symptom and symptom not in out["symptoms"]:
            out["symptoms"].append(symptom)
    meds = {m["name"]: dict(m) for m in out["medications"] if isinstance(m, Mapping) and m.get("name")}
    for med in update.medications or []:
        entry = med if isinstance(med, Mapping) else {"name": med}
        name = _drug_name(entry.get("name"))
        if not name:
            continue
        old = meds.get(name, {})
        meds[name] = {"name": name, "dose": entry.get("dose") or old.get("dose"),
                      "frequency": entry.get("frequency") or old.get("frequency")}
    out["medications"] = list(meds.values())
    out["vitals"].update(update.vitals or {})
    out["labs"].update(update.labs or {})
    for slot, value in update.removals or []:
        if slot == "conditions":
            gone = _condition_name(value)
            out["conditions"] = [c for c in out["conditions"] if not _covers(gone, c)]
        elif slot == "symptoms":
            out["symptoms"] = [s for s in out["symptoms"] if s != str(value).strip().lower()]
        elif slot == "medications":
            gone = _drug_name(value)
            out["medications"] = [m for m in out["medications"] if m.get("name") != gone]
        elif slot in ("vitals", "labs", "demographics"):
            out[slot].pop(value, None)
    return out


_SEX_KO = {"male": "남성", "female": "여성"}
_VITALS_KO = {"blood_pressure": "혈압", "heart_rate": "맥박", "temperature": "체온", "weight": "체중", "height": "키",
              "oxygen_saturation": "산소포화도", "bmi": "BMI"}
_LABS_KO = {"fasting_glucose": "공복혈당", "postprandial_glucose": "식후혈당", "glucose": "혈당", "hba1c": "당화혈색소",
            "ldl": "LDL 콜레스테롤",
            "hdl": "HDL 콜레스테롤", "total_cholesterol": "총콜레스테롤", "triglycerides": "중성지방",
            "creatinine": "크레아티닌", "egfr": "eGFR", "hemoglobin": "혈색소", "ast": "AST", "alt": "ALT",
            "tsh": "TSH"}
_SYMPTOMS_KO = {"chest pain": "흉통", "headache": "두통", "fever": "발열", "cough": "기침", "sore throat": "인후통",
                "runny nose": "콧물", "nasal congestion": "코막힘", "nausea": "메스꺼움", "vomiting": "구토",
                "diarrhea": "설사", "constipation": "변비", "abdominal pain": "복통", "heartburn": "속쓰림",
                "dizziness": "어지러움", "fatigue": "피로", "shortness of breath": "호흡곤란",
                "palpitations": "두근거림", "back pain": "요통", "joint pain": "관절통", "muscle pain": "근육통",
                "rash": "발진", "itching": "가려움",
                "swelling": "부종", "numbness": "저림", "blurred vision": "시야 흐림", "frequent urination": "빈뇨",
                "excessive thirst": "갈증", "weight loss": "체중 감소", "insomnia": "불면", "bleeding": "출혈",
                "indigestion": "소화불량",
                "seizure": "경련", "anxiety": "불안", "depressed mood": "우울감"}


def _ko(name: str) -> str:
    if name.endswith(" allergy") and name != "allergy":
        return f"{_ko(name.removesuffix(' allergy'))} 알레르기"
    return korean_name(name) or name


def profile_summary(profile: Mapping[str, Any] | None) -> str:
    """The note's one-line profile summary in Korean, "" for an empty profile:
    "65세 남성 | 질환: 당뇨병 | 복용약: 메트포르민 500mg 하루 2회 | 혈압: 140/90 mmHg | 공복혈당: 180 mg/dL"."""
    if not profile:
        return ""
    parts: list[str] = []
    demo = profile.get("demographics") or {}
    who = []
    if demo.get("age") is not None:
        who.append(f"{demo['age']}세")
    elif demo.get("age_range"):
        who.append(str(demo["age_range"]))
    if demo.get("sex") in _SEX_KO:
        who.append(_SEX_KO[demo["sex"]])
    if demo.get("pregnant"):
        who.append("임신 중")
    if demo.get("breastfeeding"):
        who.append("수유 중")
    if who:
        parts.append(" ".join(who))
    if profile.get("conditions"):
        parts.append("질환: " + ", ".join(_ko(c) for c in profile["conditions"]))
    if profile.get("symptoms"):
        parts.append("증상: " + ", ".join(_SYMPTOMS_KO.get(s, s) for s in profile["symptoms"]))
    meds = []
    for med in profile.get("medications") or []:
        words = [_ko(str(med.get("name", "")))]
        if med.get("dose"):
            words.append(str(med["dose"]).replace(" ", ""))
        if med.get("frequency"):
            words.append(str(med["frequency"]))
        meds.append(" ".join(words))
    if meds:
        parts.append("복용약: " + ", ".join(meds))
    for key, value in (profile.get("vitals") or {}).items():
        parts.append(f"{_VITALS_KO.get(key, key)}: {value}")
    for key, value in (profile.get("labs") or {}).items():
        parts.append(f"{_LABS_KO.get(key, key)}: {value}")
    return " | ".join(parts)


# ---------------------------------------------------------------------------------------------
# The cache signature

_FIRST_PERSON = re.compile(
    r"(?<![가-힣])(?:제가|저는|저도|제|저|내가|나는|내|저희)(?![가-힣\d])|"
    r"\b(?:i|i'm|i've|my|me|mine)\b"
)
_ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5", "vi": "6", "vii": "7", "viii": "8", "ix": "9",
          "x": "10"}
_KO_TYPE = re.compile(
    r"(?:제\s?)?(\d{1,2})\s?형(?![가-힣])|(?:제\s?)?(\d{1,2})\s?형(?=[은는이가을를의에과와도]|\s|당뇨)"
)
_KO_STAGE = re.compile(r"(\d)\s?기(?=[은는이가을를의에과와도]|\s|$)|(\d)\s?단계")


# Subtype markers with their spans (the core's ``qualifiers`` gives the values only); an ASCII boundary
# at both ends, since "type 1의" has no \b between "1" and "의".
_EN_QUALIFIER = re.compile(r"(?<![a-z0-9])(type|stage|grade|class|phase|step)\s+([ivx]+|[a-d]|\d+[a-c]?)(?![a-z0-9])")


def _subtypes(low: str) -> tuple[list[str], list[tuple[int, int]]]:
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    for m in _EN_QUALIFIER.finditer(low):
        out.append(f"{m.group(1)} {_ROMAN.get(m.group(2), m.group(2))}")
        spans.append((m.start(), m.end()))
    for m in _KO_TYPE.finditer(low):
        out.append(f"type {m.group(1) or m.group(2)}")
        spans.append((m.start(), m.end()))
    for m in _KO_STAGE.finditer(low):
        out.append(f"stage {m.group(1) or m.group(2)}")
        spans.append((m.start(), m.end()))
    return sorted(set(out)), spans


_PER_VOLUME = re.compile(r"\s?/\s?(?:dl|l|ml)(?![a-z])")
_PER_WEIGHT = re.compile(r"\s?/\s?kg(?![a-z])")


# Frequencies said without a number: "아침저녁으로" is twice a day, "매일" / "daily" once.
_IMPLIED_FREQUENCIES = (
    (re.compile(r"아침\s?점심\s?저녁|삼시\s?세\s?끼|하루\s?세\s?끼|매\s?식후|끼니마다|식후마다|"
                r"\b(?:with|after) (?:every|each) meal\b"), 3.0),
    (re.compile(r"아침\s?저녁|아침이랑\s?저녁|\bmorning and (?:evening|night)\b"), 2.0),
    (re.compile(r"매일|날마다|\bdaily\b|\bevery (?:day|morning|night|evening)\b|\beach day\b"), 1.0),
)


def _doses(text: str) -> list[Dose]:
    """Doses in ``text`` (folded), without concentrations ("126 mg/dL" is a lab value, not a dose),
    plus a frequency said without a number when no frequency is said with one."""
    doses = [d for d in parse_doses(text) if not _PER_VOLUME.match(text, d.end)]
    if not any(d.kind in ("frequency", "interval") for d in doses):
        for pattern, times in _IMPLIED_FREQUENCIES:
            m = pattern.search(text)
            if m:
                doses.append(Dose(times, "회", "day", m.start(), m.end()))
                break
    return sorted(doses, key=lambda d: d.start)


def _dose_key(dose: Dose, low: str) -> str:
    key = f"{_fmt(dose.value * 1000)}mg" if dose.unit == "g" and dose.per is None else dose.key
    return key + "/kg" if _PER_WEIGHT.match(low, dose.end) else key


def _blank(low: str, spans: Iterable[tuple[int, int]]) -> str:
    chars = list(low)
    for a, b in spans:
        for i in range(max(a, 0), min(b, len(chars))):
            chars[i] = " "
    return "".join(chars)


def question_signature(text: str, profile: Mapping[str, Any] | None = None) -> dict[str, str]:
    """What a cached answer to ``text`` depends on, as short canonical strings (only non-empty
    keys): ``drugs`` (canonical names), ``doses`` ("500mg", "2회/day", "8h"; 1 g == 1000 mg),
    ``measures`` (vitals and labs, unit-normalised), ``quantities`` (any other number with its
    unit), ``subtype`` ("type 1", "stage 3"), ``conditions`` and ``symptoms`` the question names
    ("두통" == "머리가 아파요" == "headache"), ``age_group`` (from the text, else the profile), ``age``
    (exact years, only for infants, children and adolescents when a drug or dose is asked about:
    paediatric doses go by age), ``pregnant`` / ``breastfeeding`` (text, else profile).

    Profile conditions join ``conditions`` when the question names a drug or a dose (an answer about
    a drug depends on the user's conditions) or speaks in the first person ("제 혈압 목표치는?",
    "my blood pressure target"); a general question ("제1형 당뇨병은 무엇인가요?") does not depend on
    the profile's conditions. Wording, particles, spacing, question words, Korean or English drug
    names and Korean number words do not change the signature. ``profile`` may be this module's
    profile or a flat trap-file profile (``{"age": 9, "conditions": [...]}``, see :func:`as_profile`)."""
    low = fold(text or "")
    prof = as_profile(profile)
    demo = prof.get("demographics") or {}
    sig: dict[str, str] = {}
    terms = find_terms(low)
    drugs = sorted({t.canonical for t in terms if t.kind == "drug"})
    conditions = {_condition_of(t, terms) for t in terms if t.kind == "condition"}
    doses = _doses(low)
    vitals, labs, measure_spans = _measurements(low)
    ages = _ages(low)
    subtypes, subtype_spans = _subtypes(low)
    if drugs:
        sig["drugs"] = ",".join(drugs)
    if doses:
        sig["doses"] = ",".join(sorted({_dose_key(d, low) for d in doses}))
    measures = {**vitals, **labs}
    if measures:
        sig["measures"] = ",".join(f"{k}={v.replace(' ', '')}" for k, v in sorted(measures.items()))
    rest = _blank(low, [*((d.start, d.end) for d in doses), *measure_spans, *((a, b) for _, a, b in ages),
                        *((a, b) for _, _, a, b in _decades(low)),
                        *subtype_spans, *((t.start, t.end) for t in terms)])
    others = [q for q in quantities(rest) if not re.fullmatch(r"\d+(?:\.\d+)?(?:형|기)", q)]
    if others:
        sig["quantities"] = ",".join(sorted(set(others)))
    if subtypes:
        sig["subtype"] = ",".join(subtypes)
    group = next((g for pattern, g in _GROUP_WORDS if pattern.search(low)), None)
    decades = _decades(low)
    if ages:
        group = age_group(ages[0][0])
    elif decades:
        decade, part = decades[0][0], decades[0][1]
        group = _decade_group(decade, part)
        if group is None:
            sig["age_range"] = f"{decade} {part}" if part else decade
    elif group is None:
        if demo.get("age") is not None:
            group = age_group(float(demo["age"]))
        elif demo.get("age_group"):
            group = str(demo["age_group"])
    if group:
        sig["age_group"] = group
    if (drugs or doses) and group in ("infant", "child", "adolescent"):
        age = ages[0][0] if ages else demo.get("age") if not any(p.search(low) for p, _ in _GROUP_WORDS) else None
        if age is not None:
            sig["age"] = str(int(age))
    if _NOT_PREGNANT.search(low):
        sig["pregnant"] = "no"
    elif _PREGNANCY_MENTION.search(low) or demo.get("pregnant") is True:
        sig["pregnant"] = "yes"
    if _BREASTFEEDING.search(low) or demo.get("breastfeeding") is True:
        sig["breastfeeding"] = "yes"
    if drugs or doses or _FIRST_PERSON.search(low):
        conditions.update(str(c) for c in prof.get("conditions") or [])
    if conditions:
        sig["conditions"] = ",".join(sorted(conditions))
    symptoms = sorted({name for name, noun, predicate in _SYMPTOM_RE if noun.search(low) or predicate.search(low)})
    if symptoms:
        sig["symptoms"] = ",".join(symptoms)
    return sig
