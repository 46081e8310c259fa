"""
When to try a request again, and how long to wait first.

As docs/clients.md agrees for both SDKs. A GET or HEAD, and a POST carrying an
`Idempotency-Key`, are retried after no answer (the connection failed or broke, or the attempt
timed out), 408, 429 and any 5xx. The client sends a key on every POST, made once per call and
repeated on each attempt, and the gateway answers a repeat with the first answer (or redoes
failed work under the same charge), so a retried POST is never billed twice. A PUT, a DELETE
or a POST without a key is retried only on 429 and 503, refusals made before any work.

The wait doubles from 0.5 s up to 8 s, less up to a quarter at random (so clients that failed
together do not come back together); a `Retry-After` (or `Retry-After-Ms`) of at most 60 s is
waited instead, and a longer one is not waited for: the error is raised with it.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Mapping

SAFE_METHODS = frozenset({"GET", "HEAD"})
RETRY_STATUSES = frozenset({408, 429})
REFUSALS = frozenset({429, 503})
INITIAL_DELAY_SECONDS = 0.5
MAX_DELAY_SECONDS = 8.0
MAX_RETRY_AFTER_SECONDS = 60.0


def may_repeat(method: str, headers: Mapping[str, str]) -> bool:
    """Whether this request may be sent again whatever happened to the first (its work cannot be done twice)."""
    method = method.upper()
    return method in SAFE_METHODS or (method == "POST" and bool(headers.get("idempotency-key")))


def retryable_status(status: int, repeatable: bool = True) -> bool:
    """Whether an answer with this status may be retried: any failure for a repeatable request, else a refusal."""
    if not repeatable:
        return status in REFUSALS
    return status in RETRY_STATUSES or status >= 500


def retry_after_seconds(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """`Retry-After` (seconds or an HTTP date) or `Retry-After-Ms`, in seconds; None when absent or unreadable."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(float(millis) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def delay_seconds(
    retries_done: int, headers: Mapping[str, str] | None = None, rand: random.Random | None = None
) -> float | None:
    """
    How long to wait before the next attempt (`retries_done` retries were made before it), or
    None when the server asked for a longer wait than a client should silently sit through.
    """
    if headers is not None:
        asked = retry_after_seconds(headers)
        if asked is not None:
            return asked if asked <= MAX_RETRY_AFTER_SECONDS else None
    backoff = min(INITIAL_DELAY_SECONDS * 2**retries_done, MAX_DELAY_SECONDS)
    jitter = (rand or random).random() * 0.25
    return backoff * (1 - jitter)
