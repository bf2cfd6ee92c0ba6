"""Test support: deterministic chat models and the guard against real model requests.

    from graphagents.testing import FunctionChatModel, ScriptedChatModel, forbid_model_requests

    forbid_model_requests()            # in conftest.py: any real provider request now raises
    model = ScriptedChatModel(responses=["...", GARBAGE, RuntimeError("provider down")])
    model = FunctionChatModel(function=lambda messages: reply_for(messages[-1].content))

Both record the prompts they saw (``prompts``, ``prompt_texts``) and put ``usage_metadata`` on
every reply, so token accounting is testable.
"""

from ..llm.factory import override_allow_model_requests
from ..llm.scripted import GARBAGE, RecordingChatModel, ScriptedChatModel, ScriptExhaustedError, scripted
from .guard import check_model_request, forbid_model_requests, is_test_model
from .models import FunctionChatModel

__all__ = [
    "GARBAGE",
    "FunctionChatModel",
    "RecordingChatModel",
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "check_model_request",
    "forbid_model_requests",
    "is_test_model",
    "override_allow_model_requests",
    "scripted",
]
