"""The rag agent's prompts (package data under ``prompts/``, ``{{name}}`` placeholders)."""

from __future__ import annotations

from graphagents.prompts import PromptSet

PROMPTS = PromptSet("graphagents.agents.rag", "prompts")
