"""The rag agent's HTTP routes (``AgentSpec.routes``), under ``/api/agents/rag``: the signed-in user
sees and clears what the agent remembers.

``GET /api/agents/rag/profile`` -> ``{"user_id", "profile": {6 slots}, "summary", "updated_at"}``;
``DELETE /api/agents/rag/profile`` clears the profile and the user's cached answers and returns the
empty profile in the same shape (plus ``"deleted"``). Only the caller's own profile is reachable:
the user id comes from authentication, never from the request.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter

from graphagents.routes import AgentRoutes, AppSettings, CurrentUser

from .routes_data import clear_profile, profile_payload

__all__ = ["make_routes"]


def make_routes() -> AgentRoutes:
    router = APIRouter()

    @router.get("/profile", summary="The caller's rag health profile")
    async def get_profile(user_id: CurrentUser, settings: AppSettings) -> dict[str, Any]:
        return await asyncio.to_thread(profile_payload, user_id, settings)

    @router.delete("/profile", summary="Clear the caller's rag health profile and cached answers")
    async def delete_profile(user_id: CurrentUser, settings: AppSettings) -> dict[str, Any]:
        removed = await asyncio.to_thread(clear_profile, user_id, settings)
        return {**(await asyncio.to_thread(profile_payload, user_id, settings)), "deleted": removed}

    return AgentRoutes(router)
