"""The rag agent's profile routes: the signed-in user sees and clears what the agent remembers.

``GET /api/rag/profile`` -> ``{"user_id", "profile": {6 slots}, "summary", "updated_at"}``;
``DELETE /api/rag/profile`` clears the profile and the user's cached answers and returns the empty
profile in the same shape (plus ``"deleted"``). Only the caller's own profile is reachable: the
user id comes from authentication, never from the request.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request

from .auth import CurrentUser, access_state

router = APIRouter()


def _settings(request: Request) -> Any:
    return access_state(request.app).settings


@router.get("/api/rag/profile", summary="The caller's rag health profile")
async def get_profile(request: Request, user_id: CurrentUser) -> dict[str, Any]:
    from graphagents.agents.rag.routes_data import profile_payload

    return await asyncio.to_thread(profile_payload, user_id, _settings(request))


@router.delete("/api/rag/profile", summary="Clear the caller's rag health profile and cached answers")
async def delete_profile(request: Request, user_id: CurrentUser) -> dict[str, Any]:
    from graphagents.agents.rag.routes_data import clear_profile, profile_payload

    settings = _settings(request)
    removed = await asyncio.to_thread(clear_profile, user_id, settings)
    return {**(await asyncio.to_thread(profile_payload, user_id, settings)), "deleted": removed}
