"""
The login `wap login` stored, as the TypeScript SDK reads and refreshes it
(clients/typescript/src/login.ts): the file `$XDG_CONFIG_HOME/web-access/login.json`
(`~/.config/web-access/` without the variable, `%APPDATA%\\web-access\\` on Windows), mode 0600.

Where the CLI could reach the OS keyring, the file only says so (`"storage": "keyring"`): this
SDK does not read the keyring, and says that when it is the only credential there is (set
SERVICE_API_KEY, or sign in with the file store). An access token that expires within five
minutes is refreshed at the token endpoint and written back, one process at a time (the lock
file login.lock), since the gateway revokes a refresh token's family when a spent one returns.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from ._errors import WebAccessError

REFRESH_AHEAD_SECONDS = 5 * 60
LOCK_STALE_SECONDS = 30
LOCK_WAIT_SECONDS = 15
LOGIN_FIELDS = ("baseUrl", "clientId", "accessToken", "refreshToken", "tokenEndpoint", "revocationEndpoint")


class LoginError(WebAccessError):
    """The stored login could not be used: it is gone, or its refresh was refused."""


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("XDG_CONFIG_HOME"):
        return Path(env["XDG_CONFIG_HOME"]) / "web-access"
    if sys.platform == "win32" and env.get("APPDATA"):
        return Path(env["APPDATA"]) / "web-access"
    return Path(env.get("HOME") or Path.home()) / ".config" / "web-access"


def _is_login(data: Mapping[str, Any]) -> bool:
    return all(isinstance(data.get(k), str) and data[k] for k in LOGIN_FIELDS) and isinstance(
        data.get("expiresAt"), (int, float)
    )


@dataclass(frozen=True)
class ReadResult:
    status: str  # found, missing or unreadable
    login: dict[str, Any] | None = None
    base_url: str | None = None
    reason: str = ""

    def __repr__(self) -> str:  # never the tokens
        return f"ReadResult(status={self.status!r}, base_url={self.base_url!r})"


class LoginStore:
    """Reads and refreshes the stored login."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.dir = config_dir(env)
        self.file = self.dir / "login.json"

    def __repr__(self) -> str:
        return f"LoginStore(file={str(self.file)!r})"

    def _read_file(self) -> dict[str, Any] | None:
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def read(self) -> ReadResult:
        data = self._read_file()
        if data is None:
            return ReadResult("missing")
        if data.get("storage") == "keyring":
            base_url = data.get("baseUrl") if isinstance(data.get("baseUrl"), str) else None
            return ReadResult(
                "unreadable", base_url=base_url, reason="it is in the OS keyring, which this SDK does not read"
            )
        if _is_login(data):
            return ReadResult("found", login=data, base_url=data["baseUrl"])
        return ReadResult("unreadable", reason=f"{self.file} is not a login")

    def _write(self, login: Mapping[str, Any]) -> None:
        self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        temp = self.file.with_name(f"{self.file.name}.{os.getpid()}.tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps({"version": 1, "storage": "file", **login}, indent=2) + "\n")
        os.replace(temp, self.file)

    def _lock(self) -> Path:
        self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        lock = self.dir / "login.lock"
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                os.close(os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                return lock
            except FileExistsError:
                try:  # a lock this old belongs to a process that died while refreshing
                    if time.time() - lock.stat().st_mtime > LOCK_STALE_SECONDS:
                        lock.unlink(missing_ok=True)
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise LoginError(f"{lock} is held by another process; remove it if none runs") from None
                time.sleep(0.1)

    def fresh(self, http: httpx.Client | None = None, now: Any = time.time) -> dict[str, Any]:
        """The login, its access token refreshed first when it has less than five minutes left."""
        current = self.read()
        if current.status != "found" or current.login is None:
            raise LoginError("No stored login: sign in with `wap login`")
        if current.login["expiresAt"] / 1000 - now() > REFRESH_AHEAD_SECONDS:
            return current.login
        lock = self._lock()
        try:
            again = self.read()  # another process may have refreshed meanwhile
            if again.status != "found" or again.login is None:
                raise LoginError("The stored login was removed: sign in with `wap login`")
            login = again.login
            if login["expiresAt"] / 1000 - now() > REFRESH_AHEAD_SECONDS:
                return login
            form = {
                "grant_type": "refresh_token",
                "refresh_token": login["refreshToken"],
                "client_id": login["clientId"],
            }
            post = (http or httpx).post  # type: ignore[attr-defined]
            try:
                answer = post(login["tokenEndpoint"], data=form, headers={"accept": "application/json"}, timeout=30)
                body = answer.json() if answer.content else {}
            except (httpx.HTTPError, ValueError) as err:
                raise LoginError(
                    f"The stored login could not be refreshed ({err}): sign in again with `wap login`"
                ) from err
            if (
                not answer.is_success
                or not isinstance(body.get("access_token"), str)
                or not isinstance(body.get("refresh_token"), str)
            ):
                raise LoginError(
                    f"The stored login could not be refreshed ({answer.status_code} {body.get('error', '')}): "
                    "sign in again with `wap login`"
                )
            refreshed = {
                **{k: v for k, v in login.items() if k not in ("version", "storage")},
                "accessToken": body["access_token"],
                "refreshToken": body["refresh_token"],
                "expiresAt": int((now() + float(body.get("expires_in", 3600))) * 1000),
            }
            if isinstance(body.get("scope"), str):
                refreshed["scope"] = body["scope"]
            self._write(refreshed)
            return refreshed
        finally:
            lock.unlink(missing_ok=True)
