"""Korean morphology: one Kiwi analyser per process, guarded, and the morphemes the matchers read.

Building ``Kiwi()`` loads its model (a second or more and tens of MB), so every agent shares this
instance. Kiwi raises on lone UTF-16 surrogates (``"\\ud800"``), which a JSON body can carry; the
analyser handed out here scrubs them (and NUL) first, length-preserving, so offsets stay valid and
no input can crash it, whoever calls it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ._text import scrub

if TYPE_CHECKING:
    from kiwipiepy import Kiwi

__all__ = ["Morph", "get_kiwi", "split_clauses", "tokenize"]

_kiwi: Kiwi | None = None
_lock = threading.Lock()


def _scrubbed(text: Any) -> Any:
    if isinstance(text, str):
        return scrub(text)
    if isinstance(text, Iterable):
        return (scrub(t) if isinstance(t, str) else t for t in text)
    return text


def _guarded_kiwi() -> Kiwi:
    from kiwipiepy import Kiwi

    class GuardedKiwi(Kiwi):
        """Kiwi whose text entry points scrub lone surrogates and control characters first."""

        def tokenize(self, text: Any, *args: Any, **kwargs: Any) -> Any:
            return super().tokenize(_scrubbed(text), *args, **kwargs)

        def analyze(self, text: Any, *args: Any, **kwargs: Any) -> Any:
            return super().analyze(_scrubbed(text), *args, **kwargs)

        def split_into_sents(self, text: Any, *args: Any, **kwargs: Any) -> Any:
            return super().split_into_sents(_scrubbed(text), *args, **kwargs)

        def space(self, text: Any, *args: Any, **kwargs: Any) -> Any:
            return super().space(_scrubbed(text), *args, **kwargs)

    return GuardedKiwi()


def get_kiwi() -> Kiwi:
    """The process-wide analyser (a ``kiwipiepy.Kiwi``), built on first use (thread-safe)."""
    global _kiwi
    if _kiwi is None:
        with _lock:
            if _kiwi is None:
                _kiwi = _guarded_kiwi()
    return _kiwi


@dataclass(frozen=True, slots=True)
class Morph:
    """A morpheme, its Sejong tag without Kiwi's irregular-verb suffix (VV-R -> VV), and its span."""

    form: str
    tag: str
    start: int
    end: int


@lru_cache(maxsize=2048)
def tokenize(text: str) -> tuple[Morph, ...]:
    """Morphemes of ``text`` with spans into it; cached because several readers look at one utterance."""
    if not text.strip():
        return ()
    return tuple(
        Morph(t.form, t.tag.split("-")[0], t.start, t.start + t.len) for t in get_kiwi().tokenize(text)
    )


_CLAUSE_EC = frozenset({"고", "는데", "은데", "ᆫ데", "지만", "으나", "며", "으며", "면서", "으면서", "고요"})


def split_clauses(text: str) -> list[tuple[int, int]]:
    """Spans of the clauses of ``text``: "알림은 받고, 출금 알림은 안 받을래요" has two.

    A yes/no belongs to the verb of its own clause. Clauses end at punctuation, at a sentence
    ending, and at connective endings (-고, -는데, -지만, -며); a conjunctive adverb starts one.
    """
    cuts = {0, len(text)}
    for m in tokenize(text):
        if m.tag in ("SF", "SP") or m.tag == "EF" or (m.tag == "EC" and m.form in _CLAUSE_EC):
            cuts.add(m.end)
        elif m.tag == "MAJ":
            cuts.add(m.start)
    bounds = sorted(c for c in cuts if 0 <= c <= len(text))
    spans = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        if text[start:end].strip(" ,.!?~"):
            spans.append((start, end))
    return spans
