"""One call of Firecrawl's Python client (firecrawl-py 4.x) as its documentation shows it: the
default client, `Firecrawl(api_key=..., api_url=...)`, whose methods call Firecrawl's v2 API.

    firecrawl_v2.py <api_url> <api_key> '{"method": "scrape", "args": [...], "kwargs": {...}}'

Prints one JSON line: `{"ok": true, "result": ...}` with what the call returned, or
`{"ok": false, "type": ..., "error": ..., "status": ..., "code": ...}` with the typed error it
raised. The method `watch` (args: job id, kind) runs the client's watcher until its `done` or
`error` event and answers that event's status and page count, and how many pages came one by
one as `document` events (over the WebSocket). A method named `v2.<name>` is called on the v2
class behind the default one (`firecrawl.v2.client.FirecrawlClient`), for the methods the default
class does not expose. Run by e2e/src/firecrawl-v2.suite.ts with the virtualenv scripts/toolchain.sh makes.
"""

import json
import sys
import threading

import pydantic
from firecrawl import Firecrawl
from firecrawl.v2.client import FirecrawlClient
from firecrawl.v2.types import ParseOptions
from firecrawl.v2.utils.error_handler import FirecrawlError


def plain(value):
    """What a call returned, as JSON: the client's models as the user reads them."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def watch(client, job_id, kind):
    """The client's watcher on a job until it says the job ended (or 90 s pass)."""
    ended = threading.Event()
    seen = {}
    documents = []

    def on_end(detail):
        seen.update(detail)
        ended.set()

    watcher = client.watcher(job_id, kind=kind, poll_interval=1, timeout=60)
    watcher.add_event_listener("done", on_end)
    watcher.add_event_listener("error", on_end)
    # Only the WebSocket brings pages one by one; the client's HTTP polling does not.
    watcher.add_event_listener("document", documents.append)
    watcher.start()
    ended.wait(90)
    watcher.stop()
    return {
        "status": seen.get("status"),
        "pages": len(seen.get("data") or []),
        "documents": len(documents),
        "error": seen.get("error"),
    }


def main():
    api_url, api_key, call = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    client = Firecrawl(api_key=api_key, api_url=api_url)
    if call["method"].startswith("v2."):
        # Methods the default class does not expose, on the v2 class behind it.
        client = FirecrawlClient(api_key=api_key, api_url=api_url)
        call["method"] = call["method"][len("v2.") :]
    try:
        if call["method"] == "watch":
            print(json.dumps({"ok": True, "result": watch(client, *call["args"])}))
            return
        kwargs = call.get("kwargs", {})
        if call["method"] == "parse" and "options" in kwargs:
            # Parse takes its options as the client's model, as a user builds them.
            kwargs["options"] = ParseOptions(**kwargs["options"])
        result = getattr(client, call["method"])(*call.get("args", []), **kwargs)
        out = {"ok": True, "result": plain(result)}
    except FirecrawlError as err:
        out = {
            "ok": False,
            "type": type(err).__name__,
            "error": str(err),
            "status": err.status_code,
            "code": err.code,
        }
    except Exception as err:  # what the client raised, for the test to assert on
        out = {"ok": False, "type": type(err).__name__, "error": str(err)}
    print(json.dumps(out))


main()
