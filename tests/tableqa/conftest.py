"""The tableqa tests share one sandbox pool (workers start once per test run)."""

from __future__ import annotations
