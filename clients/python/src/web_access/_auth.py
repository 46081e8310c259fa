"""
Which credential a client sends (docs/clients.md, "Credentials"), in the TypeScript SDK's order: an explicit key
wins; else the environment variable SERVICE_API_KEY; else the login the CLI stored, for the
deployment it signed in to. With none, the constructor raises TypeError naming SERVICE_API_KEY
before any request. An empty (or blank) string counts as missing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ._login import LoginStore

API_KEY_ENV = "SERVICE_API_KEY"
BASE_URL_ENV = "SERVICE_BASE_URL"
DEFAULT_BASE_URL = "http://localhost:8080"  # where `make up` serves the API


def _given(value: str | None) -> str | None:
    return value.strip() if value and value.strip() else None


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


@dataclass(frozen=True)
class Auth:
    """A credential and where it came from: `option`, `env` or `login`. Its repr never shows the secret."""

    source: str
    _token: str | None = field(default=None, repr=False)
    store: LoginStore | None = None
    base_url: str | None = None

    def bearer(self, http: object = None) -> str:
        if self._token is not None:
            return self._token
        assert self.store is not None
        return self.store.fresh(http)["accessToken"]  # type: ignore[arg-type]


def resolve_auth(
    api_key: str | None,
    base_url: str | None,
    login: LoginStore | bool | None = None,
    env: Mapping[str, str] | None = None,
) -> Auth:
    env = os.environ if env is None else env
    explicit = _given(api_key)
    if explicit:
        return Auth("option", explicit)
    variable = _given(env.get(API_KEY_ENV))
    if variable:
        return Auth("env", variable)
    why = ""
    if login is not False:
        store = login if isinstance(login, LoginStore) else LoginStore(env)
        found = store.read()
        wanted = _given(base_url) or _given(env.get(BASE_URL_ENV))
        if found.status == "found" and (not wanted or _origin(wanted) == _origin(found.base_url or "")):
            return Auth("login", store=store, base_url=found.base_url)
        if found.status == "found":
            why = f" (the stored login is for {found.base_url}, not {wanted})"
        elif found.status == "unreadable":
            why = f" (a login is stored, but {found.reason})"
    raise TypeError(
        f"No API key: pass api_key=..., set the {API_KEY_ENV} environment variable, or sign in with `wap login`{why}"
    )


def resolve_base_url(base_url: str | None, auth: Auth, env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    chosen = _given(base_url) or _given(env.get(BASE_URL_ENV)) or auth.base_url or DEFAULT_BASE_URL
    return chosen.rstrip("/")
