"""Cursor-paged lists as iterators, and NDJSON and SSE answers as streams."""

from __future__ import annotations

import json

import httpx
import pytest
from conftest import answer, async_client, sync_client

from web_access import PaymentRequiredError, UnprocessableEntityError


def session(i: int) -> dict:
    return {"id": f"ses_{i}", "status": "ended", "outcome": "closed", "task": {"kind": "connect"}}


def paged(pages: dict[str | None, tuple[list, str | None]], seen: list):
    def handler(request: httpx.Request) -> httpx.Response:
        cursor = request.url.params.get("cursor")
        seen.append(dict(request.url.params))
        items, next_cursor = pages[cursor]
        return answer(200, {"success": True, "sessions": items, "nextCursor": next_cursor})

    return handler


PAGES = {
    None: ([session(1), session(2)], "c2"),
    "c2": ([session(3)], "c3"),
    "c3": ([session(4)], None),
}


def test_iterating_a_list_reads_every_page_in_turn():
    seen: list = []
    page = sync_client(paged(PAGES, seen)).sessions.list(limit=2, status="ended")
    assert [s.id for s in page.items] == ["ses_1", "ses_2"] and page.next_cursor == "c2"
    assert len(seen) == 1, "the first page only, until iterated"
    assert [s.id for s in page] == ["ses_1", "ses_2", "ses_3", "ses_4"]
    assert seen[1:] == [
        {"limit": "2", "status": "ended", "cursor": "c2"},
        {"limit": "2", "status": "ended", "cursor": "c3"},
    ]


def test_a_growing_list_is_asked_again_after_a_wait_until_its_cursor_is_null(monkeypatch):
    waits: list[float] = []
    monkeypatch.setattr("web_access._pagination.time.sleep", waits.append)
    seen: list = []
    pages = {
        None: ([session(1)], "c2"),
        "c2": ([], "c3"),
        "c3": ([], "c4"),
        "c4": ([session(2)], "c5"),
        "c5": ([], None),
    }
    assert [s.id for s in sync_client(paged(pages, seen)).sessions.list()] == ["ses_1", "ses_2"]
    assert len(seen) == 5 and waits == [0.5, 1.0], "a wait only after an empty page, longer each time"


async def test_async_lists_are_awaited_for_a_page_or_iterated_for_every_item():
    seen: list = []
    client = async_client(paged(PAGES, seen))
    first = await client.sessions.list()
    assert [s.id for s in first.items] == ["ses_1", "ses_2"]
    assert [s.id async for s in client.sessions.list()] == ["ses_1", "ses_2", "ses_3", "ses_4"]
    pages = [len(p.items) async for p in first.iter_pages()]
    assert pages == [2, 1, 1]


def ndjson(*lines) -> httpx.Response:
    return httpx.Response(
        200, text="".join(json.dumps(line) + "\n" for line in lines), headers={"content-type": "application/x-ndjson"}
    )


HEADER = {"type": "header", "sessionId": "ses_1", "status": "live", "follow": True}


def test_ndjson_is_read_line_by_line_with_the_query_as_given():
    seen: list = []

    def handler(request):
        seen.append(request)
        return ndjson(HEADER)

    with sync_client(handler).sessions.network("ses_1", follow=True, status="4xx", min_duration_ms=5) as stream:
        frames = list(stream)
    assert frames[0].follow is True and frames[0].session_id == "ses_1"
    assert dict(seen[0].url.params) == {"follow": "true", "status": "4xx", "minDurationMs": "5"}
    assert seen[0].headers["accept"] == "application/x-ndjson"


@pytest.mark.parametrize(
    "code,cls", [("quota_exceeded", PaymentRequiredError), ("page_lost", UnprocessableEntityError)]
)
def test_a_stream_ended_by_an_error_object_raises_its_class(code, cls):
    client = sync_client(lambda r: ndjson(HEADER, {"error": {"code": code, "message": "m"}}))
    got = []
    with pytest.raises(cls) as raised:
        for frame in client.sessions.network("ses_1", follow=True):
            got.append(frame)
    assert raised.value.code == code and len(got) == 1


def sse(text: str) -> httpx.Response:
    return httpx.Response(200, text=text, headers={"content-type": "text/event-stream"})


async def test_server_sent_events_are_parsed_into_items():
    body = (
        ": a comment\n"
        'data: {"session": {"id": "ses_1", "status": "live"}}\n\n'
        'data: {"session": {"id": "ses_1",\n'
        'data:  "status": "ended"}}\n\n'
    )
    items = [i async for i in await async_client(lambda r: sse(body)).sessions.live("ses_1")]
    assert [i.session.status for i in items] == ["live", "ended"]
    body = 'data: {"session": {"id": "s", "status": "live"}}\n\nevent: error\ndata: {"error": {"code": "not_found", "message": "m"}}\n\n'
    with pytest.raises(Exception) as raised:
        list(sync_client(lambda r: sse(body)).sessions.live("s"))
    assert raised.value.status == 404 and raised.value.code == "not_found"
