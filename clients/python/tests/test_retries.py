"""The retry policy: what is tried again, with which key, after how long."""

from __future__ import annotations

import random

import httpx
import pytest
from conftest import answer, async_client, error, sync_client

from web_access import APIConnectionError, BadRequestError, InternalServerError, RateLimitError, _retries
from web_access._base import CallOptions
from web_access._generated.operations import OPERATIONS

CREDITS = {"granted": 1, "spent": 0, "remaining": 1, "grants": [], "held": 0, "available": 1, "allowance": None}
SCRAPE = {"success": True, "data": {"markdown": "# hi"}, "usage": {"credits": 1, "meters": {"page_load": 1}}}


def sequence(*responses):
    """A transport that answers these in turn (an exception is raised instead), recording each request."""
    seen: list[httpx.Request] = []
    queue = list(responses)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        item = queue.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    return handler, seen


def test_a_get_is_retried_on_5xx_408_429_and_connection_errors(no_sleep):
    handler, seen = sequence(error(503, "capability_unavailable"), httpx.ConnectError("refused"), answer(200, CREDITS))
    assert sync_client(handler).credits.get().available == 1
    assert len(seen) == 3
    handler, seen = sequence(error(408, "deadline_exceeded"), answer(200, CREDITS))
    sync_client(handler).credits.get()
    assert len(seen) == 2


def test_two_retries_by_default_then_the_error(no_sleep):
    handler, seen = sequence(*[error(500, "internal") for _ in range(3)])
    with pytest.raises(InternalServerError) as raised:
        sync_client(handler).credits.get()
    assert len(seen) == 3 and raised.value.code == "internal"
    handler, seen = sequence(error(500, "internal"))
    with pytest.raises(InternalServerError):
        sync_client(handler, max_retries=0).credits.get()
    assert len(seen) == 1


def test_a_post_is_retried_with_the_same_idempotency_key(no_sleep):
    handler, seen = sequence(httpx.ReadError("reset"), error(502, "internal"), answer(200, SCRAPE))
    result = sync_client(handler).scrape.start(url="https://example.com")
    assert result.data.markdown == "# hi"
    keys = {r.headers["idempotency-key"] for r in seen}
    assert len(seen) == 3 and len(keys) == 1 and keys.pop().startswith("sdk-")
    handler, seen = sequence(answer(200, SCRAPE), answer(200, SCRAPE))
    client = sync_client(handler)
    client.scrape.start(url="https://example.com")
    client.scrape.start(url="https://example.com")
    assert seen[0].headers["idempotency-key"] != seen[1].headers["idempotency-key"], "a key per call, not per client"


def test_a_callers_idempotency_key_is_sent_as_given(no_sleep):
    handler, seen = sequence(error(503, "capability_unavailable"), answer(200, SCRAPE))
    sync_client(handler).scrape.start(url="https://example.com", idempotency_key="order-42")
    assert [r.headers["idempotency-key"] for r in seen] == ["order-42", "order-42"]


def test_what_may_be_repeated():
    assert _retries.may_repeat("POST", {"idempotency-key": "k"})
    assert all(_retries.may_repeat(m, {}) for m in ("GET", "HEAD"))
    assert not any(_retries.may_repeat(m, {}) for m in ("POST", "PUT", "DELETE"))
    assert [s for s in (408, 429, 500, 502, 503) if _retries.retryable_status(s, repeatable=False)] == [429, 503]


def test_a_delete_is_retried_only_after_a_refusal(no_sleep):
    handler, seen = sequence(error(503, "capability_unavailable"), answer(200, {"success": True}))
    sync_client(handler).profiles.delete("pro_1")
    assert len(seen) == 2
    handler, seen = sequence(error(500, "internal"))
    with pytest.raises(InternalServerError):
        sync_client(handler).profiles.delete("pro_1")
    handler, seen = sequence(httpx.ReadError("reset"))
    with pytest.raises(APIConnectionError):
        sync_client(handler).profiles.delete("pro_1")
    assert len(seen) == 1, "the first delete may have been done: not sent again"


def test_client_errors_are_not_retried(no_sleep):
    handler, seen = sequence(error(400, "bad_request", {"issues": [{"path": "body.url"}]}))
    with pytest.raises(BadRequestError) as raised:
        sync_client(handler).scrape.start(url="nope")
    assert len(seen) == 1 and raised.value.details["issues"][0]["path"] == "body.url"


def test_retry_after_is_waited(no_sleep):
    handler, _ = sequence(error(429, "concurrency_limit", headers={"retry-after": "3"}), answer(200, CREDITS))
    sync_client(handler).credits.get()
    assert no_sleep == [3.0]


def test_a_retry_after_longer_than_a_minute_is_not_sat_through(no_sleep):
    handler, seen = sequence(error(429, "concurrency_limit", {"kind": "requests_per_minute"}, {"retry-after": "600"}))
    with pytest.raises(RateLimitError) as raised:
        sync_client(handler).credits.get()
    assert len(seen) == 1 and no_sleep == []
    assert raised.value.retry_after_seconds == 600 and raised.value.details["kind"] == "requests_per_minute"


def test_backoff_doubles_with_jitter_up_to_a_cap():
    rand = random.Random(7)
    for retries_done, base in [(0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (9, 8.0)]:
        delay = _retries.delay_seconds(retries_done, {}, rand)
        assert base * 0.75 <= delay <= base


def test_retry_after_forms():
    assert _retries.retry_after_seconds({"retry-after": "2"}) == 2
    assert _retries.retry_after_seconds({"retry-after-ms": "1500"}) == 1.5
    assert _retries.retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=1445412470) == 10
    assert _retries.retry_after_seconds({"retry-after": "soon"}) is None


def test_a_body_timeout_in_milliseconds_extends_the_attempt():
    client = sync_client(lambda r: answer())
    scrape, body = OPERATIONS["scrape"], {"url": "u", "timeout": 180000}
    assert client._build(scrape, {}, {}, body, CallOptions(), "tok")[-1] == 190
    assert client._build(scrape, {}, {}, body, CallOptions(timeout_seconds=3), "tok")[-1] == 3
    assert client._build(scrape, {}, {}, {"url": "u"}, CallOptions(), "tok")[-1] == 120


def test_connection_errors_after_the_retries(no_sleep):
    handler, seen = sequence(*[httpx.ConnectError("refused") for _ in range(3)])
    with pytest.raises(APIConnectionError):
        sync_client(handler).credits.get()
    assert len(seen) == 3


async def test_the_async_client_retries_the_same_way(no_sleep):
    handler, seen = sequence(error(503, "capability_unavailable", headers={"retry-after": "1"}), answer(200, SCRAPE))
    result = await async_client(handler).scrape.start(url="https://example.com")
    assert result.usage.credits == 1
    assert len({r.headers["idempotency-key"] for r in seen}) == 1 and len(seen) == 2 and no_sleep == [1.0]
