"""Offline natural-language -> SQL composer (Korean and English, no model).

When no LLM is configured the text2sql agent asks :func:`compose` for the SQL its tools then
explain, preview and submit under the same policy as model-written SQL.
"""

from __future__ import annotations

from .compose import compose
from .result import ComposeContext, ComposeResult, ValueLink

__all__ = ["ComposeContext", "ComposeResult", "ValueLink", "compose"]
