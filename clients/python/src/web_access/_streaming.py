"""
Streamed answers: newline-delimited JSON and Server-Sent Events, one parsed item at a time.
A stream that the server ends with an Error object (`{"error": {...}}` as its last line, or an
`error` event) raises that error's class, as the same failure would have been raised as a status.
Close a stream (or use it in a `with` block) to stop reading early.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any, Generic, TypeVar

import httpx

from ._errors import error_for
from ._generated.models import CODE_STATUS
from ._operation import Operation, parse_model

T = TypeVar("T")


class _Lines:
    """Turns an answer's lines into its items: one per NDJSON line, or per server-sent event's `data`."""

    def __init__(self, op: Operation, response: httpx.Response) -> None:
        self.op = op
        self.response = response
        self.data: list[str] = []  # the `data` lines of the event being read

    def feed(self, line: str) -> list[Any]:
        if self.op.kind != "sse":
            return [self._item(json.loads(line))] if line.strip() else []
        if line == "":  # an event ends; `event`, `id` and `retry` fields need no handling here
            payload, self.data = "\n".join(self.data), []
            return [self._item(json.loads(payload))] if payload else []
        field, _, value = line.partition(":")
        if field == "data":
            self.data.append(value[1:] if value.startswith(" ") else value)
        return []

    def _item(self, payload: Any) -> Any:
        """An item; the Error object a stream ends with is raised as its status's class."""
        if isinstance(payload, dict) and set(payload) == {"error"} and isinstance(payload["error"], dict):
            error = payload["error"]
            status = CODE_STATUS.get(error.get("code"), 500)
            raise error_for(status, error, request_id=self.response.headers.get("x-request-id"), response=self.response)
        return parse_model(self.op.model, payload)


class Stream(Generic[T]):
    """A streamed answer: iterate it for parsed items; `with` closes it."""

    def __init__(self, op: Operation, response: httpx.Response) -> None:
        self._op = op
        self.response = response

    @property
    def request_id(self) -> str | None:
        return self.response.headers.get("x-request-id")

    def __iter__(self) -> Iterator[T]:
        lines = _Lines(self._op, self.response)
        try:
            for line in self.response.iter_lines():
                yield from lines.feed(line)
        finally:
            self.response.close()

    def close(self) -> None:
        self.response.close()

    def __enter__(self) -> Stream[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncStream(Generic[T]):
    """A streamed answer: `async for` over parsed items; `async with` closes it."""

    def __init__(self, op: Operation, response: httpx.Response) -> None:
        self._op = op
        self.response = response

    @property
    def request_id(self) -> str | None:
        return self.response.headers.get("x-request-id")

    async def __aiter__(self) -> AsyncIterator[T]:
        lines = _Lines(self._op, self.response)
        try:
            async for line in self.response.aiter_lines():
                for item in lines.feed(line):
                    yield item
        finally:
            await self.response.aclose()

    async def close(self) -> None:
        await self.response.aclose()

    async def __aenter__(self) -> AsyncStream[T]:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
