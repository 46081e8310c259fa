"""The clients: `WebAccess` (blocking) and `AsyncWebAccess` (asyncio), both on httpx."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import httpx

from ._auth import Auth, _origin, resolve_auth, resolve_base_url
from ._base import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_SECONDS, AsyncCore, SyncCore
from ._generated.operations import GROUPS, AsyncGroups, SyncGroups
from ._login import LoginStore

C = TypeVar("C", bound="_Options")


class _Options:
    """`with_options` and `with_raw_response`, shared by both clients."""

    _http: Any
    _owns_http: bool
    _raw: bool

    def _copy(self: C, **changes: Any) -> C:
        clone = object.__new__(type(self))
        # The operation groups are bound to their client: the copy makes its own.
        clone.__dict__.update({k: v for k, v in self.__dict__.items() if k not in GROUPS})
        clone.__dict__.update(changes)
        clone._owns_http = False
        return clone

    def with_options(
        self: C,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout_seconds: float | None = None,
        max_retries: int | None = None,
        default_headers: Mapping[str, str] | None = None,
    ) -> C:
        """A client like this one with some settings changed, sharing its connections."""
        changes: dict[str, Any] = {}
        if api_key and api_key.strip():
            changes["_auth"] = Auth("option", api_key.strip())
        if base_url:
            if "_auth" not in changes and self._auth.source == "login" and _origin(base_url) != _origin(self.base_url):  # type: ignore[attr-defined]
                raise ValueError("a stored login's token goes only to the deployment it signed in to: pass api_key too")
            changes["base_url"] = base_url.rstrip("/")
        if timeout_seconds is not None:
            if timeout_seconds <= 0:
                raise ValueError("timeout_seconds must be a positive number of seconds")
            changes["timeout_seconds"] = timeout_seconds
        if max_retries is not None:
            if max_retries < 0:
                raise ValueError("max_retries must be 0 or more")
            changes["max_retries"] = max_retries
        if default_headers:
            changes["default_headers"] = {**self.default_headers, **default_headers}  # type: ignore[attr-defined]
        return self._copy(**changes)

    @property
    def with_raw_response(self: C) -> C:
        """
        A view of this client whose methods answer a RawResponse (status, headers, request id)
        instead of the parsed object; `.parse()` gives the object.
        """
        return self._copy(_raw=True)


class WebAccess(SyncGroups, _Options, SyncCore):
    """
    A blocking client of the REST API: `client.crawl.start(url=...)`, `client.sessions.list()`.

    The credential: `api_key`, else SERVICE_API_KEY, else the CLI's stored login (`login=False`
    never reads one); with none, TypeError. The deployment: `base_url`, else SERVICE_BASE_URL,
    else the login's, else http://localhost:8080. `timeout_seconds` (default 120) bounds each
    attempt of a request, in seconds; `max_retries` (default 2) is how many more attempts a
    failed request that may be repeated gets (see _retries.py).
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
        max_retries: int = DEFAULT_MAX_RETRIES,
        default_headers: Mapping[str, str] | None = None,
        http_client: httpx.Client | None = None,
        login: LoginStore | bool | None = None,
    ) -> None:
        auth = resolve_auth(api_key, base_url, login)
        super().__init__(
            auth=auth,
            base_url=resolve_base_url(base_url, auth),
            timeout_seconds=timeout_seconds,
            max_retries=max_retries,
            default_headers=default_headers,
        )
        self._http = http_client or httpx.Client(follow_redirects=False)
        self._owns_http = http_client is None

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> WebAccess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncWebAccess(AsyncGroups, _Options, AsyncCore):
    """The asyncio client: the same methods as WebAccess, awaited; lists and streams with `async for`."""

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
        max_retries: int = DEFAULT_MAX_RETRIES,
        default_headers: Mapping[str, str] | None = None,
        http_client: httpx.AsyncClient | None = None,
        login: LoginStore | bool | None = None,
    ) -> None:
        auth = resolve_auth(api_key, base_url, login)
        super().__init__(
            auth=auth,
            base_url=resolve_base_url(base_url, auth),
            timeout_seconds=timeout_seconds,
            max_retries=max_retries,
            default_headers=default_headers,
        )
        self._http = http_client or httpx.AsyncClient(follow_redirects=False)
        self._owns_http = http_client is None

    async def close(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncWebAccess:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
