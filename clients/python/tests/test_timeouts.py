"""A timeout per attempt, in seconds, that a caller's own cancellation adds to and never removes."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from web_access import APITimeoutError, AsyncWebAccess, WebAccess


class Server:
    """A loopback HTTP server that runs `behave(connection)` for each connection it accepts."""

    def __init__(self, behave: Callable[[socket.socket], None]) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.accepted = 0
        self.stop = threading.Event()
        self.behave = behave
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            self.behave(conn)

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


@pytest.fixture
def silent() -> Iterator[Server]:
    """Reads the request and never answers (until the test ends)."""
    server = Server(lambda conn: server.stop.wait(30))
    yield server
    server.close()


def test_an_attempt_that_takes_too_long_times_out(silent, no_sleep):
    client = WebAccess("ock_t.s", base_url=silent.url, timeout_seconds=0.3, max_retries=0)
    started = time.monotonic()
    with pytest.raises(APITimeoutError) as raised:
        client.credits.get()
    assert time.monotonic() - started < 5 and raised.value.timeout_seconds == 0.3
    assert silent.accepted == 1


def test_a_timed_out_get_is_retried_each_attempt_with_its_own_timeout(silent, no_sleep):
    client = WebAccess("ock_t.s", base_url=silent.url, timeout_seconds=0.2, max_retries=2)
    with pytest.raises(APITimeoutError):
        client.credits.get(timeout_seconds=0.2)
    assert silent.accepted == 3


def test_an_http_client_without_a_timeout_does_not_remove_ours(silent):
    client = WebAccess(
        "ock_t.s", base_url=silent.url, timeout_seconds=0.3, max_retries=0, http_client=httpx.Client(timeout=None)
    )
    with pytest.raises(APITimeoutError):
        client.credits.get()


async def test_a_callers_cancellation_ends_the_call_before_the_attempt_timeout(silent):
    client = AsyncWebAccess("ock_t.s", base_url=silent.url, timeout_seconds=30, max_retries=0)
    started = time.monotonic()
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(client.credits.get(), 0.3)
    assert time.monotonic() - started < 5


async def test_a_callers_longer_deadline_keeps_the_attempt_timeout(silent):
    client = AsyncWebAccess("ock_t.s", base_url=silent.url, timeout_seconds=0.3, max_retries=0)
    started = time.monotonic()
    with pytest.raises(APITimeoutError):
        async with asyncio.timeout(30):
            await client.credits.get()
    assert time.monotonic() - started < 5


def test_an_open_stream_may_be_quiet_longer_than_the_timeout():
    def slow_stream(conn: socket.socket) -> None:
        conn.sendall(
            b"HTTP/1.1 200 OK\r\ncontent-type: application/x-ndjson\r\ntransfer-encoding: chunked\r\n\r\n"
            + chunk(b'{"type":"header","sessionId":"s","status":"live","follow":true}\n')
        )
        server.stop.wait(1.0)  # quiet for three times the attempt timeout, as a followed log between requests
        conn.sendall(chunk(b'{"type":"request","request":{"id":"1"}}\n') + b"0\r\n\r\n")

    server = Server(slow_stream)
    try:
        client = WebAccess("ock_t.s", base_url=server.url, timeout_seconds=0.3, max_retries=0)
        frames = list(client.sessions.network("s", follow=True))
        assert len(frames) == 2
    finally:
        server.close()


def chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"
