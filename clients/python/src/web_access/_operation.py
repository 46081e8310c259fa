"""
What the generated methods and the core share: an operation of the OpenAPI document, the
options a single call may change, and how an answer becomes its model.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pydantic


@dataclass(frozen=True)
class Operation:
    """One operation of the OpenAPI document, as the generated methods describe it."""

    id: str
    method: str
    path: str
    kind: str  # json, ndjson, sse, or empty (a redirect)
    model: Any = None  # the answer's model, or each item's for a stream
    page: tuple[str, str, str] | None = None  # (query parameter, answer field with the next value, items field)


@dataclass(frozen=True)
class CallOptions:
    """What a single call may change: set on any method as keyword arguments."""

    extra_headers: Mapping[str, str] | None = None
    extra_query: Mapping[str, Any] | None = None
    extra_body: Mapping[str, Any] | None = None
    timeout_seconds: float | None = None
    idempotency_key: str | None = None


def parse_model(model: Any, data: Any) -> Any:
    """
    An answer as its model. One that does not fit (a field the server dropped or retyped since
    this SDK was generated) is still built, field by field, keeping what does not fit as it came:
    reading an answer never fails because the server moved on.
    """
    if model is None:
        return data
    try:
        parsed = model.model_validate(data)
    except pydantic.ValidationError:
        return _lenient(model, data)
    return parsed.root if isinstance(parsed, pydantic.RootModel) else parsed


def _lenient(model: Any, data: Any) -> Any:
    if not isinstance(data, dict) or issubclass(model, pydantic.RootModel):
        return data
    values: dict[str, Any] = {}
    known: set[str] = set()
    for name, field in model.model_fields.items():
        wire = field.alias or name
        known.update((wire, name))
        if wire not in data and name not in data:
            continue
        value = data.get(wire, data.get(name))
        try:
            values[name] = pydantic.TypeAdapter(field.annotation).validate_python(value)
        except pydantic.ValidationError:
            values[name] = _lenient_value(field.annotation, value)
    extra = {k: v for k, v in data.items() if k not in known}
    return model.model_construct(_fields_set=set(values) | set(extra), **values, **extra)


def _lenient_value(annotation: Any, value: Any) -> Any:
    """A value that does not fit its annotation: a model (or a list of them, or either beside None) built leniently, else as it came."""
    members = [a for a in getattr(annotation, "__args__", ()) if a is not type(None)]
    if typing.get_origin(annotation) is list and members and isinstance(value, list):
        return [parse_model(members[0], v) if _is_model(members[0]) else v for v in value]
    if _is_model(annotation):
        return parse_model(annotation, value)
    if len(members) == 1 and typing.get_origin(annotation) is not list:
        return _lenient_value(members[0], value)
    return value


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel)
