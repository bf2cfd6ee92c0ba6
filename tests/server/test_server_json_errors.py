"""Bad JSON over HTTP: the 422 says what is wrong and where (issue 9), in one line."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from graphagents.server import create_app
from graphagents.server.errors import describe_json_error
from graphagents.settings import get_settings


@pytest.fixture
async def client(example_spec: Any) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(get_settings()))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'{"text": "hi",}', "invalid JSON at line 1, column 15: Expecting property name enclosed in double quotes"),
        (b'{\n  "text": "hi"\n  "x": 1\n}', "invalid JSON at line 3, column 3: Expecting ',' delimiter"),
        (b"{not json", "invalid JSON at line 1, column 2: Expecting property name enclosed in double quotes"),
        ('{"text": "안녕하세요" oops}'.encode(), "invalid JSON at line 1, column 18: Expecting ',' delimiter"),
    ],
)
async def test_bad_json_names_line_column_and_reason(client: httpx.AsyncClient, body: bytes, expected: str) -> None:
    res = await client.post("/api/agents/example/sessions", json={})
    url = f"/api/agents/example/sessions/{res.json()['session_id']}/messages"
    bad = await client.post(url, content=body, headers={"content-type": "application/json"})
    assert bad.status_code == 422
    assert bad.json()["error"] == expected
    created = await client.post("/api/agents/example/sessions", content=body,
                                headers={"content-type": "application/json"})
    assert created.status_code == 422 and created.json()["error"] == expected


async def test_other_validation_errors_keep_their_field_and_reason(client: httpx.AsyncClient) -> None:
    res = await client.post("/api/agents/example/sessions", json={"bogus": 1})
    assert res.status_code == 422 and res.json()["error"].startswith("bogus: ")


def test_the_formatter_without_a_body() -> None:
    error = {"type": "json_invalid", "loc": ("body", 3), "ctx": {"error": "Expecting value"}}
    assert describe_json_error(error, None) == "invalid JSON in the request body: Expecting value"
    assert describe_json_error(error, "   ") == "the request body is empty: send a JSON object"
    assert describe_json_error(error, "a\nbc") == "invalid JSON at line 2, column 2: Expecting value"
