"""Per-call options, with_options, raw answers."""

from __future__ import annotations

import json

import httpx
from conftest import answer, sync_client

CREDITS = {"granted": 1, "spent": 0, "remaining": 1, "grants": [], "held": 0, "available": 1, "allowance": None}


def recorder():
    seen: list[httpx.Request] = []

    def handler(request):
        seen.append(request)
        return answer(200, CREDITS, {"x-request-id": "req_9"})

    return handler, seen


def test_extra_headers_query_and_body_are_merged_and_names_are_the_apis():
    handler, seen = recorder()
    sync_client(handler, default_headers={"x-team": "a"}).crawl.start(
        url="https://example.com",
        max_depth=2,
        scrape_options={"formats": ["markdown"]},
        extra_headers={"x-trace": "t1"},
        extra_query={"debug": True},
        extra_body={"newField": 1},
    )
    request = seen[0]
    assert json.loads(request.content) == {
        "url": "https://example.com",
        "maxDepth": 2,
        "scrapeOptions": {"formats": ["markdown"]},
        "newField": 1,
    }
    assert request.headers["x-team"] == "a" and request.headers["x-trace"] == "t1"
    assert request.url.params["debug"] == "true" and request.url.path == "/v1/crawl"
    assert request.headers["authorization"] == "Bearer ock_test.secret"


def test_path_values_are_escaped():
    handler, seen = recorder()
    sync_client(handler).sessions.get("a/b c")
    assert seen[0].url.raw_path == b"/v1/sessions/a%2Fb%20c"


def test_a_model_is_sent_by_its_api_names():
    from web_access.models import CrawlRequestScrapeOptions

    handler, seen = recorder()
    sync_client(handler).crawl.start(
        url="https://example.com", scrape_options=CrawlRequestScrapeOptions(only_main_content=True)
    )
    assert json.loads(seen[0].content)["scrapeOptions"] == {"onlyMainContent": True}


def test_with_options_changes_settings_and_shares_connections():
    handler, _ = recorder()
    client = sync_client(handler)
    other = client.with_options(timeout_seconds=5, max_retries=0, default_headers={"x-b": "1"})
    assert (other.timeout_seconds, other.max_retries, client.timeout_seconds, client.max_retries) == (5, 0, 120, 2)
    assert other._http is client._http and other.crawl is not client.crawl and other.crawl._client is other


def test_raw_responses_on_request():
    handler, _ = recorder()
    raw = sync_client(handler).with_raw_response.credits.get()
    assert raw.status_code == 200 and raw.request_id == "req_9" and raw.headers["content-type"] == "application/json"
    assert raw.parse().available == 1
