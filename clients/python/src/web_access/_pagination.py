"""
Cursor-paged lists (an operation with a `cursor` parameter whose answer has `nextCursor` and
one array). A list method answers its first page; iterating it (`for` / `async for`) yields
every item of every page, asking for the next page only when the items run out, until
`nextCursor` is null. A list still growing (a running crawl's results, a run's records)
answers empty pages with a cursor: the iterator waits (0.5 s, doubling to 5 s) and asks
again, so iterating `crawl.results` streams a crawl's pages until it settles.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Generator, Iterator
from typing import Any, Generic, TypeVar

from ._operation import CallOptions, Operation, parse_model

T = TypeVar("T")

FIRST_WAIT_SECONDS = 0.5
MAX_WAIT_SECONDS = 5.0


class _PageBase(Generic[T]):
    def __init__(self, client: Any, op: Operation, path, query, body, options: CallOptions, data: Any) -> None:
        self._client = client
        self._op = op
        self._path = path
        self._query = query
        self._body = body
        self._options = options
        self.response = parse_model(op.model, data)
        param, next_field, items_field = op.page  # type: ignore[misc]
        self._param = param
        self.items: list[T] = list(getattr(self.response, _attr(self.response, items_field), None) or [])
        self.next_cursor: Any = data.get(next_field)

    def __getattr__(self, name: str) -> Any:
        # The page's own answer: `page.status`, `page.next_cursor`...
        return getattr(self.__dict__["response"], name)

    def has_next_page(self) -> bool:
        return self.next_cursor is not None

    def _next_query(self) -> dict[str, Any]:
        return {**self._query, self._param: self.next_cursor}

    def __len__(self) -> int:
        return len(self.items)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._op.id}: {len(self.items)} items, next_cursor={self.next_cursor!r}>"


def _attr(model: Any, wire: str) -> str:
    """The Python name of an answer field given its API name."""
    for name, field in type(model).model_fields.items():
        if field.alias == wire or name == wire:
            return name
    return wire


def _longer(wait: float) -> float:
    return min(wait * 2, MAX_WAIT_SECONDS)


class SyncPage(_PageBase[T]):
    def next_page(self) -> SyncPage[T]:
        return self._client._request(
            self._op, path=self._path, query=self._next_query(), body=self._body, options=self._options
        )

    def iter_pages(self) -> Iterator[SyncPage[T]]:
        """This page and every one after it; an empty page with a cursor is asked again after a wait."""
        page: SyncPage[T] = self
        wait = FIRST_WAIT_SECONDS
        while True:
            yield page
            if not page.has_next_page():
                return
            if page.items:
                wait = FIRST_WAIT_SECONDS
            else:
                time.sleep(wait)
                wait = _longer(wait)
            page = page.next_page()

    def __iter__(self) -> Iterator[T]:  # type: ignore[override]
        for page in self.iter_pages():
            yield from page.items


class AsyncPage(_PageBase[T]):
    async def next_page(self) -> AsyncPage[T]:
        return await self._client._request(
            self._op, path=self._path, query=self._next_query(), body=self._body, options=self._options
        )

    async def iter_pages(self) -> AsyncIterator[AsyncPage[T]]:
        """As SyncPage.iter_pages."""
        page: AsyncPage[T] = self
        wait = FIRST_WAIT_SECONDS
        while True:
            yield page
            if not page.has_next_page():
                return
            if page.items:
                wait = FIRST_WAIT_SECONDS
            else:
                await asyncio.sleep(wait)
                wait = _longer(wait)
            page = await page.next_page()

    async def __aiter__(self) -> AsyncIterator[T]:
        async for page in self.iter_pages():
            for item in page.items:
                yield item


class AsyncPager(Generic[T]):
    """What an async list method returns: `await` it for the first page, or `async for` over every item."""

    def __init__(self, first: Awaitable[AsyncPage[T]]) -> None:
        self._first = first

    def __await__(self) -> Generator[Any, None, AsyncPage[T]]:
        return self._first.__await__()

    async def __aiter__(self) -> AsyncIterator[T]:
        page = await self._first
        async for item in page:
            yield item
