"""Where the public evaluation data lives: ``shared/`` beside the repository, never inside it.

The datasets (``shared/datasets/...``) are read in place, never copied into the package. They are
found, in order, under ``$GRAPHAGENTS_SHARED_DIR``, then in the nearest ancestor of ``start`` (the
caller's file), of this package and of the working directory that has a ``shared/`` folder
holding the path.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["ENV_VAR", "find_shared"]

ENV_VAR = "GRAPHAGENTS_SHARED_DIR"


def _candidates(relative: str, start: Path | None) -> Iterator[Path]:
    root = os.environ.get(ENV_VAR)
    if root:
        yield Path(root).expanduser() / relative
    starts = [p for p in (start, Path(__file__), Path.cwd()) if p is not None]
    for begin in starts:
        here = begin.resolve()
        for parent in [here, *here.parents]:
            yield parent / "shared" / relative


def find_shared(relative: str, start: Path | None = None) -> Path | None:
    """``shared/<relative>`` (a file or a folder) from the first place that has it, else None."""
    for candidate in _candidates(relative, start):
        if candidate.exists():
            return candidate
    return None
