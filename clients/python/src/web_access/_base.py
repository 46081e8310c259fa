"""
The hand-kept core every generated method goes through: building a request from an operation
of the OpenAPI document, sending it with the retry policy (_retries.py) and a timeout per
attempt, and turning the answer into a model, a page, a stream or an error.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
import uuid
from collections.abc import Mapping
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
import pydantic

from . import _retries
from ._auth import Auth
from ._errors import APIConnectionError, APITimeoutError, error_from_response
from ._operation import CallOptions, Operation, parse_model
from ._pagination import AsyncPage, AsyncPager, SyncPage
from ._streaming import AsyncStream, Stream
from ._version import __version__

T = TypeVar("T")

DEFAULT_TIMEOUT_SECONDS = 120.0
DEFAULT_MAX_RETRIES = 2


class RawResponse(Generic[T]):
    """The HTTP answer itself (status, headers, request id), asked for with `client.with_raw_response`."""

    def __init__(self, http_response: httpx.Response, parse: Any) -> None:
        self.http_response = http_response
        self._parse = parse

    @property
    def status_code(self) -> int:
        return self.http_response.status_code

    @property
    def headers(self) -> httpx.Headers:
        return self.http_response.headers

    @property
    def request_id(self) -> str | None:
        return self.http_response.headers.get("x-request-id")

    def parse(self) -> T:
        """What the method returns without `with_raw_response`."""
        return self._parse()

    def __repr__(self) -> str:
        return f"<RawResponse {self.http_response.request.method} {self.http_response.request.url.path} {self.status_code}>"


def serialize(value: Any) -> Any:
    """A value as JSON: models by their API names, datetimes as ISO 8601 (a naive one taken as UTC)."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, Mapping):
        return {k: serialize(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [serialize(v) for v in value]
    if isinstance(value, dt.datetime):
        return (value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)).isoformat()
    return value


def query_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime):
        return serialize(value)
    return value


class BaseClient:
    """What the sync and async clients share: configuration, requests and answers."""

    def __init__(
        self,
        *,
        auth: Auth,
        base_url: str,
        timeout_seconds: float,
        max_retries: int,
        default_headers: Mapping[str, str] | None,
    ) -> None:
        if timeout_seconds is not None and timeout_seconds <= 0:
            raise ValueError("timeout_seconds must be a positive number of seconds")
        if max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        self._auth = auth
        self.base_url = base_url
        self.timeout_seconds = timeout_seconds
        self.max_retries = max_retries
        self.default_headers = dict(default_headers or {})
        self._raw = False

    @property
    def credential_source(self) -> str:
        """Where the credential came from: `option`, `env` (SERVICE_API_KEY) or `login` (the CLI's)."""
        return self._auth.source

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r})"

    def _build(
        self,
        op: Operation,
        path: Mapping[str, Any],
        query: Mapping[str, Any],
        body: Any,
        options: CallOptions,
        bearer: str,
    ):
        url = self.base_url + op.path.format(**{k: quote(str(v), safe="") for k, v in path.items()})
        params = {k: query_value(v) for k, v in {**query, **(options.extra_query or {})}.items() if v is not None}
        headers = {
            "Authorization": f"Bearer {bearer}",
            "User-Agent": f"web-access-sdk-python/{__version__}",
            "Accept": {"ndjson": "application/x-ndjson", "sse": "text/event-stream"}.get(op.kind, "application/json"),
            **self.default_headers,
        }
        if op.method == "POST":
            # Made once per call: every attempt of this call carries the same key.
            headers["Idempotency-Key"] = options.idempotency_key or f"sdk-{uuid.uuid4()}"
        headers.update(options.extra_headers or {})
        json_body = None
        if body is not None or options.extra_body:
            json_body = {**serialize(body or {}), **serialize(options.extra_body or {})}
        timeout = options.timeout_seconds or self.timeout_seconds
        deadline = json_body.get("timeout") if isinstance(json_body, dict) else None
        if options.timeout_seconds is None and isinstance(deadline, (int, float)) and not isinstance(deadline, bool):
            # The body's own `timeout` is the server's deadline in milliseconds (scrape, search): the
            # attempt waits for it and 10 s more, as the answer to a deadline takes that long to come.
            timeout = deadline / 1000 + 10
        return op.method, url, params, headers, json_body, timeout

    def _result(self, op: Operation, response: httpx.Response, done: Any) -> Any:
        if self._raw:
            return RawResponse(response, done)
        return done()


class _Attempts:
    """
    The attempts of one call: the same request each time (the same `Idempotency-Key`), and
    after each failure either the wait before the next attempt or the error to raise.
    """

    def __init__(self, client: BaseClient, op: Operation, built: tuple) -> None:
        self.method, self.url, self.params, self.headers, self.json, self.timeout = built
        self.op = op
        self.max_retries = client.max_retries
        self.repeatable = _retries.may_repeat(self.method, {k.lower(): v for k, v in self.headers.items()})
        self.retries = 0

    def request(self, http: httpx.Client | httpx.AsyncClient) -> httpx.Request:
        return http.build_request(
            self.method,
            self.url,
            params=self.params,
            headers=self.headers,
            json=self.json,
            timeout=httpx.Timeout(self.timeout),
        )

    def succeeded(self, response: httpx.Response, stream: bool) -> bool:
        """Whether the answer is a success (a redirect is, for a redirecting operation)."""
        status = response.status_code
        if not (status < 300 or (self.op.kind == "empty" and status < 400)):
            return False
        if stream:
            _no_idle_limit(response)
        return True

    def after_failure(self, err: httpx.TransportError, request: httpx.Request) -> float:
        """No answer came: the wait before trying again, or the error."""
        if self.repeatable and self.retries < self.max_retries:
            self.retries += 1
            return _retries.delay_seconds(self.retries - 1) or 0.0
        if isinstance(err, httpx.TimeoutException):
            raise APITimeoutError(request=request, timeout_seconds=self.timeout) from err
        raise APIConnectionError(str(err) or type(err).__name__, request=request) from err

    def after_refusal(self, response: httpx.Response) -> float:
        """An error status (its body read): the wait before trying again, or the error."""
        if self.retries < self.max_retries and _retries.retryable_status(response.status_code, self.repeatable):
            wait = _retries.delay_seconds(self.retries, response.headers)
            if wait is not None:
                self.retries += 1
                return wait
        raise error_from_response(response)


class SyncCore(BaseClient):
    _http: httpx.Client

    def _send(self, op: Operation, path, query, body, options: CallOptions, stream: bool = False) -> httpx.Response:
        call = _Attempts(self, op, self._build(op, path, query, body, options, self._auth.bearer(self._http)))
        while True:
            request = call.request(self._http)
            try:
                response = self._http.send(request, stream=stream)
            except httpx.TransportError as err:
                time.sleep(call.after_failure(err, request))
                continue
            if call.succeeded(response, stream):
                return response
            response.read()
            response.close()
            time.sleep(call.after_refusal(response))

    def _request(self, op: Operation, *, path=None, query=None, body=None, options: CallOptions) -> Any:
        path, query = path or {}, query or {}
        if op.kind in ("ndjson", "sse"):
            response = self._send(op, path, query, body, options, stream=True)
            return self._result(op, response, lambda: Stream(op, response))
        response = self._send(op, path, query, body, options)
        if op.kind == "empty":
            return RawResponse(response, lambda: None)
        if op.page:
            return self._result(op, response, lambda: SyncPage(self, op, path, query, body, options, response.json()))
        return self._result(op, response, lambda: parse_model(op.model, response.json()))


class AsyncCore(BaseClient):
    _http: httpx.AsyncClient

    async def _send(self, op: Operation, path, query, body, options: CallOptions, stream: bool = False):
        # A stored login may refresh its token over the network: not on the event loop.
        bearer = self._auth.bearer() if self._auth.store is None else await asyncio.to_thread(self._auth.bearer)
        call = _Attempts(self, op, self._build(op, path, query, body, options, bearer))
        while True:
            request = call.request(self._http)
            try:
                response = await self._http.send(request, stream=stream)
            except httpx.TransportError as err:
                await asyncio.sleep(call.after_failure(err, request))
                continue
            if call.succeeded(response, stream):
                return response
            await response.aread()
            await response.aclose()
            await asyncio.sleep(call.after_refusal(response))

    async def _request(self, op: Operation, *, path=None, query=None, body=None, options: CallOptions) -> Any:
        path, query = path or {}, query or {}
        if op.kind in ("ndjson", "sse"):
            response = await self._send(op, path, query, body, options, stream=True)
            return self._result(op, response, lambda: AsyncStream(op, response))
        response = await self._send(op, path, query, body, options)
        if op.kind == "empty":
            return RawResponse(response, lambda: None)
        if op.page:
            return self._result(op, response, lambda: AsyncPage(self, op, path, query, body, options, response.json()))
        return self._result(op, response, lambda: parse_model(op.model, response.json()))

    def _paged(self, op: Operation, *, path=None, query=None, body=None, options: CallOptions):
        return AsyncPager(self._request(op, path=path, query=query, body=body, options=options))


def _no_idle_limit(response: httpx.Response) -> None:
    """
    A stream's attempt timeout covers connecting and the answer's headers; its body may then be
    quiet for as long as the stream is open (a followed log waits for new requests), so reading
    it has no idle limit. The caller ends it by closing the stream or leaving its loop.
    """
    timeout = response.request.extensions.get("timeout")
    if isinstance(timeout, dict):
        timeout["read"] = None
