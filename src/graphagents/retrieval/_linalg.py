"""Matrix-vector products on one BLAS thread.

Scoring a query against stored vectors is one matrix-vector product: memory-bound work that a second
BLAS thread barely speeds up. On a busy machine it slows it down badly: OpenBLAS splits the product
and waits for its second thread to be scheduled, so a 2,000 x 512 product measured 20 ms instead of
0.4 ms on our 2-core machines under load, and the p95 of every search followed. We therefore limit
BLAS to one thread for these products (``threadpoolctl``), under a lock so that concurrent searches
cannot interleave their limit and restore; large matrix-matrix work elsewhere (the encoder) keeps
its threads.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

_lock = threading.Lock()
_controller: Any = None


def matvec(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``matrix @ vector`` computed on one BLAS thread."""
    global _controller
    with _lock:
        if _controller is None:
            from threadpoolctl import ThreadpoolController

            _controller = ThreadpoolController()
        with _controller.limit(limits=1, user_api="blas"):
            return np.asarray(matrix @ vector)


__all__ = ["matvec"]
