from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from web_access import AsyncWebAccess, WebAccess

BASE = "http://api.test"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """No credential from the machine running the tests; the CLI's config folder is a fresh one."""
    monkeypatch.delenv("SERVICE_API_KEY", raising=False)
    monkeypatch.delenv("SERVICE_BASE_URL", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The waits the client would make between attempts, recorded instead of slept."""
    waits: list[float] = []
    monkeypatch.setattr("web_access._base.time.sleep", waits.append)

    async def fake_async_sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr("web_access._base.asyncio.sleep", fake_async_sleep)
    return waits


def answer(status: int = 200, body: Any = None, headers: dict[str, str] | None = None) -> httpx.Response:
    content = b"" if body is None else json.dumps(body).encode()
    return httpx.Response(status, content=content, headers={"content-type": "application/json", **(headers or {})})


def error(status: int, code: str, details: dict | None = None, headers: dict[str, str] | None = None) -> httpx.Response:
    body: dict[str, Any] = {"code": code, "message": f"the {code} message"}
    if details:
        body["details"] = details
    return answer(status, body, {"x-request-id": "req_123", **(headers or {})})


def sync_client(handler: Callable[[httpx.Request], httpx.Response], **kwargs: Any) -> WebAccess:
    kwargs.setdefault("api_key", "ock_test.secret")
    return WebAccess(base_url=BASE, http_client=httpx.Client(transport=httpx.MockTransport(handler)), **kwargs)


def async_client(handler: Callable[[httpx.Request], httpx.Response], **kwargs: Any) -> AsyncWebAccess:
    kwargs.setdefault("api_key", "ock_test.secret")
    return AsyncWebAccess(
        base_url=BASE, http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)), **kwargs
    )
