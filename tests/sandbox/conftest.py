"""One sandbox pool for the sandbox tests (a worker start costs about a second)."""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest
from sandbox_helpers import FAST

from graphagents.sandbox import SandboxPool


@pytest.fixture(scope="session")
def pool() -> Iterator[SandboxPool]:
    pool = SandboxPool(size=1, limits=FAST)
    pool.warm()
    yield pool
    pool.close()


@pytest.fixture
def people() -> pd.DataFrame:
    return pd.DataFrame(
        {"name": ["Ann", "Bob", "Cid", "Dee"], "dept": ["x", "y", "x", "z"], "salary": [100, 250, 175, 90]}
    )
