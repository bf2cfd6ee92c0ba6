"""Generated account-opening conversations: as many distinct customers as a load or chaos run needs,
each with the slots its eight turns must leave behind (bench/server_load.py, the chaos test)."""

from __future__ import annotations

from typing import Any

_DAY_WORDS = {1: "천만원", 2: "2천만원", 3: "3천만원"}


def account_opening(i: int, *, phone_base: int = 4000) -> tuple[list[str], dict[str, Any]]:
    """Customer ``i``'s eight turns (own phone number, 1회 N00만원 and 하루 M천만원 limits) and the
    slots they must leave behind. ``phone_base`` keeps the numbers of two runs apart."""
    phone = f"010-{phone_base + i % 5000:04d}-{(i * 7919) % 10000:04d}"
    per_time, per_day = 1 + i % 5, 1 + i % 3
    turns = ["안녕하세요", f"전화번호는 {phone}이에요", "네 맞아요", "네", "네",
             f"OTP로 하고 1회 {per_time}00만원, 하루 {_DAY_WORDS[per_day]}", "네", "모두 사용할게요"]
    slots = {"customer_name": "김민수", "customer_phone": phone, "use_lifelong_account": True,
             "use_internet_banking": True, "security_medium": "OTP",
             "transfer_limit_per_time": per_time * 1_000_000, "transfer_limit_per_day": per_day * 10_000_000,
             "important_transaction_alert": True, "withdrawal_alert": True, "overseas_ip_restriction": True}
    return turns, slots
