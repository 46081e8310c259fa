"""LangChain's FireCrawlLoader, called as its documentation shows it, against our API.

Usage: python firecrawl_loaders.py API_URL API_KEY '{"mode": ..., "url": ..., "query": ..., "params": {...}}'
Prints the loaded documents as JSON: {"ok": true, "docs": [{"page_content", "metadata"}]},
or {"ok": false, "type", "error"} when the loader raised.
"""

import json
import sys
import warnings

warnings.simplefilter("ignore")

from langchain_community.document_loaders import FireCrawlLoader  # noqa: E402


def main() -> None:
    api_url, api_key, call = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    try:
        loader = FireCrawlLoader(
            url=call.get("url"),
            query=call.get("query"),
            api_key=api_key,
            api_url=api_url,
            mode=call["mode"],
            params=call.get("params"),
        )
        docs = [{"page_content": d.page_content, "metadata": d.metadata} for d in loader.load()]
        print(json.dumps({"ok": True, "docs": docs}, default=str))
    except Exception as err:  # the loader's error, as its user would see it
        print(json.dumps({"ok": False, "type": type(err).__name__, "error": str(err)}))


if __name__ == "__main__":
    main()
