"""
Waiting for jobs, kept by hand beside the generated operations: the tag classes `Crawl` and
`Agent` (and their async twins) take these as bases, so `client.crawl.wait(id)` sits beside
`client.crawl.get(id)`. The names and defaults are the TypeScript SDK's (src/helpers.ts).

Every wait and follow has an overall limit by default (`timeout_seconds`: 30 minutes for a
crawl, an hour for an agent run; None waits as long as the job runs), past which it raises
WaitTimeoutError carrying the last state read; the job itself goes on.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from ._errors import WaitTimeoutError

CRAWL_WAIT_SECONDS = 30 * 60.0
AGENT_WAIT_SECONDS = 60 * 60.0
POLL_INTERVAL_SECONDS = 2.0
LONG_POLL_SECONDS = 20  # an events request is held this long while nothing happens (the API allows 30)
EVENTS_PER_READ = 100


class _Deadline:
    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.at = None if seconds is None else time.monotonic() + seconds

    def passed(self) -> bool:
        return self.at is not None and time.monotonic() >= self.at

    def sleep_for(self, wanted: float) -> float:
        return wanted if self.at is None else max(min(wanted, self.at - time.monotonic()), 0.0)

    def hold(self) -> int:
        """Seconds a long poll may be held without passing the deadline."""
        if self.at is None:
            return LONG_POLL_SECONDS
        return int(max(min(LONG_POLL_SECONDS, self.at - time.monotonic()), 0))

    def error(self, what: str, last: Any) -> WaitTimeoutError:
        return WaitTimeoutError(f"{what} after {self.seconds} s", last=last, timeout_seconds=self.seconds)


def _question(state: Any, answered: str) -> str | None:
    """The question a paused run asks that was not answered yet (a run may ask the same words twice)."""
    run = state.run
    if run.status != "paused" or run.paused_for != "question" or not run.question:
        return None
    asked = f"{run.steps}\n{run.question}"
    return None if asked == answered else asked


class CrawlWatch:
    def wait(
        self,
        id: str,
        *,
        timeout_seconds: float | None = CRAWL_WAIT_SECONDS,
        poll_interval_seconds: float = POLL_INTERVAL_SECONDS,
        on_progress: Callable[[Any], object] | None = None,
    ) -> Any:
        """
        Reads `crawl.get` every `poll_interval_seconds` until the crawl is settled and answers
        its last state (`.crawl`: status, outcome, counts, usage); `on_progress` gets each state
        read. Raises WaitTimeoutError after `timeout_seconds` in all.
        """
        deadline = _Deadline(timeout_seconds)
        while True:
            state = self.get(id)  # type: ignore[attr-defined]
            if on_progress is not None:
                on_progress(state)
            if state.crawl.status == "settled":
                return state
            if deadline.passed():
                raise deadline.error(f"crawl {id} was still {state.crawl.status}", state)
            time.sleep(deadline.sleep_for(poll_interval_seconds))


class AgentWatch:
    def wait(
        self,
        id: str,
        *,
        timeout_seconds: float | None = AGENT_WAIT_SECONDS,
        poll_interval_seconds: float = POLL_INTERVAL_SECONDS,
        on_progress: Callable[[Any], object] | None = None,
        on_question: Callable[[str, Any], str | None] | None = None,
    ) -> Any:
        """
        Reads `agent.get` every `poll_interval_seconds` until the run is settled and answers it
        (`.run`: outcome, answer, usage). `on_progress` gets each state read; `on_question` is
        called when the run pauses with a question, and a string it returns is sent as the
        answer (`agent.answer`). Raises WaitTimeoutError after `timeout_seconds` in all.
        """
        deadline, answered = _Deadline(timeout_seconds), ""
        while True:
            state = self.get(id)  # type: ignore[attr-defined]
            if on_progress is not None:
                on_progress(state)
            if state.run.status == "settled":
                return state
            asked = _question(state, answered) if on_question is not None else None
            if asked is not None:
                reply = on_question(state.run.question, state)  # type: ignore[misc]
                if reply is not None:
                    answered = asked
                    self.answer(id, answer=reply)  # type: ignore[attr-defined]
                    continue
            if deadline.passed():
                raise deadline.error(f"run {id} was still {state.run.status}", state)
            time.sleep(deadline.sleep_for(poll_interval_seconds))

    def follow(
        self, id: str, *, level: str = "step", after: int = 0, timeout_seconds: float | None = AGENT_WAIT_SECONDS
    ) -> Iterator[Any]:
        """
        Every event of the run after `after`, as it happens, until the run is settled:
        `agent.events` as a long poll, so a quiet run costs a request every 20 s.
        """
        deadline = _Deadline(timeout_seconds)
        while True:
            hold = deadline.hold()
            page = self.events(  # type: ignore[attr-defined]
                id,
                level=level,
                after=after,
                wait=hold,
                limit=EVENTS_PER_READ,
                timeout_seconds=self._client.timeout_seconds + hold,  # type: ignore[attr-defined]
            )
            yield from page.events
            after = page.next
            if page.status == "settled" and len(page.events) < EVENTS_PER_READ:
                return
            if not page.events and deadline.passed():
                raise deadline.error(f"run {id} was still {page.status}", page)


class AsyncCrawlWatch:
    async def wait(
        self,
        id: str,
        *,
        timeout_seconds: float | None = CRAWL_WAIT_SECONDS,
        poll_interval_seconds: float = POLL_INTERVAL_SECONDS,
        on_progress: Callable[[Any], object] | None = None,
    ) -> Any:
        """As `WebAccess().crawl.wait`; `on_progress` may be a coroutine function."""
        deadline = _Deadline(timeout_seconds)
        while True:
            state = await self.get(id)  # type: ignore[attr-defined]
            if on_progress is not None:
                await _maybe_await(on_progress(state))
            if state.crawl.status == "settled":
                return state
            if deadline.passed():
                raise deadline.error(f"crawl {id} was still {state.crawl.status}", state)
            await asyncio.sleep(deadline.sleep_for(poll_interval_seconds))


class AsyncAgentWatch:
    async def wait(
        self,
        id: str,
        *,
        timeout_seconds: float | None = AGENT_WAIT_SECONDS,
        poll_interval_seconds: float = POLL_INTERVAL_SECONDS,
        on_progress: Callable[[Any], object] | None = None,
        on_question: Callable[[str, Any], object] | None = None,
    ) -> Any:
        """As `WebAccess().agent.wait`; the callbacks may be coroutine functions."""
        deadline, answered = _Deadline(timeout_seconds), ""
        while True:
            state = await self.get(id)  # type: ignore[attr-defined]
            if on_progress is not None:
                await _maybe_await(on_progress(state))
            if state.run.status == "settled":
                return state
            asked = _question(state, answered) if on_question is not None else None
            if asked is not None:
                reply = await _maybe_await(on_question(state.run.question, state))  # type: ignore[misc]
                if reply is not None:
                    answered = asked
                    await self.answer(id, answer=reply)  # type: ignore[attr-defined]
                    continue
            if deadline.passed():
                raise deadline.error(f"run {id} was still {state.run.status}", state)
            await asyncio.sleep(deadline.sleep_for(poll_interval_seconds))

    async def follow(
        self, id: str, *, level: str = "step", after: int = 0, timeout_seconds: float | None = AGENT_WAIT_SECONDS
    ) -> AsyncIterator[Any]:
        """As `WebAccess().agent.follow`."""
        deadline = _Deadline(timeout_seconds)
        while True:
            hold = deadline.hold()
            page = await self.events(  # type: ignore[attr-defined]
                id,
                level=level,
                after=after,
                wait=hold,
                limit=EVENTS_PER_READ,
                timeout_seconds=self._client.timeout_seconds + hold,  # type: ignore[attr-defined]
            )
            for event in page.events:
                yield event
            after = page.next
            if page.status == "settled" and len(page.events) < EVENTS_PER_READ:
                return
            if not page.events and deadline.passed():
                raise deadline.error(f"run {id} was still {page.status}", page)


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value
