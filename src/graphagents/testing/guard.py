"""The no-real-model guard, checked when a request is made (not only when a model is built).

``load_chat_model`` already refuses to build a provider's model while requests are disabled, but a
model built by hand (``ga.load("text2sql", llm=ChatOpenAI())``) never passes through it. So
:func:`forbid_model_requests` wraps the request methods of LangChain's ``BaseChatModel`` (``generate``
/ ``agenerate``, behind ``invoke``, ``ainvoke`` and ``batch``; ``stream`` / ``astream``; and the
event-stream entry points): a request from any model that is not one of our test models, or one of
LangChain's fakes, raises :class:`ModelRequestsBlocked` before the provider's code runs. The flag is
read at request time, so ``override_allow_model_requests(True)`` lets a test opt in.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from langchain_core.language_models import BaseChatModel

from ..errors import ModelRequestsBlocked
from ..llm import factory
from ..llm.scripted import RecordingChatModel

_FAKE_MODULES = ("langchain_core.language_models.fake",)
_REQUEST_METHODS = ("generate", "agenerate", "stream", "astream", "_chat_model_stream_v3", "_achat_model_stream_v3")
_installed = False


def is_test_model(model: BaseChatModel) -> bool:
    return isinstance(model, RecordingChatModel) or type(model).__module__.startswith(_FAKE_MODULES)


def check_model_request(model: BaseChatModel) -> None:
    if not factory.ALLOW_MODEL_REQUESTS and not is_test_model(model):
        raise ModelRequestsBlocked(
            f"a real model request ({type(model).__name__}) was blocked: model requests are disabled here "
            "(tests); use graphagents.testing.ScriptedChatModel or FunctionChatModel"
        )


def _guarded(method: Any) -> Any:
    if inspect.iscoroutinefunction(method):

        @functools.wraps(method)
        async def guarded_async(self: BaseChatModel, *args: Any, **kwargs: Any) -> Any:
            check_model_request(self)
            return await method(self, *args, **kwargs)

        return guarded_async

    @functools.wraps(method)
    def guarded(self: BaseChatModel, *args: Any, **kwargs: Any) -> Any:
        check_model_request(self)  # before the (async) generator exists: the call itself fails
        return method(self, *args, **kwargs)

    return guarded


def forbid_model_requests() -> None:
    """Disable real model requests for this process (idempotent); the test suite calls it."""
    global _installed
    factory.ALLOW_MODEL_REQUESTS = False
    if _installed:
        return
    for name in _REQUEST_METHODS:
        method = getattr(BaseChatModel, name, None)
        if method is not None:
            setattr(BaseChatModel, name, _guarded(method))
    _installed = True


__all__ = ["check_model_request", "forbid_model_requests", "is_test_model"]
