"""One error class per status with the Error object; answers that tolerate what they do not know."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from conftest import answer, error, sync_client

import web_access
from web_access import APIError, _errors
from web_access._generated.operations import OPERATIONS

STATUSES = {
    400: "BadRequestError",
    401: "AuthenticationError",
    402: "PaymentRequiredError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    405: "MethodNotAllowedError",
    408: "RequestTimeoutError",
    409: "ConflictError",
    413: "ContentTooLargeError",
    415: "UnsupportedMediaTypeError",
    417: "ExpectationFailedError",
    422: "UnprocessableEntityError",
    429: "RateLimitError",
    431: "HeadersTooLargeError",
    500: "InternalServerError",
    503: "ServiceUnavailableError",
}


@pytest.mark.parametrize("status,name", sorted(STATUSES.items()))
def test_each_status_has_its_class_carrying_the_error_object(status, name):
    client = sync_client(lambda r: error(status, "some_code", {"reason": "why"}), max_retries=0)
    with pytest.raises(getattr(web_access, name)) as raised:
        client.sessions.get("ses_1")
    err = raised.value
    assert isinstance(err, APIError)
    assert err.error == {"code": "some_code", "message": "the some_code message", "details": {"reason": "why"}}
    assert err.status_code == status and err.headers["x-request-id"] == "req_123"
    assert (err.status, err.code, err.message, err.details, err.request_id) == (
        status,
        "some_code",
        "the some_code message",
        {"reason": "why"},
        "req_123",
    )


def test_every_error_status_of_the_document_has_a_class():
    document = json.loads((Path(web_access._generated.__path__[0]) / "openapi.json").read_text())
    statuses = {
        int(status)
        for methods in document["paths"].values()
        for op in methods.values()
        for status in op["responses"]
        if int(status) >= 400
    }
    assert statuses <= set(_errors.STATUS_ERRORS), statuses - set(_errors.STATUS_ERRORS)


def test_an_unknown_status_or_a_body_that_is_not_the_error_object():
    client = sync_client(lambda r: httpx.Response(418, text="teapot"), max_retries=0)
    with pytest.raises(APIError) as raised:
        client.credits.get()
    assert type(raised.value) is APIError and raised.value.status == 418 and raised.value.code == "unknown"
    assert "teapot" in str(raised.value)


def test_answers_keep_fields_values_and_variants_added_since():
    events = {
        "success": True,
        "status": "hibernating",  # a status this SDK never heard of
        "events": [
            {
                "seq": 1,
                "at": "2026-01-01T00:00:00Z",
                "level": "ultra",
                "kind": "telepathy",
                "message": "m",
                "data": None,
            }
        ],
        "next": 1,
        "cursorHint": "new field",
    }
    page = sync_client(lambda r: answer(200, events)).agent.events("run_1")
    assert page.status == "hibernating" and page.cursorHint == "new field"
    assert page.events[0].level == "ultra" and page.events[0].kind == "telepathy"
    frames = [
        {"type": "header", "sessionId": "s", "status": "paused-forever", "follow": False},
        {"type": "websocket", "frame": "new kind of line"},
    ]
    body = "".join(json.dumps(f) + "\n" for f in frames)
    client = sync_client(lambda r: httpx.Response(200, text=body, headers={"content-type": "application/x-ndjson"}))
    header, new = list(client.sessions.network("ses_1"))
    assert header.session_id == "s" and header.status == "paused-forever"
    assert new == {"type": "websocket", "frame": "new kind of line"}


def test_an_answer_missing_a_field_is_still_read():
    state = sync_client(lambda r: answer(200, {"success": True, "crawl": {"id": "c1", "status": "settled"}})).crawl.get(
        "c1"
    )
    assert state.crawl.status == "settled" and state.crawl.id == "c1"


def test_operations_table_covers_streams_pages_and_redirects():
    assert OPERATIONS["sessions.network"].kind == "ndjson"
    assert OPERATIONS["sessions.live"].kind == "sse"
    assert OPERATIONS["sessions.list"].page == ("cursor", "nextCursor", "sessions")
    assert OPERATIONS["crawl.results"].page == ("cursor", "nextCursor", "data")
    assert OPERATIONS["agent.events"].page is None
