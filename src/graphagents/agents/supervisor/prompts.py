"""The supervisor's prompt templates (``prompts/*.md``, ``{{name}}`` placeholders)."""

from __future__ import annotations

from graphagents.prompts import PromptSet

PROMPTS = PromptSet("graphagents.agents.supervisor", "prompts")
