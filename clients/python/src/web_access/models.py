"""Every request and answer model, generated from the OpenAPI document (see _generated/models.py)."""

from ._generated.models import *  # noqa: F403
