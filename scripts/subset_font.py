"""Make the web page's Noto Sans KR subsets from the characters the product emits.

The page bundles the font so that Korean renders on a machine without CJK fonts. A subset made
from Hangul alone drew boxes for the statutes' 「」 and their Hanja, so the subsets come from what
the product can put on the page:

* ``noto-sans-kr-korean-400-normal.woff2``: every Hangul syllable and jamo, the CJK symbol and
  punctuation blocks (「」『』【】〈〉・ ...), kana, enclosed and compatibility forms (①, ㈜, ㎡),
  full-width forms, the symbol blocks Korean text uses (→, ※, ℃, ■, ★), Greek, and every other
  character that a file of the package holds (prompts, reply templates, scenario, lexicons,
  statutes, documents, the page itself) and the font draws, Latin and Hanja aside;
* ``noto-sans-kr-hanja-400-normal.woff2``: the 4,888 Hanja of KS X 1001 (the Korean standard set,
  what Korean text and statutes use) and any other Hanja the package holds;
* ``noto-sans-kr-latin-400-normal.woff2``: Latin-1 and general punctuation (fontsource's Latin
  ranges, so that a Latin-only page loads this small file alone), with every glyph of those ranges
  the font has: ※, ―, ‥ and † are Korean text's too.

The ``unicode-range`` of each face is written into ``style.css`` between its markers, so the
browser downloads the Hanja file only for a page that shows Hanja.

Usage (the source is Google's static Noto Sans KR Regular, e.g. from the npm package
``@expo-google-fonts/noto-sans-kr`` 0.4.3: ``npm pack`` it and untar ``400Regular/``)::

    .venv/bin/python scripts/subset_font.py path/to/NotoSansKR_400Regular.ttf
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "graphagents"
STATIC = PACKAGE / "server" / "static"
FONTS = STATIC / "fonts"
CSS = STATIC / "style.css"
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".json", ".jsonl", ".csv", ".txt", ".xml", ".js", ".html", ".css"}
SKIP_DIRS = {"__pycache__", "fonts", "vendor"}

HANGUL = [(0x1100, 0x11FF), (0x3130, 0x318F), (0xA960, 0xA97F), (0xAC00, 0xD7A3), (0xD7B0, 0xD7FF)]
CJK_SYMBOLS = [(0x3000, 0x303F), (0x3040, 0x30FF), (0x3200, 0x32FF), (0x3300, 0x33FF), (0xFF00, 0xFFEF)]
SYMBOLS = [(0x0370, 0x03FF), (0x2070, 0x2BFF)]
"""Symbols Korean text uses (→, ※, ①, ℃, ■, ○, ★ ...), Greek (μ, α) and super/subscripts: the font's
glyphs of these blocks go in too, for text the package does not hold (a user's table, a model's reply)."""
HANJA_BLOCKS = [(0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FA1F)]
LATIN_FACE = [(0x0000, 0x00FF), (0x0131, 0x0131), (0x0152, 0x0153), (0x02BB, 0x02BC), (0x02C6, 0x02C6),
              (0x02DA, 0x02DA), (0x02DC, 0x02DC), (0x0304, 0x0304), (0x0308, 0x0308), (0x0329, 0x0329),
              (0x2000, 0x206F), (0x20AC, 0x20AC), (0x2122, 0x2122), (0x2191, 0x2191), (0x2193, 0x2193),
              (0x2212, 0x2212), (0x2215, 0x2215), (0xFEFF, 0xFEFF), (0xFFFD, 0xFFFD)]
"""The Latin file's ranges (fontsource's): left out of the other two faces."""


def expand(ranges: Iterable[tuple[int, int]]) -> set[int]:
    return {cp for lo, hi in ranges for cp in range(lo, hi + 1)}


def is_hanja(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in HANJA_BLOCKS)


def ks_x_1001_hanja() -> set[int]:
    """The Hanja rows of KS X 1001 (EUC-KR lead bytes 0xCA-0xFD), through Python's codec."""
    out: set[int] = set()
    for lead in range(0xCA, 0xFE):
        for trail in range(0xA1, 0xFF):
            try:
                out.add(ord(bytes([lead, trail]).decode("euc_kr")))
            except UnicodeDecodeError:
                continue
    return out


def emitted_characters(root: Path = PACKAGE) -> set[int]:
    """Every character in the package's text files (what the product can show)."""
    found: set[int] = set()
    for path in root.rglob("*"):
        if not path.is_file() or path.suffix not in TEXT_SUFFIXES or SKIP_DIRS & set(path.parts):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found.update(ord(ch) for ch in text if ch.isprintable())
    return found


def ranges_of(codepoints: Iterable[int], gap: int = 0) -> list[tuple[int, int]]:
    """Runs of codepoints; runs less than ``gap`` apart are joined."""
    out: list[tuple[int, int]] = []
    for cp in sorted(set(codepoints)):
        if out and cp <= out[-1][1] + 1 + gap:
            out[-1] = (out[-1][0], cp)
        else:
            out.append((cp, cp))
    return out


def unicode_range(codepoints: Iterable[int], gap: int = 128) -> str:
    """A short ``unicode-range``: nearby runs joined (a character of a gap that the file does not
    draw falls through to the next font of the stack, as any character outside the range does)."""
    return ", ".join(f"U+{lo:04X}" if lo == hi else f"U+{lo:04X}-{hi:04X}" for lo, hi in ranges_of(codepoints, gap))


def subset(source: Path, codepoints: set[int], target: Path) -> set[int]:
    """Write a WOFF2 subset with the glyphs of ``codepoints`` the font has; returns those codepoints."""
    from fontTools import subset as ft_subset
    from fontTools.ttLib import TTFont

    font = TTFont(source)
    have = codepoints & set(font.getBestCmap())
    options = ft_subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    subsetter = ft_subset.Subsetter(options=options)
    subsetter.populate(unicodes=sorted(have))
    subsetter.subset(font)
    font.flavor = "woff2"
    font.save(target)
    return have


FACE = """@font-face {{
  font-family: "Noto Sans KR";
  font-style: normal;
  font-weight: 100 900;
  font-display: swap;
  src: local("Noto Sans KR"), local("NotoSansKR-Regular"),
       url("/static/fonts/{file}") format("woff2");
  unicode-range: {ranges};
}}"""


def write_css(faces: dict[str, set[int]]) -> None:
    """Replace the generated faces between the markers of style.css (the Latin face keeps its exact
    ranges: a gap joined there would pull Hangul text's spaces and digits into another file)."""
    begin, end = "/* font-subsets:begin (scripts/subset_font.py) */", "/* font-subsets:end */"
    css = CSS.read_text(encoding="utf-8")
    block = "\n".join(FACE.format(file=file, ranges=unicode_range(cps, 0 if "latin" in file else 128))
                      for file, cps in faces.items())
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    if not pattern.search(css):
        raise SystemExit(f"style.css has no {begin} ... {end} block to replace")
    CSS.write_text(pattern.sub(lambda _: f"{begin}\n{block}\n{end}", css), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="Noto Sans KR Regular (TTF or OTF), the whole font")
    args = parser.parse_args(argv)
    emitted = emitted_characters()
    latin = expand(LATIN_FACE)
    korean = (expand(HANGUL) | expand(CJK_SYMBOLS) | expand(SYMBOLS) | {cp for cp in emitted if cp > 0x7F}) - latin
    korean = {cp for cp in korean if not is_hanja(cp)}
    hanja = ks_x_1001_hanja() | {cp for cp in emitted if is_hanja(cp)}
    faces = {}
    for name, wanted in (("latin", latin), ("korean", korean), ("hanja", hanja)):
        file = f"noto-sans-kr-{name}-400-normal.woff2"
        have = subset(args.source, wanted, FONTS / file)
        faces[file] = have
        missing = sorted(cp for cp in wanted - have if cp in emitted)
        size = (FONTS / file).stat().st_size
        print(f"{file}: {len(have)} characters, {size / 1024:.0f} KiB"
              + (f"; the font lacks {len(missing)} the package holds: "
                 + "".join(chr(cp) for cp in missing[:40]) if missing else ""))
    write_css(faces)
    print(f"style.css: unicode-range of {', '.join(faces)} written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
