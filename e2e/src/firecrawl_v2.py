"""One call of Firecrawl's Python client (firecrawl-py 4.x) as its documentation shows it: the
default client, `Firecrawl(api_key=..., api_url=...)`, whose methods call Firecrawl's v2 API.

    firecrawl_v2.py <api_url> <api_key> '{"method": "scrape", "args": [...], "kwargs": {...}}'

Prints one JSON line: `{"ok": true, "result": ...}` with what the call returned, or
`{"ok": false, "type": ..., "error": ..., "status": ..., "code": ...}` with the typed error it
raised. Run by e2e/src/firecrawl-v2.suite.ts with the virtualenv scripts/toolchain.sh makes.
"""

import json
import sys

import pydantic
from firecrawl import Firecrawl
from firecrawl.v2.utils.error_handler import FirecrawlError


def plain(value):
    """What a call returned, as JSON: the client's models as the user reads them."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def main():
    api_url, api_key, call = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    client = Firecrawl(api_key=api_key, api_url=api_url)
    try:
        result = getattr(client, call["method"])(*call.get("args", []), **call.get("kwargs", {}))
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
