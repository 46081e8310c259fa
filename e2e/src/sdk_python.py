"""
The Python SDK (clients/python) driven against a fleet for e2e/src/sdk-python.suite.ts: one
scenario a run, called as its users call it, what it saw printed as one JSON object on stdout.
`web_access` is imported from the built wheel (PYTHONPATH); the key and the deployment come
from SERVICE_API_KEY and SERVICE_BASE_URL, the test site from SITE_URL.

    python sdk_python.py SCENARIO [ARG...]
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import httpx

import web_access
from web_access import AsyncWebAccess, WebAccess

SITE = os.environ.get("SITE_URL", "")


def scrape() -> dict[str, Any]:
    client = WebAccess()
    page = client.scrape.start(url=f"{SITE}/articles/0", formats=["markdown"])
    return {
        "markdown": page.data.markdown,
        "credits": page.usage.credits,
        "meters": page.usage.meters,
        "source": client.credential_source,
        "module": web_access.__file__,
    }


def crawl() -> dict[str, Any]:
    client = WebAccess()
    started = client.crawl.start(url=f"{SITE}/", limit=7)
    progress: list[int] = []
    done = client.crawl.wait(
        started.id,
        timeout_seconds=120,
        poll_interval_seconds=0.5,
        on_progress=lambda s: progress.append(s.crawl.completed),
    )
    first = client.crawl.results(started.id, limit=2)
    return {
        "id": started.id,
        "status": done.crawl.status,
        "outcome": done.crawl.outcome,
        "completed": done.crawl.completed,
        "credits": done.crawl.usage.credits,
        "progress": progress,
        "first_page": len(first.items),
        "first_cursor": first.next_cursor,
        "urls": [doc.metadata["url"] for doc in first],  # every page, two per request
    }


def crawl_follow(site: str) -> dict[str, Any]:
    """Iterates a running crawl's results: pages come as they are delivered, until it settles."""
    client = WebAccess()
    started = client.crawl.start(url=f"{site}/", limit=5)
    seen: list[dict[str, Any]] = []
    for doc in client.crawl.results(started.id, limit=10):
        seen.append({"url": doc.metadata["url"], "crawl": client.crawl.get(started.id).crawl.status})
    return {"id": started.id, "pages": seen, "final": client.crawl.get(started.id).crawl.to_dict()}


def agent(task: str) -> dict[str, Any]:
    client = WebAccess()
    run = client.agent.start(task=task, url=f"{SITE}/")
    events = [e.to_dict() for e in client.agent.follow(run.id, timeout_seconds=120)]
    records = [r.record for r in client.agent.results(run.id, limit=1)]
    result = client.agent.wait(run.id, timeout_seconds=60)
    return {
        "id": run.id,
        "events": events,
        "records": records,
        "outcome": result.run.outcome,
        "answer": result.run.answer,
        "session": result.run.session_id,
    }


def agent_question(task: str) -> dict[str, Any]:
    client = WebAccess()
    run = client.agent.start(task=task, url=f"{SITE}/")
    asked: list[str] = []
    states: list[str] = []

    def reply(question: str, state: Any) -> str:
        asked.append(question)
        return "green"

    result = client.agent.wait(
        run.id,
        timeout_seconds=120,
        poll_interval_seconds=0.5,
        on_progress=lambda s: states.append(s.run.status),
        on_question=reply,
    )
    return {"asked": asked, "states": states, "outcome": result.run.outcome, "answer": result.run.answer}


def sessions() -> dict[str, Any]:
    client = WebAccess()
    first = client.sessions.list(limit=1)
    return {"first": [s.id for s in first.items], "cursor": first.next_cursor, "all": [s.id for s in first]}


def lost_answers(proxy: str) -> dict[str, Any]:
    """Through a proxy that loses answers: a scrape and a crawl start, each retried by the SDK."""
    client = WebAccess(base_url=proxy)
    raw = client.with_raw_response.scrape.start(url=f"{SITE}/articles/1")
    page = raw.parse()
    crawl = client.crawl.start(url=f"{SITE}/", limit=3)
    done = client.crawl.wait(crawl.id, timeout_seconds=120, poll_interval_seconds=0.5)
    return {
        "replayed": raw.headers.get("idempotent-replayed"),
        "markdown": page.data.markdown,
        "crawl": crawl.id,
        "completed": done.crawl.completed,
        "crawl_credits": done.crawl.usage.credits,
    }


def errors() -> list[dict[str, Any]]:
    client = WebAccess()
    seen: list[dict[str, Any]] = []
    calls = [
        lambda: client.crawl.get("no-such-crawl"),
        lambda: client.scrape.start(url="not a url"),
        lambda: client.sessions.list(limit=1000),
        lambda: WebAccess(api_key=f"ock_{'0' * 16}.{'A' * 43}").credits.get(),  # well formed, unknown
    ]
    for call in calls:
        try:
            call()
            seen.append({"raised": None})
        except web_access.APIError as err:
            seen.append(
                {
                    "raised": type(err).__name__,
                    "status": err.status,
                    "code": err.code,
                    "message": err.message,
                    "details": err.details,
                    "request_id": err.request_id,
                    "header_request_id": err.headers.get("x-request-id"),
                }
            )
    return seen


def no_key() -> dict[str, Any]:
    try:
        WebAccess()
    except TypeError as err:
        return {"raised": "TypeError", "message": str(err)}
    return {"raised": None}


def operations() -> dict[str, Any]:
    """Every operation of the document the fleet serves, and the method each is on both clients."""
    from generate import method_name, snake  # clients/python/scripts, on PYTHONPATH

    document = httpx.get(f"{os.environ['SERVICE_BASE_URL']}/v1/openapi.json").json()
    sync, asynchronous = WebAccess(), AsyncWebAccess()
    found, missing = [], []
    for methods in document["paths"].values():
        for method, op in methods.items():
            if "x-alias-of" in op:  # served by the method of the capability it aliases
                continue
            group = snake(op["tags"][0])
            name = method_name(op["operationId"], group, method.upper())
            on = [getattr(getattr(c, group, None), name, None) for c in (sync, asynchronous)]
            (found if all(callable(m) for m in on) else missing).append(f"{op['operationId']} -> {group}.{name}")
    return {"found": found, "missing": missing}


async def async_client() -> dict[str, Any]:
    async with AsyncWebAccess() as client:
        page = await client.scrape.start(url=f"{SITE}/articles/2")
        crawl = await client.crawl.start(url=f"{SITE}/", limit=3)
        done = await client.crawl.wait(crawl.id, timeout_seconds=120, poll_interval_seconds=0.5)
        urls = [doc.metadata["url"] async for doc in client.crawl.results(crawl.id, limit=1)]
        try:
            await client.agent.get("no-such-run")
            missing = None
        except web_access.NotFoundError as err:
            missing = err.code
        return {"markdown": page.data.markdown, "completed": done.crawl.completed, "urls": urls, "missing": missing}


def readme(path: str) -> dict[str, Any]:
    """Runs every ```python block of the README in turn, in one namespace, with example.com as the test site."""
    text = Path(path).read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    namespace: dict[str, Any] = {"__name__": "__readme__"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block.replace("https://example.com", SITE), path, "exec"), namespace)  # noqa: S102
    return {"blocks": len(blocks), "printed": out.getvalue().splitlines()}


SCENARIOS = {
    "scrape": scrape,
    "crawl": crawl,
    "crawl_follow": crawl_follow,
    "agent": agent,
    "agent_question": agent_question,
    "sessions": sessions,
    "lost_answers": lost_answers,
    "errors": errors,
    "no_key": no_key,
    "operations": operations,
    "async": lambda: asyncio.run(async_client()),
    "readme": readme,
}

if __name__ == "__main__":
    scenario, *args = sys.argv[1:]
    print(json.dumps(SCENARIOS[scenario](*args), default=str))
