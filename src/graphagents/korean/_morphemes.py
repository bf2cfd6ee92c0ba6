"""Content morphemes for indexing: what BM25 should count in Korean and mixed text.

Korean glues particles and endings to words ("타이레놀을", "먹어도"), so counting whitespace words
splits one word into many forms. Indexing nouns, numbers, foreign words and verb/adjective stems
makes "타이레놀을 먹어도 되나요" and "타이레놀 복용" share 타이레놀 and "먹어도"/"먹고" share 먹.
"""

from __future__ import annotations

from ._analyser import tokenize
from ._text import normalize

__all__ = ["morphemes"]

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
