"""One call of Firecrawl's Python client (firecrawl-py, v1), made as a team moving from
Firecrawl makes it: the client built with our base URL and nothing else changed.

    firecrawl_sdk.py <api_url> <api_key> '{"client": "v1", "method": "scrape_url", "args": [...], "kwargs": {...}}'

`method` `watch` is `crawl_url_and_watch` followed to its end (its events). `client` is `v1` (the unified client's `.v1`) or `V1FirecrawlApp` (the class behind it, which
also has `search` and `cancel_crawl`: `.v1` does not expose them). Prints one JSON line:
`{"ok": true, "result": ...}` with what the call returned, or `{"ok": false, "error": ...,
"status": ...}` with what it raised and, for an HTTP error, the status it carried.
Run by e2e/src/firecrawl-sdk.test.ts with the virtualenv scripts/toolchain.sh makes.
"""

import asyncio
import json
import sys

import pydantic
import requests
from firecrawl import Firecrawl, V1FirecrawlApp, V1ScrapeOptions


def plain(value):
    """What a call returned, as JSON: the client's models as the user reads them."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    return value


def watch(client, url, kwargs):
    """`crawl_url_and_watch` as its documentation shows it: the watcher's events until the socket closes."""
    watcher = client.crawl_url_and_watch(url, **kwargs)
    events = []
    for kind in ("document", "done", "error"):
        watcher.add_event_listener(kind, lambda detail, kind=kind: events.append({"type": kind, "detail": detail}))
    asyncio.run(watcher.connect())
    return {"id": watcher.id, "status": watcher.status, "events": events}


def main():
    api_url, api_key, call = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    client = (
        Firecrawl(api_key=api_key, api_url=api_url).v1
        if call["client"] == "v1"
        else V1FirecrawlApp(api_key=api_key, api_url=api_url)
    )
    kwargs = dict(call.get("kwargs", {}))
    if "scrape_options" in kwargs:
        kwargs["scrape_options"] = V1ScrapeOptions(**kwargs["scrape_options"])
    try:
        if call["method"] == "watch":
            print(json.dumps({"ok": True, "result": watch(client, *call["args"], kwargs)}))
            return
        result = getattr(client, call["method"])(*call.get("args", []), **kwargs)
        out = {"ok": True, "result": plain(result)}
    except requests.exceptions.HTTPError as err:
        out = {"ok": False, "error": str(err), "status": err.response.status_code}
    except Exception as err:  # what the client raised, for the test to assert on
        out = {"ok": False, "error": f"{type(err).__name__}: {err}"}
    print(json.dumps(out))


main()
