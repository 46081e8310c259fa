"""Every operation of the OpenAPI document is a method, grouped by tag; the generated files are current."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from web_access import AsyncWebAccess, WebAccess
from web_access._generated import operations

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = json.loads((ROOT / "src" / "web_access" / "_generated" / "openapi.json").read_text())
sys.path.insert(0, str(ROOT / "scripts"))
from generate import method_name, snake  # noqa: E402


def every_operation():
    """Every operation but alias routes, which the method of the capability they alias serves."""
    for path, methods in DOCUMENT["paths"].items():
        for method, op in methods.items():
            if "x-alias-of" not in op:
                yield method.upper(), path, op


@pytest.mark.parametrize("cls", [WebAccess, AsyncWebAccess])
def test_every_operation_of_the_document_has_a_method_on_its_tags_group(cls):
    client = cls(api_key="ock_t.s")
    missing = []
    for method, path, op in every_operation():
        group = snake(op["tags"][0])
        name = method_name(op["operationId"], group, method)
        bound = getattr(getattr(client, group, None), name, None)
        if bound is None:
            missing.append(f"{method} {path} ({op['operationId']}) as client.{group}.{name}")
            continue
        params = inspect.signature(bound).parameters
        for param in op.get("parameters", []):
            if param["in"] in ("path", "query"):
                assert snake(param["name"]) in params, f"{op['operationId']} lacks {param['name']}"
    assert not missing, "operations without a method:\n" + "\n".join(missing)
    assert len(list(every_operation())) == len(operations.OPERATIONS)


def test_names_match_the_typescript_sdk():
    client = WebAccess(api_key="ock_t.s")
    for expected in (
        "crawl.start",
        "crawl.results",
        "scrape.start",
        "search.start",
        "agent.start",
        "agent.events",
        "credits.get",
        "usage.get",
        "sessions.network",
        "browsers.connect_version",
    ):
        group, name = expected.split(".")
        assert callable(getattr(getattr(client, group), name)), expected
    assert callable(client.crawl.wait) and callable(client.agent.wait) and callable(client.agent.follow)


def sources_changed() -> bool:
    """Whether the document's sources differ from the last commit here (then so may the document)."""
    repo = ROOT.parent.parent
    changed = subprocess.run(
        ["git", "status", "--porcelain", "--", "services/gateway/src", "libs/errors/src"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    return changed.returncode == 0 and bool(changed.stdout.strip())


@pytest.mark.skipif(
    sources_changed(), reason="the gateway's registry has uncommitted changes: regenerate once they land"
)
def test_regenerating_changes_nothing():
    """The committed models, operations and document are what the gateway's registry gives now."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "generate.py"), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-3000:]
