"""Korean morphology shared by every agent: one Kiwi analyser per process.

Building ``Kiwi()`` loads its model (a second or more and tens of MB), so agents that analyse
Korean share this instance instead of each keeping their own.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kiwipiepy import Kiwi

_kiwi: Kiwi | None = None
_lock = threading.Lock()


def get_kiwi() -> Kiwi:
    """The process-wide analyser, built on first use (thread-safe)."""
    global _kiwi
    if _kiwi is None:
        with _lock:
            if _kiwi is None:
                from kiwipiepy import Kiwi

                _kiwi = Kiwi()
    return _kiwi
