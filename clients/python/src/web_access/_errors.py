"""
One exception class per HTTP status, each carrying the API's Error object (`code`, `message`,
`details`), the request id and the status. Branch on `code`: it is the stable identifier.
"""

from __future__ import annotations

import json
from typing import Any

import httpx


class WebAccessError(Exception):
    """The base of every error this SDK raises."""


class APIConnectionError(WebAccessError):
    """No answer came: the connection failed or broke (after the retries)."""

    def __init__(self, message: str = "Connection error.", *, request: httpx.Request | None = None) -> None:
        super().__init__(message)
        self.request = request


class APITimeoutError(APIConnectionError):
    """An attempt took longer than `timeout_seconds` (after the retries)."""

    def __init__(self, *, request: httpx.Request | None = None, timeout_seconds: float | None = None) -> None:
        super().__init__(f"Request timed out after {timeout_seconds} s.", request=request)
        self.timeout_seconds = timeout_seconds


class WaitTimeoutError(WebAccessError):
    """`crawl.wait()` or `agent.wait()` gave up: the job had not finished within `timeout_seconds`."""

    def __init__(self, message: str, *, last: Any = None, timeout_seconds: float | None = None) -> None:
        super().__init__(message)
        self.last = last
        self.timeout_seconds = timeout_seconds


class APIError(WebAccessError):
    """
    The API answered with an error status. Subclasses name the status; branch on `code`, the
    Error object's stable identifier (`unknown` when the body was not an Error object).
    """

    status: int

    def __init__(
        self,
        *,
        status: int,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
        request_id: str | None = None,
        response: httpx.Response | None = None,
        error: Any = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}" + (f" (request {request_id})" if request_id else ""))
        self.status = status
        self.code = code
        self.message = message
        self.details = details or {}
        self.request_id = request_id
        self.response = response
        self.error = error  # the Error object as answered (or the body that came instead)

    @property
    def status_code(self) -> int:
        """`status`, by httpx's name for it."""
        return self.status

    @property
    def headers(self) -> httpx.Headers:
        return self.response.headers if self.response is not None else httpx.Headers()

    @property
    def retry_after_seconds(self) -> float | None:
        """What `Retry-After` asked for, when the answer had one."""
        if self.response is None:
            return None
        from ._retries import retry_after_seconds

        return retry_after_seconds(self.response.headers)


class BadRequestError(APIError):
    status = 400


class AuthenticationError(APIError):
    status = 401


class PaymentRequiredError(APIError):
    status = 402


class PermissionDeniedError(APIError):
    status = 403


class NotFoundError(APIError):
    status = 404


class MethodNotAllowedError(APIError):
    status = 405


class RequestTimeoutError(APIError):
    status = 408


class ConflictError(APIError):
    status = 409


class ContentTooLargeError(APIError):
    status = 413


class UnsupportedMediaTypeError(APIError):
    status = 415


class ExpectationFailedError(APIError):
    status = 417


class UnprocessableEntityError(APIError):
    status = 422


class RateLimitError(APIError):
    status = 429


class HeadersTooLargeError(APIError):
    status = 431


class InternalServerError(APIError):
    status = 500


class ServiceUnavailableError(APIError):
    status = 503


STATUS_ERRORS: dict[int, type[APIError]] = {
    cls.status: cls
    for cls in (
        BadRequestError,
        AuthenticationError,
        PaymentRequiredError,
        PermissionDeniedError,
        NotFoundError,
        MethodNotAllowedError,
        RequestTimeoutError,
        ConflictError,
        ContentTooLargeError,
        UnsupportedMediaTypeError,
        ExpectationFailedError,
        UnprocessableEntityError,
        RateLimitError,
        HeadersTooLargeError,
        InternalServerError,
        ServiceUnavailableError,
    )
}


def error_for(
    status: int, error: Any, *, request_id: str | None = None, response: httpx.Response | None = None
) -> APIError:
    """The exception for a status and what came with it (the Error object, or anything else)."""
    cls = STATUS_ERRORS.get(status, APIError)
    if isinstance(error, dict) and isinstance(error.get("code"), str):
        details = error.get("details") if isinstance(error.get("details"), dict) else None
        message = error.get("message") if isinstance(error.get("message"), str) else error["code"]
        request_id = request_id or (details or {}).get("requestId")
        return cls(
            status=status,
            code=error["code"],
            message=message,
            details=details,
            request_id=request_id,
            response=response,
            error=error,
        )
    text = error if isinstance(error, str) else json.dumps(error)
    return cls(
        status=status,
        code="unknown",
        message=text[:500] or f"HTTP {status}",
        request_id=request_id,
        response=response,
        error=error,
    )


def error_from_response(response: httpx.Response) -> APIError:
    request_id = response.headers.get("x-request-id")
    try:
        body: Any = response.json()
    except (ValueError, UnicodeDecodeError):
        body = response.text
    return error_for(response.status_code, body, request_id=request_id, response=response)
