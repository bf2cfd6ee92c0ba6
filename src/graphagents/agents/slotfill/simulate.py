"""Hard simulated users: does the agent ever read back a value the user did not say?

Each user has the application it wants (name, phone, limits, alerts) and a profile that may hold
an old name or number. It answers the way people talk to a bank's voice agent: corrections in the
middle of a sentence ("1회 삼백, 아니 그게 아니라 오백만원"), two numbers in one message, Korean
number words ("공일공 구팔칠육 ...", "천오백만원"), hesitations ("음... 그러니까"), limits in the
reverse order, a security medium changed halfway. At every confirmation it compares what is read
back with what it has said so far; a value it never said (or a value it took back) is a *wrong
read-back*, and it then corrects it plainly, as a careful customer would.

``python -m graphagents.agents.slotfill.simulate --users 120`` prints the figures; the tests run a
slice of the same users. Users are generated from a seed, so a run is reproducible.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SimUser", "SimResult", "make_users", "run_user", "run_users", "korean_amount", "korean_digits"]

_NAMES = ("김민수", "이서연", "박지훈", "최유진", "정하늘", "강도윤", "조은비", "윤서준", "장미래", "임태양",
          "한지민", "오세훈", "서다은", "신우진", "권나래", "황보영")  # fmt: skip
_DIGITS = "공일이삼사오육칠팔구"
_PER_TIME = (500_000, 1_000_000, 2_000_000, 3_000_000, 5_000_000, 10_000_000, 20_000_000, 50_000_000, 100_000_000)
_PER_DAY = (1_000_000, 5_000_000, 10_000_000, 15_000_000, 20_000_000, 30_000_000, 50_000_000, 100_000_000,
            200_000_000, 500_000_000)  # fmt: skip
_MEDIA = ("OTP", "보안카드", "모바일OTP")
_MEDIUM_WORDS = {"OTP": ("OTP", "오티피", "OTP 기기"), "보안카드": ("보안카드", "보안 카드"),
                 "모바일OTP": ("모바일OTP", "모바일 OTP", "휴대폰 앱")}  # fmt: skip
_ALERTS = ("important_transaction_alert", "withdrawal_alert", "overseas_ip_restriction")
_ALERT_WORDS = {"important_transaction_alert": "중요거래 알림", "withdrawal_alert": "출금 알림",
                "overseas_ip_restriction": "해외 IP 차단"}  # fmt: skip
_CONFIRM_FIELDS = {
    "confirm_basic_info": ("customer_name", "customer_phone"),
    "confirm_ib_info": ("security_medium", "transfer_limit_per_time", "transfer_limit_per_day"),
    "confirm_alerts": _ALERTS,
    "confirm_summary": ("customer_name", "customer_phone", "use_lifelong_account", "use_internet_banking",
                        "security_medium", "transfer_limit_per_time", "transfer_limit_per_day", *_ALERTS),
}  # fmt: skip


def korean_digits(number: str) -> str:
    """"010-9876-5432" -> "공일공 구팔칠육 오사삼이": digits read one by one, as on the phone."""
    return " ".join("".join(_DIGITS[int(d)] for d in group) for group in number.split("-"))


def _sino(n: int) -> str:
    """1..9999 in Sino-Korean words, without the leading 일 of 천/백/십 (천오백, 이천, 삼백오십)."""
    out = ""
    for value, unit in ((1000, "천"), (100, "백"), (10, "십")):
        digit, n = divmod(n, value)
        if digit:
            out += ("" if digit == 1 else _DIGITS[digit]) + unit
    return out + (_DIGITS[n] if n else "")


def korean_amount(won: int, style: str) -> str:
    """``won`` written as people say it: "300만원" (digits), "삼백만원" (words), "3백만원" (mixed)."""
    eok, man = divmod(won // 10_000, 10_000)
    if style == "words":
        text = (("" if eok == 1 else _sino(eok)) + "억" if eok else "") + (_sino(man) + "만" if man else "")
        return text + "원"
    if style == "mixed" and not eok and man % 100 == 0 and man < 1000:
        return f"{man // 100}백만원"
    if style == "mixed" and not eok and man % 1000 == 0:
        return f"{man // 1000}천만원"
    if eok:
        return f"{eok}억" + (f" {man:,}만원" if man else "원")
    return f"{man:,}만원" if style != "spaced" else f"{man:,}만 원"


@dataclass
class SimUser:
    """One customer: what they want, what their profile says, and how they say things."""

    index: int
    want: dict[str, Any]
    profile: dict[str, str]
    styles: dict[str, str]
    rng_seed: int


@dataclass
class SimResult:
    index: int
    completed: bool
    correct: bool
    turns: int
    wrong_readbacks: list[dict[str, Any]] = field(default_factory=list)
    transcript: list[tuple[str, str]] = field(default_factory=list)


def make_users(n: int, seed: int = 23) -> list[SimUser]:
    rng = random.Random(seed)
    users = []
    for i in range(n):
        name = rng.choice(_NAMES)
        phone = f"010-{rng.randint(2000, 9999)}-{rng.randint(1000, 9999)}"
        per_time = rng.choice(_PER_TIME)
        per_day = rng.choice([d for d in _PER_DAY if d >= per_time])
        ib = rng.random() < 0.85
        want: dict[str, Any] = {"customer_name": name, "customer_phone": phone,
                                "use_lifelong_account": rng.random() < 0.6, "use_internet_banking": ib}
        if ib:
            want.update(security_medium=rng.choice(_MEDIA), transfer_limit_per_time=per_time,
                        transfer_limit_per_day=per_day)
            want.update({a: rng.random() < 0.75 for a in _ALERTS})
        profile = {"customer_name": name if rng.random() < 0.8 else rng.choice([x for x in _NAMES if x != name]),
                   "customer_phone": phone if rng.random() < 0.4 else
                   f"010-{rng.randint(2000, 9999)}-{rng.randint(1000, 9999)}"}
        styles = {"phone": rng.choice(_PHONE_STYLES), "name": rng.choice(_NAME_STYLES),
                  "limits": rng.choice(_LIMIT_STYLES), "amount": rng.choice(("digits", "words", "mixed", "spaced")),
                  "alerts": rng.choice(_ALERT_STYLES), "yes": rng.choice(_YES), "no": rng.choice(_NO)}
        users.append(SimUser(i, want, profile, styles, rng.randint(0, 10**9)))
    return users


# ------------------------------------------------------------------ ways of saying things

_YES = ("네", "네 맞아요", "음... 네 맞아요", "어 네", "네네 그렇게 해 주세요", "예 할게요")
_NO = ("아니요", "아니요 괜찮아요", "음 아니요 안 할래요", "아뇨 필요 없어요")


def _other_phone(rng: random.Random, phone: str) -> str:
    head, mid, last = phone.split("-")
    return f"{head}-{mid}-{(int(last) + rng.randint(1, 8)) % 10000:04d}"


def _phone_plain(u: SimUser, rng: random.Random) -> str:
    return f"번호가 틀렸어요 {u.want['customer_phone']}이에요"


def _phone_words(u: SimUser, rng: random.Random) -> str:
    return f"번호가 바뀌었어요 {korean_digits(u.want['customer_phone'])}"


def _phone_full_repair(u: SimUser, rng: random.Random) -> str:
    return f"번호는 {_other_phone(rng, u.want['customer_phone'])} 아니 그게 아니라 {u.want['customer_phone']}이에요"


def _phone_wait_repair(u: SimUser, rng: random.Random) -> str:
    return f"번호는 {_other_phone(rng, u.want['customer_phone'])}인데 아 잠깐만 {u.want['customer_phone']}로 해 주세요"


def _phone_group_repair(u: SimUser, rng: random.Random) -> str:
    wrong = _other_phone(rng, u.want["customer_phone"])
    return f"번호는 {wrong} 아니 {u.want['customer_phone'].split('-')[-1]}이에요"


def _phone_hesitant(u: SimUser, rng: random.Random) -> str:
    return f"음... 그러니까 번호가 {u.want['customer_phone'].replace('-', ' ')}예요"


_PHONE_STYLES = ("plain", "words", "full_repair", "wait_repair", "group_repair", "hesitant")
_PHONE: dict[str, Callable[[SimUser, random.Random], str]] = {
    "plain": _phone_plain, "words": _phone_words, "full_repair": _phone_full_repair,
    "wait_repair": _phone_wait_repair, "group_repair": _phone_group_repair, "hesitant": _phone_hesitant,
}  # fmt: skip
_NAME_STYLES = ("plain", "not_but", "repair")


def _name_line(u: SimUser, rng: random.Random) -> str:
    name, old = u.want["customer_name"], u.profile["customer_name"]
    style = u.styles["name"]
    if style == "not_but":
        return f"이름은 {old}가 아니라 {name}예요"
    if style == "repair":
        return f"성함이 틀렸어요 {old}... 아 아니 {name}요"
    return f"성함이 틀렸어요 {name}입니다"


_LIMIT_STYLES = ("plain", "reverse", "repair_nuh", "repair_wait", "repair_gebonira", "hesitant", "medium_change")


def _limits_line(u: SimUser, rng: random.Random) -> str:
    w = u.want
    amount = u.styles["amount"]
    t, d = korean_amount(w["transfer_limit_per_time"], amount), korean_amount(w["transfer_limit_per_day"], amount)
    medium = rng.choice(_MEDIUM_WORDS[w["security_medium"]])
    wrong_t = korean_amount(rng.choice([x for x in _PER_TIME if x != w["transfer_limit_per_time"]
                                        and x <= w["transfer_limit_per_day"]]), amount)
    style = u.styles["limits"]
    if style == "reverse":
        return f"{medium}로 하고 하루 {d}, 1회 {t}"
    if style == "repair_nuh":
        return f"{medium}로 할게요. 1회 {wrong_t} 아니 {t}, 하루 {d}"
    if style == "repair_wait":
        return f"{medium}요 1회 {wrong_t}이요 아 잠깐 {t}이요 하루 {d}"
    if style == "repair_gebonira":
        return f"{medium}로 하고 1회는 {wrong_t}... 아니 그게 아니라 {t}로 해 주시고 하루는 {d}요"
    if style == "hesitant":
        return f"음... {medium}로 할게요. 한도는 어... 1회 {t} 하루 {d}"
    if style == "medium_change":
        other = next(m for m in _MEDIA if m != w["security_medium"])
        return f"{other}로 하고, 아 아니다 {medium}로 할게요. 1회 {t} 하루 {d}"
    return f"{medium}로 하고 1회 {t}, 하루 {d}"


_ALERT_STYLES = ("each", "all_but", "all")


def _alerts_line(u: SimUser, rng: random.Random) -> str:
    w = u.want
    style = u.styles["alerts"]
    on = [a for a in _ALERTS if w[a]]
    if style == "all" and len(on) in (0, 3):
        return "다 사용할게요" if on else "음... 다 안 할래요"
    if style == "all_but" and len(on) == 2:
        off = next(a for a in _ALERTS if not w[a])
        return f"{_ALERT_WORDS[off]}만 빼고 다 할게요"
    verb = {a: "받을게요" for a in _ALERTS[:2]} | {"overseas_ip_restriction": "설정할게요"}
    return " ".join(f"{_ALERT_WORDS[a]}은 {verb[a] if w[a] else '안 할래요'}" for a in _ALERTS)


def _plain_fix(field_name: str, value: Any) -> str:
    """How a careful customer corrects one read-back value (no hedging, no second number)."""
    if field_name == "customer_name":
        return f"아니요 성함은 {value}입니다"
    if field_name == "customer_phone":
        return f"아니요 연락처는 {value}입니다"
    if field_name == "security_medium":
        return f"아니요 보안매체는 {value}로 해 주세요"
    if field_name == "transfer_limit_per_time":
        return f"아니요 1회 이체한도는 {korean_amount(value, 'digits')}으로 해 주세요"
    if field_name == "transfer_limit_per_day":
        return f"아니요 1일 이체한도는 {korean_amount(value, 'digits')}으로 해 주세요"
    word = {"use_lifelong_account": "평생계좌번호", "use_internet_banking": "인터넷뱅킹", **_ALERT_WORDS}[field_name]
    return f"아니요 {word}는 {'할게요' if value else '안 할래요'}"


# ------------------------------------------------------------------ the conversation


def run_user(agent: Any, u: SimUser, max_turns: int = 30) -> SimResult:
    """Play one user to the end (or ``max_turns``); every confirmation is checked against what was said."""
    rng = random.Random(u.rng_seed)
    session = agent.session(profile=dict(u.profile))
    said: dict[str, Any] = {k: v for k, v in u.profile.items()}  # shown from the profile: not the agent's guess
    said.update(important_transaction_alert=True, withdrawal_alert=True, overseas_ip_restriction=True)  # defaults
    result = SimResult(u.index, completed=False, correct=False, turns=0)
    seen: dict[str, int] = {}
    text = "안녕하세요"
    for _ in range(max_turns):
        reply = session.send(text)
        result.turns += 1
        result.transcript.append((text, reply.text))
        state = reply.state
        slots: dict[str, Any] = dict(state.get("slots") or {})
        stage = str(state.get("stage") or "")
        if reply.done or state.get("completed"):
            result.completed = bool(state.get("completed"))
            result.correct = result.completed and all(slots.get(k) == v for k, v in u.want.items())
            break
        seen[stage] = seen.get(stage, 0) + 1
        first = seen[stage] == 1
        text, said = _answer(u, rng, stage, slots, said, first, result)
    return result


def _answer(u: SimUser, rng: random.Random, stage: str, slots: dict[str, Any], said: dict[str, Any],
            first: bool, result: SimResult) -> tuple[str, dict[str, Any]]:
    w = u.want
    if stage in _CONFIRM_FIELDS:
        fields = [f for f in _CONFIRM_FIELDS[stage] if f in slots]
        wrong = [f for f in fields if f in said and slots.get(f) != said[f]]
        if wrong:
            result.wrong_readbacks.append({"stage": stage, "field": wrong[0], "shown": slots.get(wrong[0]),
                                           "said": said[wrong[0]], "after": result.transcript[-1][0]})
        bad = [f for f in fields if slots.get(f) != w.get(f)]
        if not bad:
            return rng.choice(_YES[:2]), said
        f = bad[0]
        if stage == "confirm_basic_info" and first and f == "customer_phone":
            line = _PHONE[u.styles["phone"]](u, rng)
        elif stage == "confirm_basic_info" and first and f == "customer_name":
            line = _name_line(u, rng)
        else:
            line = _plain_fix(f, w[f])
        said = {**said, f: w[f]}
        return line, said
    if stage == "correct_basic_info":
        return f"성함은 {w['customer_name']}이고 연락처는 {w['customer_phone']}입니다", {
            **said, "customer_name": w["customer_name"], "customer_phone": w["customer_phone"]}
    if stage == "ask_lifelong_account":
        return (u.styles["yes"] if w["use_lifelong_account"] else u.styles["no"]), {
            **said, "use_lifelong_account": w["use_lifelong_account"]}
    if stage == "ask_internet_banking":
        return (u.styles["yes"] if w["use_internet_banking"] else u.styles["no"]), {
            **said, "use_internet_banking": w["use_internet_banking"]}
    if stage == "collect_ib_info":
        keys = ("security_medium", "transfer_limit_per_time", "transfer_limit_per_day")
        per_time = korean_amount(w["transfer_limit_per_time"], "digits")
        per_day = korean_amount(w["transfer_limit_per_day"], "digits")
        line = _limits_line(u, rng) if first else (
            f"보안매체는 {w['security_medium']}, 1회 이체한도는 {per_time}, 1일 이체한도는 {per_day}입니다")
        return line, {**said, **{k: w[k] for k in keys}}
    if stage == "collect_alerts":
        line = _alerts_line(u, rng) if first else " ".join(
            f"{_ALERT_WORDS[a]} {'네' if w[a] else '아니요'}." for a in _ALERTS)
        return line, {**said, **{a: w[a] for a in _ALERTS}}
    # a handoff offer, a re-ask we do not model, a cancel confirmation: keep going
    return "아니요 계속할게요", said


def run_users(users: list[SimUser], agent: Any | None = None) -> dict[str, Any]:
    if agent is None:
        from ...runtime import load

        agent = load("slotfill")
    results = [run_user(agent, u) for u in users]
    wrong = [r for r in results if r.wrong_readbacks]
    return {
        "users": len(results),
        "completed": sum(r.completed for r in results),
        "completed_correctly": sum(r.correct for r in results),
        "users_with_wrong_readback": len(wrong),
        "wrong_readbacks": sum(len(r.wrong_readbacks) for r in results),
        "mean_turns": round(sum(r.turns for r in results) / max(1, len(results)), 2),
        "examples": [{"user": r.index, **r.wrong_readbacks[0]} for r in wrong[:10]],
        "results": results,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--users", type=int, default=120)
    parser.add_argument("--seed", type=int, default=23)
    args = parser.parse_args(argv)
    report = run_users(make_users(args.users, args.seed))
    report.pop("results")
    json.dump(report, sys.stdout, ensure_ascii=False, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
