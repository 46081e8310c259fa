"""Which credential a client sends (docs/clients.md, "Credentials"), and that none is ever printed."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import httpx
import pytest
from conftest import answer, sync_client

from web_access import AsyncWebAccess, LoginError, WebAccess

KEY = "ock_explicit.secret-explicit"
ENV_KEY = "ock_env.secret-env"


def store_login(config: Path, **fields) -> Path:
    folder = config / "web-access"
    folder.mkdir(parents=True, exist_ok=True)
    login = {
        "version": 1,
        "storage": "file",
        "baseUrl": "http://gateway.test:8080",
        "clientId": "cli_1",
        "accessToken": "oat_stored-access",
        "refreshToken": "ort_stored-refresh",
        "expiresAt": int((time.time() + 3600) * 1000),
        "tokenEndpoint": "http://gateway.test:8080/oauth/token",
        "revocationEndpoint": "http://gateway.test:8080/oauth/revoke",
        **fields,
    }
    path = folder / "login.json"
    path.write_text(json.dumps(login))
    path.chmod(0o600)
    return path


def sent_bearer(client: WebAccess) -> str:
    seen: list[str] = []
    client._http = httpx.Client(
        transport=httpx.MockTransport(lambda r: seen.append(r.headers["authorization"]) or answer(200, {"ok": 1}))
    )
    client.credits.get()
    return seen[0]


@pytest.fixture
def config() -> Path:
    return Path(os.environ["XDG_CONFIG_HOME"])


def test_explicit_key_wins_over_the_variable_and_the_login(monkeypatch, config):
    monkeypatch.setenv("SERVICE_API_KEY", ENV_KEY)
    store_login(config)
    client = WebAccess(api_key=KEY)
    assert client.credential_source == "option"
    assert sent_bearer(client) == f"Bearer {KEY}"


def test_the_variable_is_read_without_an_explicit_key(monkeypatch):
    monkeypatch.setenv("SERVICE_API_KEY", ENV_KEY)
    client = WebAccess()
    assert client.credential_source == "env"
    assert sent_bearer(client) == f"Bearer {ENV_KEY}"


def test_the_variable_wins_over_a_stored_login(monkeypatch, config):
    monkeypatch.setenv("SERVICE_API_KEY", ENV_KEY)
    store_login(config)
    assert WebAccess().credential_source == "env"


@pytest.mark.parametrize("empty", ["", "   "])
def test_an_empty_explicit_key_counts_as_missing(monkeypatch, empty):
    monkeypatch.setenv("SERVICE_API_KEY", ENV_KEY)
    client = WebAccess(api_key=empty)
    assert client.credential_source == "env"


def test_an_empty_variable_counts_as_missing(monkeypatch):
    monkeypatch.setenv("SERVICE_API_KEY", "")
    with pytest.raises(TypeError, match="SERVICE_API_KEY"):
        WebAccess()


def test_the_stored_login_is_used_last_with_its_deployment(config):
    store_login(config)
    client = WebAccess()
    assert client.credential_source == "login"
    assert client.base_url == "http://gateway.test:8080"
    assert sent_bearer(client) == "Bearer oat_stored-access"


def test_a_login_for_another_deployment_is_not_sent_there(config):
    store_login(config)
    with pytest.raises(TypeError, match=r"SERVICE_API_KEY.*stored login is for http://gateway.test:8080"):
        WebAccess(base_url="http://elsewhere.test")


def test_a_login_in_the_os_keyring_is_named_as_unreadable(config):
    folder = config / "web-access"
    folder.mkdir(parents=True)
    (folder / "login.json").write_text(json.dumps({"version": 1, "storage": "keyring", "baseUrl": "http://g.test"}))
    with pytest.raises(TypeError, match=r"SERVICE_API_KEY.*OS keyring"):
        WebAccess()


def test_login_false_never_reads_one(config):
    store_login(config)
    with pytest.raises(TypeError, match="SERVICE_API_KEY"):
        WebAccess(login=False)


@pytest.mark.parametrize("cls", [WebAccess, AsyncWebAccess])
def test_no_credential_raises_type_error_before_any_request(cls):
    requests: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda r: requests.append(r) or answer(200, {}))
    http = httpx.Client(transport=transport) if cls is WebAccess else httpx.AsyncClient(transport=transport)
    with pytest.raises(TypeError) as raised:
        cls(http_client=http)
    assert "SERVICE_API_KEY" in str(raised.value)
    assert requests == []


def test_an_expiring_login_is_refreshed_and_written_back(config):
    path = store_login(config, expiresAt=int((time.time() + 60) * 1000))
    forms: list[str] = []

    def gateway(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/oauth/token":
            forms.append(request.content.decode())
            return answer(200, {"access_token": "oat_new", "refresh_token": "ort_new", "expires_in": 3600})
        assert request.headers["authorization"] == "Bearer oat_new"
        return answer(200, {"ok": 1})

    client = WebAccess(http_client=httpx.Client(transport=httpx.MockTransport(gateway)))
    client.credits.get()
    assert forms == ["grant_type=refresh_token&refresh_token=ort_stored-refresh&client_id=cli_1"]
    stored = json.loads(path.read_text())
    assert (stored["accessToken"], stored["refreshToken"], stored["storage"]) == ("oat_new", "ort_new", "file")
    assert stored["expiresAt"] > (time.time() + 3000) * 1000
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not (config / "web-access" / "login.lock").exists()


def test_a_refused_refresh_says_to_sign_in_again(config):
    store_login(config, expiresAt=int((time.time() - 10) * 1000))
    client = WebAccess(
        http_client=httpx.Client(transport=httpx.MockTransport(lambda r: answer(400, {"error": "invalid_grant"})))
    )
    with pytest.raises(LoginError, match="invalid_grant.*wap login"):
        client.credits.get()


def test_no_secret_in_reprs(monkeypatch, config):
    monkeypatch.setenv("SERVICE_API_KEY", ENV_KEY)
    client = WebAccess(api_key=KEY)
    shown = " ".join([repr(client), str(client), repr(client._auth), repr(client.with_options(max_retries=1))])
    assert "secret" not in shown
    store_login(config)
    monkeypatch.delenv("SERVICE_API_KEY")
    login_client = WebAccess()
    shown = repr(login_client) + repr(login_client._auth) + repr(login_client._auth.store.read())
    assert "oat_" not in shown and "ort_" not in shown


def test_with_options_keeps_a_login_token_at_its_deployment(config):
    store_login(config)
    client = WebAccess()
    with pytest.raises(ValueError, match="deployment it signed in to"):
        client.with_options(base_url="http://elsewhere.test")
    assert sync_client(lambda r: answer()).with_options(base_url="http://other.test").base_url == "http://other.test"
