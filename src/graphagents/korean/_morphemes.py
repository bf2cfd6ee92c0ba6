"""Content morphemes for indexing: what BM25 should count in Korean and mixed text.

Korean glues particles and endings to words ("타이레놀을", "먹어도"), so counting whitespace words
splits one word into many forms. Indexing nouns, numbers, foreign words and verb/adjective stems
makes "타이레놀을 먹어도 되나요" and "타이레놀 복용" share 타이레놀 and "먹어도"/"먹고" share 먹.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ._analyser import get_kiwi, tokenize
from ._text import normalize

__all__ = ["morphemes", "search_terms"]

_CONTENT_TAGS = frozenset({"NNG", "NNP", "NR", "NP", "SN", "SL", "SH", "XR", "VV", "VA"})
# Light verbs and the copula carry no topic: 하다, 되다, 있다, 이다, 아니다, 같다.
_LIGHT = frozenset({("하", "VV"), ("되", "VV"), ("있", "VA"), ("있", "VV"), ("이", "VCP"), ("같", "VA"),
                    ("아니", "VCN"), ("보", "VV"), ("주", "VV")})


def morphemes(text: str) -> list[str]:
    """Content morphemes of ``text`` in order, repeats kept (term frequency matters): nouns,
    numerals, numbers, verb and adjective stems, and foreign words lower-cased as they are.

    >>> morphemes("타이레놀 500mg을 하루에 두 번 먹어도 되나요?")
    ['타이레놀', '500', 'mg', '하루', '먹']
    """
    out = []
    for m in tokenize(normalize(text)):
        if m.tag not in _CONTENT_TAGS or (m.form, m.tag) in _LIGHT:
            continue
        out.append(m.form.lower() if m.tag == "SL" else m.form)
    return out


# --- search terms (BM25 in graphagents.retrieval, the pgvector tsvector) -------------------------------

_HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
_LATIN_WORD = re.compile(r"[a-z0-9]+")
# Kiwi tags kept as terms: common/proper/numeral nouns, roots, verb and adjective stems (incl. the
# irregular "-I" variants), Hanja; SL/SN/SH/W_* (foreign, numbers, URLs) go through the Latin rule.
_KIWI_CONTENT = ("NNG", "NNP", "NR", "XR", "VV", "VA", "SH")
_KIWI_LATIN = ("SL", "SN", "W_")


@lru_cache(maxsize=1)
def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


def _latin_terms(text: str) -> list[str]:
    stop = _stopwords()
    return [w for w in _LATIN_WORD.findall(text.lower()) if w not in stop and (len(w) > 1 or w.isdigit())]


def search_terms(text: str) -> list[str]:
    """Index terms of ``text`` for lexical search (with repeats: BM25 counts them).

    Korean goes through Kiwi and keeps content morphemes (nouns, roots, verb and adjective stems,
    numerals), so "당뇨병이" and "당뇨병은" are one term; everything that is not Hangul is lower-cased
    words split on non-alphanumerics, and the same rule applies to the non-Hangul tokens Kiwi returns,
    so an English word gets one term whether it came from an English passage or a Korean question
    ("Metformin의 부작용" -> ``metformin``, ``부작용``). English stop words are dropped. Unlike
    :func:`morphemes`, light verbs are kept: stored indexes depend on these exact terms.

    >>> search_terms("Metformin의 부작용은?")
    ['metformin', '부작용']
    """
    text = unicodedata.normalize("NFKC", text)
    if not _HANGUL.search(text):
        return _latin_terms(text)
    out: list[str] = []
    for token in get_kiwi().tokenize(text):
        tag = token.tag
        if tag.startswith(_KIWI_LATIN):
            out.extend(_latin_terms(token.form))
        elif tag.startswith(_KIWI_CONTENT):
            out.append(token.form.lower())
    return out
