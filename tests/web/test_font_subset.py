"""The bundled Noto Sans KR subsets draw what the product shows: every character of every statute the
supervisor quotes (「」, Hanja such as 賃貸借, ①) has a glyph in the face whose ``unicode-range`` in
style.css covers it, so no quote shows boxes on a machine without CJK fonts."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont

STATIC = Path(str(resources.files("graphagents.server") / "static"))
FACE = re.compile(r"@font-face\s*{[^}]*?url\(\"/static/fonts/([^\"]+)\"\)[^}]*?unicode-range:\s*([^;]+);", re.S)


@cache
def faces() -> list[tuple[str, list[tuple[int, int]], frozenset[int]]]:
    """(file, its unicode-range, the codepoints its file draws) for each face style.css declares."""
    out = []
    for file, ranges in FACE.findall((STATIC / "style.css").read_text(encoding="utf-8")):
        spans = []
        for part in ranges.replace("\n", " ").split(","):
            lo, _, hi = part.strip().removeprefix("U+").partition("-")
            spans.append((int(lo, 16), int(hi or lo, 16)))
        cmap = frozenset(TTFont(STATIC / "fonts" / file).getBestCmap())
        out.append((file, spans, cmap))
    return out


def drawn(ch: str) -> bool:
    cp = ord(ch)
    return any(cp in cmap for _, spans, cmap in faces() if any(lo <= cp <= hi for lo, hi in spans))


def statutes() -> list[dict[str, str]]:
    text = (resources.files("graphagents.agents.supervisor") / "realestate" / "laws" / "articles.jsonl").read_text(
        encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_the_faces_are_the_bundled_files() -> None:
    files = {file for file, _, _ in faces()}
    assert files == {p.name for p in (STATIC / "fonts").glob("*.woff2")}
    assert {"noto-sans-kr-korean-400-normal.woff2", "noto-sans-kr-hanja-400-normal.woff2"} <= files


def test_every_statute_quote_is_drawn_by_the_bundled_font() -> None:
    articles = statutes()
    quoted = "".join(f"{a['title']} {a['text']}" for a in articles)
    assert "「" in quoted and "賃貸借" in quoted  # the data still has what broke before
    missing = sorted({ch for ch in quoted if not ch.isspace() and not drawn(ch)})
    assert missing == [], f"no bundled glyph for {''.join(missing)!r}"


@pytest.mark.parametrize("text", ["「주택임대차보호법」 제3조의2", "賃貸借 登記", "① ② ※ ㎡ → ℃",
                                  "보증금 3억원, 월차임 50만원"])
def test_korean_text_the_replies_use_is_drawn(text: str) -> None:
    assert all(ch.isspace() or drawn(ch) for ch in text), [ch for ch in text if not ch.isspace() and not drawn(ch)]


def test_a_character_outside_every_face_is_not_claimed() -> None:
    """The check itself: a character no face covers (a rare Hanja outside KS X 1001 and the package,
    an emoji) is reported as not drawn."""
    assert not drawn("😀")
    assert not drawn("\U00020000")  # CJK Extension B
