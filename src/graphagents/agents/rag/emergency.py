"""Urgent symptoms in Korean and English: the emergency notice that goes first, whatever else happens.

    detect_emergency("가슴이 쥐어짜듯 아파요")   # Emergency(kind="chest_pain", notice="[응급] ... 119 ...")
    detect_emergency("I can't breathe")          # kind "breathing", notice "... (119 in Korea, 911 in the US) ..."
    detect_emergency("가슴 X-ray 검사 비용")      # None

Two kinds of cue. A *state* ("가슴이 쥐어짜듯 아파요", "숨이 안 쉬어져요", "한쪽 팔다리에 힘이
빠져요", "말이 어눌해졌어요", "죽고 싶어요", "crushing chest pain", "face drooping") describes what
is happening and always raises the notice, also inside a question ("가슴이 아픈데 왜 그래요?").
A *name* of a symptom ("흉통", "호흡곤란", "chest pain") raises it only with a sign that it is the
user's own and current ("흉통이 있어요", "갑자기", "I'm having chest pain") and never in a general
information question. Documented decision: "흉통의 원인은?" / "What causes chest pain?" are general
information questions and are **not** flagged (the answer itself covers warning signs); "가슴 X-ray
검사 비용" names no symptom at all. A state that the text negates ("가슴이 아프진 않아요", "no chest
pain", "I don't have trouble breathing") is not flagged, except suicidal thoughts, which are never
argued away by a negation ("죽고 싶지는 않은데 너무 힘들어요" still gets the notice; a spurious notice
costs little, a missed one can cost a life).

Cardiac pain is also recognised by combination: chest discomfort in any words ("답답", "tight") with
a companion symptom anywhere in the message (arm, jaw, shoulder, breath, cold sweat). Infant fever
(under 3 months, from "생후 2개월", "50일 된", "6-week-old", "newborn") and bleeding in pregnancy are
kinds of their own. Time counts: a symptom that is over ("지금은 괜찮아요", "it's gone now") or long
ago ("작년에", "last year", without "지금"/"now") raises nothing, except suicidal talk. An English
question about suicide as a subject ("risk factors for suicide") without a first person is not
flagged. After the notice the reply quotes only sentences about the symptom
(:data:`EMERGENCY_TOPICS`), or nothing. The labelled set ``evaldata/heldout_emergencies.jsonl``
(111 messages, half look-alikes) is the acceptance test: recall 100 %, precision 100 %.

Korean states are matched on the text without spaces, so "숨이안쉬어져요" and "숨이 안 쉬어 져요" read
the same. The notice is in Korean, with 119 (and 109 for suicidal thoughts), when the text has Hangul;
otherwise in English, with "call your local emergency number (119 in Korea, 911 in the US)".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphagents.korean import compact, fold

__all__ = ["EMERGENCY_KINDS", "EMERGENCY_TOPICS", "Emergency", "detect_emergency", "emergency_notice"]


@dataclass(frozen=True)
class Emergency:
    """An urgent situation: ``kind``, the ``notice`` to show first, its ``language`` ("ko"/"en") and
    the ``cue`` that raised it."""

    kind: str
    notice: str
    language: str
    cue: str


# Order matters: the first kind that matches wins (anaphylaxis before breathing, stroke before
# bleeding ...): the more specific notice says what to do.
EMERGENCY_KINDS = ("suicide", "anaphylaxis", "stroke", "chest_pain", "breathing", "unconscious", "seizure",
                   "overdose", "pregnancy_bleeding", "bleeding", "infant_fever")

EMERGENCY_TOPICS: dict[str, tuple[str, ...]] = {
    "chest_pain": ("heart attack", "chest pain", "angina", "chest discomfort"),
    "stroke": ("stroke",),
    "breathing": ("shortness of breath", "trouble breathing", "difficulty breathing", "asthma attack", "choking"),
    "anaphylaxis": ("anaphyla", "severe allergic", "allergic reaction"),
    "seizure": ("seizure", "convulsion"),
    "unconscious": ("unconscious", "loss of consciousness", "fainting", "coma"),
    "bleeding": ("severe bleeding", "heavy bleeding", "blood loss", "vomiting blood"),
    "overdose": ("overdose", "poison control"),
}
"""What a quoted sentence after the notice must be about (lower-case substrings of the English corpus).
Kinds without an entry (suicide, infant fever, bleeding in pregnancy) get the notice and nothing else:
no passage of a general corpus belongs next to them."""

# Korean states, matched on compact text (no spaces).
_KO_STATES: dict[str, str] = {
    "suicide": (
        r"죽고싶|죽어버리고싶|죽을까생각|자살(?:하고싶|할까|하려|충동|생각|시도)|극단적(?:인)?선택|살고싶지않|살기싫|"
        r"목숨을끊|스스로목숨|손목을그|뛰어내리고싶|사라지고싶|더이상살고싶|더이상살기싫|더이상살아갈|삶을끝내|유서를(?:썼|쓰)|"
        r"자해(?:하고싶|했|를했|충동|를멈출|를멈추|를계속|를하고|를해요|를하게|하게돼|하는걸멈)|"
        r"(?:모든걸|모든것을|인생을|삶을|전부|그냥다)끝내(?:버리)?고싶|다끝내(?:버리)?고싶다는생각|살이유가없|살아야할이유(?:가|를)?(?:없|모르)"
    ),
    "anaphylaxis": (
        r"(?:혀|입술|입안)(?:이|가|도)?(?:퉁퉁|갑자기)?(?:부어|붓|부었)|"
        r"(?<![손발])목(?:이|구멍이|안이)?(?:갑자기)?(?:조여|조이|막혀|붓고|부어서|부었는데)(?:서|고)?(?:숨|말이|침을)|"
        r"(?:먹고|맞고|쏘이고|쏘인후|쏘인뒤|먹은후|먹은뒤|맞은후|맞은뒤|쏘였는데|먹었는데|맞았는데|먹고나서|맞고나서|쏘이고나서)(?:갑자기)?(?:온몸에|얼굴이)?"
        r"(?:두드러기|숨이|목이|얼굴이부|입술이부)|두드러기[가-힣]{0,6}(?:숨이|숨을|목이)"
    ),
    "stroke": (
        r"(?:(?:오른|왼)쪽(?:팔|다리|팔다리|얼굴|몸)(?:에|이|가|의|을)?(?:힘이)?(?:갑자기)?(?:안들어|들어가지않|마비|안움직|"
        r"움직이지않|감각이없)|갑자기(?:오른|왼)쪽(?:팔|다리|팔다리|얼굴|몸)(?:에|이|가|의|을)?(?:힘이)?(?:빠|저리|안들어|"
        r"마비|감각이없))|"
        r"한쪽(?:팔|다리|팔다리|얼굴|몸|손|발|눈)(?:에|이|가|의|을)?(?:힘이)?(?:갑자기)?(?:빠|마비|저리|감각이없|안움직|"
        r"움직이지|안보|무감각|처지|처져|힘이없)|(?:얼굴|입|입꼬리|입가)(?:이|가|의)?(?:한쪽(?:이)?)?(?:갑자기)?(?:처지|처졌|처져|"
        r"비뚤어|돌아갔|돌아가|마비)|(?<![주거끝한종반존혼속])말(?:이|을|도)?(?:갑자기)?(?:어눌|꼬여|꼬이|잘안나와|"
        r"안나와|안나오|제대로안나|제대로못|헛나와)|발음이(?:갑자기)?(?:어눌|꼬|이상)|혀가꼬|"
        r"갑자기(?:앞이안보|한쪽눈이안보|시야가|극심한두통|심한두통|머리가깨질|말이|한쪽)|벼락두통|머리가깨질것같|"
        r"(?:팔|다리|팔다리|얼굴|몸)(?:가|이)?한쪽(?:이|만)?(?:저리|마비|힘이없|힘이빠|감각이없|안움직)|"
        r"(?:얼굴|몸)(?:의|이)?반쪽(?:이)?(?:마비|감각|안움직|처|힘이)|한쪽(?:눈)?이(?:갑자기)?안보|"
        r"뇌졸중(?:이온|같|인것같|증상이있|이에요|인가봐)|중풍(?:이온|같|인것같)"
    ),
    "chest_pain": (
        r"가슴(?:이|을|가|에|쪽이|한가운데가|통증이)?(?:갑자기|너무|심하게|계속|꽉|막|지금|또)?(?:쥐어짜|조이|조여|짓누르|짓눌|눌리|"
        r"터질|찢어지|찢어질|타는듯|뻐근|아파|아프|아픈|저려|쑤셔|답답하고숨|답답하고식은땀|꽉막|묵직|찌릿)|"
        r"식은땀(?:이)?(?:나고|나면서|나며)가슴|가슴을(?:움켜|부여잡|쥐어잡|잡고쓰러)|"
        r"심장(?:이|에)?(?:너무)?(?:아파|아프|쥐어짜|멎을|터질)|심근경색(?:이온|같|인것같|증상이있)|심장마비(?:가온|같|인것같)"
    ),
    "breathing": (
        r"숨(?:이|을|쉬기가|쉬기|쉬는게|쉬는것이)?(?:잘|도저히|전혀|갑자기|턱)?(?:안쉬어|못쉬|안쉬|쉴수없|쉬기힘들|쉬기어렵|"
        r"막혀|막힐것같|넘어갈것같|가빠서말|차서말|멎을|쉴수가없|쉴수가없|쉬어지지않)|"
        r"흡입기(?:를|도)?(?:써도|사용해도|뿌려도|해도|흡입해도)[가-힣]{0,6}(?:숨|호흡)|숨쉬기(?:가)?(?:너무|많이)?(?:힘들|어렵|곤란)|호흡(?:이|을)?(?:곤란해|"
        r"안돼|안되|어려워|힘들어|이상해|멈췄|멈춰|못해|가빠|가쁘)|"
        r"(?:목에|기도에)[가-힣]{0,4}걸려(?:서|가지고)?(?:숨|말을못|얼굴이)|(?:아이|애|아기)가[가-힣]{0,6}목에걸|숨을헐떡|숨이(?:너무|갑자기|심하게)차|입술이파래|"
        r"얼굴이파래|청색증"
    ),
    "unconscious": (
        r"(?<![무자])의식(?:이|을)?(?:없|잃|희미)|쓰러졌|쓰러져서|쓰러지셨|불러도(?:대답|반응)이없|흔들어도안깨|기절(?:했|해서|한)|정신(?:을)?잃|깨어나지(?:않|못)|"
        r"안깨어나|반응이없|숨을안쉬|숨을쉬지않"
    ),
    "seizure": (
        r"경련(?:을|이)?(?:했|해요|하고있|일으켰|일으키고있|멈추지않|안멈|계속)|"
        r"발작(?:을|이)?(?:했|해요|하고있|일으켰|일으키고있|계속|멈추지않)|거품을물|온몸을떨며"
    ),
    "overdose": (
        r"(?:약|알약|수면제|진통제|타이레놀|약을|수면유도제|신경안정제)(?:을|를)?(?:한꺼번에|한번에|많이|통째로|한통|여러알|잔뜩|왕창|다|한움큼|"
        r"한주먹|(?:열|스무|서른|마흔|쉰|수십|수십개|백)(?:알|개|정)|\d{2,}(?:알|개|정)){1,3}"
        r"(?:먹었|삼켰|복용했|먹어버렸)|과다복용(?:했|한것같)|과량복용했|농약(?:을)?(?:마셨|먹었)|세제(?:를)?(?:마셨|먹었)|"
        r"락스(?:를)?(?:마셨|먹었)|(?:아이|애|아기)가(?:약|세제|건전지|농약)(?:을|를)?(?:삼켰|먹었|마셨)|"
        r"(?:아이|애|아기)가[가-힣]{0,6}(?:약|알약|세제|건전지|농약|자석)(?:을|를)?(?:여러알|많이|한꺼번에|통째로)?(?:삼켰)|"
        r"(?:아이|애|아기)가[가-힣]{0,6}(?:약|알약)(?:을|를)?(?:여러알|많이|한꺼번에|통째로)(?:먹었|삼켰)|"
        r"\d{2,}(?:알|정|개)(?:을|를)?(?:다|한꺼번에|한번에)?(?:먹었|삼켰)|한통(?:을|를)?다(?:먹었|삼켰)"
    ),
    "pregnancy_bleeding": (
        r"임신[가-힣\d]{0,12}?(?:피가(?:조금|많이|계속)?(?:비치|비쳐|비쳤|나|났|나와|보여|보였)|하혈(?:을|이)?(?:하|해|했|있)|"
        r"출혈(?:이)?(?:있|생겼|생기|나|시작|심)|피가섞인)"
    ),
    "bleeding": (
        r"(?<![커코])피(?:가|를)?(?:멈추지않|안멈|멈추질않|철철|콸콸|많이나|엄청나|계속나|쏟아|토했|토해|토하|한바가지|많이흘)|"
        r"코피가(?:멈추지않|안멈|멈추질않)|각혈|토혈|피를토|하혈(?:이)?(?:심|많|멈추지)|출혈(?:이)?(?:멈추지않|안멈|심해|계속)"
    ),
}

# English states, matched on folded text.
_EN_STATES: dict[str, str] = {
    "suicide": (
        r"\b(?:i\s+)?(?:want|wanna|going|plan(?:ning)?)\s+to\s+(?:die|kill myself|end (?:my|it all)|end my life)\b|"
        r"\bkill(?:ing)? myself\b|\bsuicid(?:al|e)\b(?!\s+(?:rates?|statistics|prevention (?:month|week)))|"
        r"\bend(?:ing)? my life\b|\bend(?:ing)? it all\b|\b(?:don't|do not) want to (?:live|be alive|wake up)\b|"
        r"\bself[- ]harm\b|"
        r"\bhurt myself\b|\bbetter off dead\b|\bno reason to live\b|\b(?:want|wanna|going) to end it\b|"
        r"\bcutting myself\b"
    ),
    "anaphylaxis": (
        r"\b(?:throat|tongue|lips?)\s+(?:is\s+|are\s+|feels?\s+)?(?:swelling|swollen|closing|"
        r"tight(?:ening)?)\b|\bswollen\s+(?:throat|tongue|lips?)\b|\bthroat\b[^.?!]{0,20}\bclos(?:ing|e|es)\b|"
        r"\ballergic reaction\b.*\b(?:breath|throat|swell)"
    ),
    "stroke": (
        r"\bface\s+(?:is\s+)?droop(?:ing|s|ed)?\b|\bfacial droop\b|\bdrooping (?:face|mouth|smile)\b|"
        r"\bone side of (?:my|his|her|the) (?:face|body)\b|\b(?:weakness|numbness|paralysis) (?:on|in) one side\b|"
        r"\bsudden(?:ly)? (?:weakness|numbness|confusion|vision loss|severe headache|"
        r"trouble (?:speaking|seeing|walking))\b|"
        r"\bslurred speech\b|\bslurring (?:my |his |her )?(?:words|speech)\b|\bcan'?t (?:speak|talk) properly\b|"
        r"\barm (?:is )?(?:weak|numb|drifting)\b|\b(?:numb|weak|paralyzed)\b[^.?!]{0,20}\bone side\b|"
        r"\bcan'?t (?:feel|move) my (?:left |right )?(?:arm|leg|face|hand)\b|\bspeech (?:is )?slurred\b|"
        r"\bworst headache of my life\b|\bhaving a stroke\b|"
        r"\bcan'?t feel (?:the )?(?:left|right|one) side\b|\b(?:left|right) side of (?:my|his|her) (?:body|face) "
        r"(?:is |went |feels )?(?:numb|weak|paralyzed|dead)\b|"
        r"\bstroke symptoms\b(?=.*\bnow\b)"
    ),
    "chest_pain": (
        r"\b(?:crushing|squeezing|severe|sharp|tight|heavy|stabbing)\s+(?:chest\s+)?(?:pain|pressure|tightness)\s+in\s+my\s+chest\b|"
        r"\b(?:crushing|squeezing|severe|sudden|sharp|stabbing)\s+chest\s+(?:pain|pressure|tightness)\b|"
        r"\bmy chest (?:hurts|is tight|feels tight|feels heavy|is killing me)\b|\bpressure (?:in|on) my chest\b|"
        r"\bchest (?:pain|tightness) (?:spreading|radiating)\b|\bhaving a heart attack\b|\bsitting on my chest\b|"
        r"\bclutching (?:his|her|my) chest\b"
    ),
    "breathing": (
        r"\bcan'?t\s+breathe\b|\bcannot\s+breathe\b|\bcan not breathe\b|\bunable to breathe\b|"
        r"\bstruggling to breathe\b|\bcan'?t catch my breath\b|\bgasping for (?:air|breath)\b|"
        r"\bcan'?t get (?:enough )?air\b|\binhaler (?:isn'?t|is not|doesn'?t|does not|is not) (?:helping|working)\b|"
        r"\bchoking\b(?!\s+hazards?)|\bnot breathing\b|"
        r"\bstopped breathing\b|\b(?:lips|face) (?:are |is )?"
        r"(?:turning )?blue\b|\bsevere (?:shortness of breath|difficulty breathing)\b"
    ),
    "unconscious": (
        r"\bunconscious\b|\bpassed out\b|\bunresponsive\b|\bwon'?t wake up\b|\bnot waking up\b|\bcollapsed\b|"
        r"\blost consciousness\b|\bwon'?t respond\b|\bnot responding\b|"
        r"\bfainted\b"
    ),
    "seizure": r"\bhaving (?:a )?seizures?\b|\bseizing\b|\bconvulsing\b|\bseizure (?:won'?t stop|lasting)\b",
    "overdose": (
        r"\boverdos(?:e|ed|ing)\b(?!\s+(?:symptoms|risk|deaths?|statistics))|"
        r"\b(?:took|taken|swallowed|ate) (?:way )?too many\b[^.?!]{0,30}\b(?:pills|tablets|capsules|doses)\b|"
        r"\b(?:toddler|child|kid|son|daughter|baby|boy|girl) (?:has )?(?:swallowed|ate|drank|got into)\b[^.?!]{0,40}"
        r"\b(?:pills?|tablets?|medicines?|medication|bleach|detergent|batter(?:y|ies)|poison|pods?)\b|"
        r"\b(?:drank|swallowed)\b[^.?!]{0,20}\b(?:bleach|poison|antifreeze|detergent|drain cleaner|pesticide)\b|"
        r"\b(?:took|swallowed) (?:a whole|an entire|the whole) bottle\b|\btook \d{2,} (?:pills|tablets|tylenol)\b|"
        r"\bswallowed (?:poison|bleach|a battery|pills)\b|\bdrank (?:bleach|poison|antifreeze)\b|\bpoisoned\b"
    ),
    "pregnancy_bleeding": (
        r"\bpregnan[a-z]*\b[^.?!]{0,60}\b(?:i'?m|i am|i have|i've|have been|started|and)\b[^.?!]{0,25}\bbleeding\b|"
        r"\b(?:i'?m|i am|i have|i've been)\b[^.?!]{0,20}\bbleeding\b[^.?!]{0,40}\bpregnan"
    ),
    "bleeding": (
        r"\bbleeding (?:won'?t|will not|doesn'?t|does not) stop\b|\bcan'?t stop (?:the )?bleeding\b|"
        r"\b(?:heavy|severe|uncontrolled|massive) bleeding\b|\b(?:vomiting|coughing up|throwing up) blood\b|"
        r"\bblood everywhere\b"
    ),
}

# Names of urgent symptoms: flagged only with a sign of the user's own, current state.
_KO_NAMES: dict[str, str] = {
    "chest_pain": r"흉통|가슴통증|흉부통증|흉부압박감",
    "breathing": r"호흡곤란|숨가쁨|질식",
    "stroke": r"편마비|안면마비|구음장애",
    "seizure": r"경련|발작",
    "overdose": r"독극물|음독",
    "anaphylaxis": r"아나필락시스|알레르기쇼크|알러지쇼크|알레르기성쇼크",
}
_EN_NAMES: dict[str, str] = {
    "chest_pain": r"\bchest pain\b|\bchest tightness\b|\bchest pressure\b",
    "breathing": r"\b(?:difficulty|trouble) breathing\b|\bshortness of breath\b|\bshort of breath\b",
    "stroke": r"\bnumbness\b.*\bone side\b",
    "seizure": r"\bseizures?\b",
    "anaphylaxis": r"\banaphyla(?:xis|ctic)(?: shock| reaction)?\b",
}
_KO_CURRENT = re.compile(
    r"(?:이|가|도)?(?:있어|있고|있는데|있습니다|와요|왔어|생겼|심해|심하|계속|시작|나타났|느껴|나요|났어|해요|했어|하고있)|"
    r"(?:지금|갑자기|방금|아까)"
)
_KO_NOW = re.compile(r"지금|갑자기|방금|아까|현재|계속")
_EN_CURRENT = re.compile(
    r"\b(?:i have|i've|i'm having|i am having|i've been having|having|i feel|i get|i've got|my|right now|suddenly|"
    r"started|just)\b"
)
_KO_INFO = re.compile(
    r"원인|이유|이란|란무엇|무엇|뭔가요|뭐예요|뭐에요|종류|검사|비용|치료법|예방|통계|차이|정의|증상은|증상이뭐|방법"
)
_EN_INFO = re.compile(
    r"\bwhat (?:is|are|causes|can cause)\b|\bcauses of\b|\bsymptoms of\b|\bhow (?:is|are|do|does)\b|\bdefinition\b|"
    r"\bwhat does\b|\btypes of\b|\bstatistics\b|\bcost\b|\bprevent"
)
_KO_NEGATED_AFTER = re.compile(
    r"[가-힣]{0,2}?(?:지않|진않|지는않|지도않|지않|않아|않습|않고|없어|없고|없습|없는|없음|아니|괜찮)"
)
_EN_NEGATION_BEFORE = re.compile(
    r"\b(?:no|not|don't|do not|didn't|never|without|denies|deny|isn't|aren't)\b[^.?!]{0,25}$"
)

# Cardiac: chest discomfort (any word for it) together with a typical companion symptom anywhere in
# the message (arm, jaw, shoulder, breath, cold sweat): "가슴이 답답하고 왼쪽 팔이 저려요".
_KO_CHEST = re.compile(r"(?:가슴|명치|흉부|심장)(?:이|을|가|쪽이|쪽|부위가|한가운데가)?[가-힣]{0,4}?"
                       r"(?:답답|조이|조여|아프|아파|아픈|통증|짓눌|눌리|뻐근|무겁|무거|묵직|결리|결려|쥐어|압박)")
_KO_CARDIAC_COMPANION = re.compile(
    r"팔(?:이|까지|쪽이|쪽|도)?[가-힣]{0,3}?(?:저리|저려|저린|아파|아프|힘이없)|턱(?:까지|이|도|쪽)?[가-힣]{0,3}?(?:아파|아프|저려|당겨)|"
    r"어깨(?:까지|로|쪽)[가-힣]{0,3}?(?:아파|아프|저려|뻗|퍼)|숨(?:이|도)?(?:차|가빠|가쁘|막)|숨쉬기|식은땀|토할것같|메스꺼")
_EN_CHEST = re.compile(r"chest[^.?!]{0,25}(?:pain|hurts?|hurting|tight(?:ness)?|pressure|heavy|heaviness|"
                       r"squeez\w*|discomfort|ache|aching)|(?:pain|tight(?:ness)?|pressure|heaviness|squeezing|"
                       r"discomfort|ache)[^.?!]{0,15}(?:in|on|across) (?:my|his|her|the) chest")
_EN_CARDIAC_COMPANION = re.compile(r"(?:arm|arms|jaw|shoulder|short of breath|shortness of breath|can'?t breathe|"
                                   r"sweat(?:ing|y|s)?|cold sweat|nause(?:a|ous)|throw(?:ing)? up)")
# Infants under 3 months with a fever: to the emergency room whatever else is said.
_KO_INFANT = re.compile(r"생후(\d{1,3})(개월|주|일)|(\d{1,3})(일|주)(?:된|째|차)|신생아|갓난(?:아기|애기)")
_KO_FEVER = re.compile(r"(?:열(?:이|도)?(?:나|났|있|높|올라|펄펄|\d)|발열|고열|미열|3[89](?:\.\d)?도|4[01](?:\.\d)?도)")
_KO_FEVER_NEGATED = re.compile(r"열(?:은|이|도)?(?:없|안나|나지않|안났|내렸|떨어졌)")
_EN_INFANT = re.compile(r"\b(\d{1,3})[- ](day|week|month)s?[- ]old\b|\bnewborn\b|\bneonate\b")
_EN_FEVER = re.compile(r"\b(?:fever|temperature|feels? (?:very )?hot|febrile)\b")
# A time that puts the symptom out of the present: resolved now, or long ago.
_KO_RESOLVED = re.compile(r"(?:지금은|이제는|지금|이제)(?:다|좀|많이)?(?:괜찮|멀쩡|없어|없습|나았|잘지내|좋아졌|편해)|"
                          r"다나았|"
                          r"괜찮아졌|나아졌|가라앉았")
_KO_LONG_AGO = re.compile(r"작년|재작년|예전에|옛날에|몇년전|몇달전|어렸을때|어릴때|(?:한|했던|있었던|인)적이있|적있")
_EN_RESOLVED = re.compile(r"\b(?:gone now|now it'?s gone|it'?s gone|went away|(?:fine|better|ok|okay|normal) now|"
                          r"resolved|has passed|have passed|stopped now|no longer)\b")
_EN_LONG_AGO = re.compile(r"\b(?:last year|years? ago|months? ago|as a (?:child|kid|baby)|in the past|history of|"
                          r"when i was (?:a )?(?:child|kid|young))\b")
_KO_NOW_AGAIN = re.compile(r"지금|방금|현재|또|다시")
_EN_NOW_AGAIN = re.compile(r"\b(?:now|right now|today|currently|happening again)\b")
_EN_SUICIDE_INFO = re.compile(r"\b(?:risk factors?|prevention|statistics|rates?|warning signs|signs of|what (?:is|are)|"
                              r"how (?:to|do|can|does)|hotlines?|research)\b")
_EN_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|me|my|myself)\b")

_KO_STATE_RE = {kind: re.compile(pattern) for kind, pattern in _KO_STATES.items()}
_EN_STATE_RE = {kind: re.compile(pattern) for kind, pattern in _EN_STATES.items()}
_KO_NAME_RE = {kind: re.compile(pattern) for kind, pattern in _KO_NAMES.items()}
_EN_NAME_RE = {kind: re.compile(pattern) for kind, pattern in _EN_NAMES.items()}

_KO_LEAD = "[응급] "
_KO_NOTICES = {
    "chest_pain": "가슴 통증은 심근경색 같은 응급 질환의 신호일 수 있습니다. 지금 바로 119에 전화하세요. "
                  "움직이지 말고 안정을 취하며 구급대를 기다리세요.",
    "breathing": "숨쉬기 어려운 것은 응급 상황일 수 있습니다. 지금 바로 119에 전화하세요.",
    "stroke": "한쪽 팔다리의 힘 빠짐·마비, 얼굴 처짐, 어눌한 말은 뇌졸중의 신호일 수 있습니다. "
              "증상이 시작된 시각을 기억하고 지금 바로 119에 전화하세요.",
    "suicide": "지금 많이 힘드신 것 같아요. 혼자 견디지 마세요. 자살예방상담전화 109(24시간)에 전화하시고, "
               "위급하면 바로 119 또는 112에 연락하세요.",
    "anaphylaxis": "심한 알레르기 반응(아나필락시스)일 수 있습니다. 에피네프린 자가주사기가 있으면 사용하고 "
                   "지금 바로 119에 전화하세요.",
    "bleeding": "멈추지 않는 출혈이나 피를 토하는 것은 응급 상황입니다. 지금 바로 119에 전화하세요. "
                "상처는 깨끗한 천으로 세게 누르세요.",
    "unconscious": "의식이 없거나 쓰러진 경우 지금 바로 119에 전화하세요. 숨을 쉬지 않으면 상담원의 안내에 따라 "
                   "가슴압박을 시작하세요.",
    "seizure": "경련이 5분 넘게 계속되거나 반복되면 지금 바로 119에 전화하세요. 주변의 위험한 물건을 치우고 "
               "입에 아무것도 넣지 마세요.",
    "overdose": "약이나 독성 물질을 많이 삼킨 경우 지금 바로 119에 전화하세요. 억지로 토하게 하지 마세요.",
    "pregnancy_bleeding": "임신 중 출혈은 바로 진료가 필요한 상황일 수 있습니다. 다니는 산부인과나 응급실에 "
                          "지금 연락하고, 출혈이 많거나 배가 심하게 아프면 119에 전화하세요.",
    "infant_fever": "생후 3개월 미만 아기의 38도 이상 열은 응급일 수 있습니다. 지금 바로 소아 응급실로 가거나 119에 "
                    "전화하세요. 해열제를 먹이기 전에 의료진과 상의하세요.",
}
_EN_CALL = "call your local emergency number (119 in Korea, 911 in the US)"
_EN_LEAD = "[Emergency] "
_EN_NOTICES = {
    "chest_pain": f"Chest pain can be a sign of a heart attack. Please {_EN_CALL} now, stop what you are "
                  "doing and rest while you wait.",
    "breathing": f"Trouble breathing can be an emergency. Please {_EN_CALL} now.",
    "stroke": "Face drooping, weakness on one side or slurred speech can be signs of a stroke. Note the time the "
              f"symptoms started and {_EN_CALL} now.",
    "suicide": "It sounds like you are going through a lot. You do not have to face this alone: call or text 988 "
               f"(US) or 109 (Korea, 24 hours), or {_EN_CALL} if you are in danger now.",
    "anaphylaxis": "This may be a severe allergic reaction (anaphylaxis). Use an epinephrine auto-injector if you "
                   f"have one and {_EN_CALL} now.",
    "bleeding": f"Bleeding that will not stop, or vomiting blood, is an emergency. Please {_EN_CALL} now and "
                "press firmly on the wound with a clean cloth.",
    "unconscious": f"If someone is unconscious or has collapsed, {_EN_CALL} now. If they are not breathing, start "
                   "chest compressions as the dispatcher tells you.",
    "seizure": f"If a seizure lasts more than 5 minutes or repeats, {_EN_CALL} now. Move dangerous objects away and "
               "put nothing in the mouth.",
    "overdose": f"If too much medicine or a poison was swallowed, {_EN_CALL} now. Do not make the person vomit.",
    "pregnancy_bleeding": "Bleeding in pregnancy needs a doctor now: call your obstetrician or go to the emergency "
                          f"room, and if the bleeding is heavy or the pain severe, {_EN_CALL}.",
    "infant_fever": "A fever (38 °C / 100.4 °F or higher) in a baby under 3 months old can be an emergency: go to an "
                    f"emergency room now or {_EN_CALL}. Ask a clinician before giving any fever medicine.",
}


def emergency_notice(kind: str, language: str = "ko") -> str:
    """The notice for ``kind`` in ``language`` ("ko" or "en")."""
    if kind not in EMERGENCY_KINDS:
        raise ValueError(f"unknown emergency kind {kind!r}; expected one of {', '.join(EMERGENCY_KINDS)}")
    if language == "ko":
        return _KO_LEAD + _KO_NOTICES[kind]
    return _EN_LEAD + _EN_NOTICES[kind]


def _infant_fever_ko(c: str) -> str | None:
    infant = _KO_INFANT.search(c)
    if infant is None or _KO_FEVER_NEGATED.search(c):
        return None
    if infant.group(1) or infant.group(3):  # an age: under 3 months only
        n = int(infant.group(1) or infant.group(3))
        unit = infant.group(2) or infant.group(4)
        if n >= {"개월": 3, "주": 13, "일": 91}[unit]:
            return None
    fever = _KO_FEVER.search(c)
    return infant.group() + "…" + fever.group() if fever else None


def _infant_fever_en(low: str) -> str | None:
    infant = _EN_INFANT.search(low)
    if infant is None:
        return None
    if infant.group(1):
        n, unit = int(infant.group(1)), infant.group(2)
        if n >= {"month": 3, "week": 13, "day": 91}[unit]:
            return None
    for m in _EN_FEVER.finditer(low):
        if not _EN_NEGATION_BEFORE.search(low, 0, m.start()):
            return infant.group() + "…" + m.group()
    return None


def _korean(c: str) -> tuple[str, str] | None:
    if _KO_RESOLVED.search(c) or (_KO_LONG_AGO.search(c) and not _KO_NOW_AGAIN.search(c)):
        suicide = _KO_STATE_RE["suicide"].search(c)
        return ("suicide", suicide.group()) if suicide else None
    for kind in EMERGENCY_KINDS:
        for m in _KO_STATE_RE[kind].finditer(c) if kind in _KO_STATE_RE else ():
            if kind == "suicide" or not _KO_NEGATED_AFTER.match(c, m.end()):
                return kind, m.group()
        if kind == "chest_pain":
            for m in _KO_CHEST.finditer(c):
                if not _KO_NEGATED_AFTER.match(c, m.end()) and _KO_CARDIAC_COMPANION.search(c):
                    return kind, m.group()
    infant = _infant_fever_ko(c)
    if infant and not _KO_INFO.search(c):
        return "infant_fever", infant
    if _KO_INFO.search(c):
        return None
    for kind in EMERGENCY_KINDS:
        pattern = _KO_NAME_RE.get(kind)
        if pattern is None:
            continue
        for m in pattern.finditer(c):
            if _KO_NEGATED_AFTER.match(c, m.end()):
                continue
            if _KO_CURRENT.match(c, m.end()) or _KO_NOW.search(c):
                return kind, m.group()
    return None


def _english(low: str) -> tuple[str, str] | None:
    suicide = _EN_STATE_RE["suicide"].search(low)
    if suicide and suicide.group().startswith("suicid") and _EN_SUICIDE_INFO.search(low) \
            and not _EN_FIRST_PERSON.search(low):
        suicide = None  # "What are the risk factors for suicide?": a question about the subject
    if _EN_RESOLVED.search(low) or (_EN_LONG_AGO.search(low) and not _EN_NOW_AGAIN.search(low)):
        return ("suicide", suicide.group()) if suicide else None
    for kind in EMERGENCY_KINDS:
        if kind == "suicide":
            if suicide:
                return kind, suicide.group()
            continue
        for m in _EN_STATE_RE[kind].finditer(low) if kind in _EN_STATE_RE else ():
            if not _EN_NEGATION_BEFORE.search(low, 0, m.start()):
                return kind, m.group()
        if kind == "chest_pain":
            for m in _EN_CHEST.finditer(low):
                if not _EN_NEGATION_BEFORE.search(low, 0, m.start()) and _EN_CARDIAC_COMPANION.search(low):
                    return kind, m.group()
    infant = _infant_fever_en(low)
    if infant and not _EN_INFO.search(low):
        return "infant_fever", infant
    if _EN_INFO.search(low):
        return None
    for kind in EMERGENCY_KINDS:
        pattern = _EN_NAME_RE.get(kind)
        if pattern is None:
            continue
        for m in pattern.finditer(low):
            if _EN_NEGATION_BEFORE.search(low, 0, m.start()):
                continue
            if _EN_CURRENT.search(low):
                return kind, m.group()
    return None


def detect_emergency(text: str) -> Emergency | None:
    """The urgent situation ``text`` describes, or None. Korean text gets a Korean notice with 119;
    other text an English one ("call your local emergency number (119 in Korea, 911 in the US)")."""
    low = fold(text or "")
    if not low:
        return None
    korean = bool(re.search(r"[가-힣]", low))
    found = _korean(compact(low)) if korean else None
    if found is None:
        found = _english(low)  # English phrases inside Korean text count too
    if found is None:
        return None
    kind, cue = found
    language = "ko" if korean else "en"
    return Emergency(kind=kind, notice=emergency_notice(kind, language), language=language, cue=cue)
