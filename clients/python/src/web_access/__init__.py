"""Python client of the web access platform's REST API: `from web_access import WebAccess`."""

from . import models
from ._base import RawResponse
from ._client import AsyncWebAccess, WebAccess
from ._errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    ContentTooLargeError,
    ExpectationFailedError,
    HeadersTooLargeError,
    InternalServerError,
    MethodNotAllowedError,
    NotFoundError,
    PaymentRequiredError,
    PermissionDeniedError,
    RateLimitError,
    RequestTimeoutError,
    ServiceUnavailableError,
    UnprocessableEntityError,
    UnsupportedMediaTypeError,
    WaitTimeoutError,
    WebAccessError,
)
from ._login import LoginError, LoginStore
from ._pagination import AsyncPage, AsyncPager, SyncPage
from ._streaming import AsyncStream, Stream
from ._version import __version__

__all__ = [
    "APIConnectionError",
    "APIError",
    "APITimeoutError",
    "AsyncPage",
    "AsyncPager",
    "AsyncStream",
    "AsyncWebAccess",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "ExpectationFailedError",
    "InternalServerError",
    "LoginError",
    "LoginStore",
    "MethodNotAllowedError",
    "NotFoundError",
    "ContentTooLargeError",
    "PaymentRequiredError",
    "PermissionDeniedError",
    "RateLimitError",
    "RawResponse",
    "HeadersTooLargeError",
    "RequestTimeoutError",
    "ServiceUnavailableError",
    "Stream",
    "SyncPage",
    "UnprocessableEntityError",
    "UnsupportedMediaTypeError",
    "WaitTimeoutError",
    "WebAccess",
    "WebAccessError",
    "__version__",
    "models",
]
