"""The base of every generated model: answers keep what this SDK does not know yet."""

from __future__ import annotations

from typing import Any

import pydantic


class Model(pydantic.BaseModel):
    """
    A request or answer object. Fields are snake_case in Python and carry the API's camelCase
    names as aliases (both are accepted when building one). A field the server added after this
    SDK was generated is kept, readable as an attribute and in `to_dict()`.
    """

    model_config = pydantic.ConfigDict(
        extra="allow",
        validate_by_name=True,
        validate_by_alias=True,
        protected_namespaces=(),
    )

    def to_dict(self) -> dict[str, Any]:
        """The object as the API writes it: camelCase names, only the fields that were set."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)
