"""Reading fields of raw ``session/update`` JSON: a wrong type raises, for the reducer to turn
into an :class:`~acp_tui.store.entries.UnknownUpdate` (agent input never raises further)."""

from __future__ import annotations

from typing import Any

__all__ = ["MISSING", "list_of_dicts", "opt_str", "req_str", "type_error"]

#: A field that is absent (distinct from ``null``).
MISSING: Any = object()


def type_error(name: str, expected: str, value: Any) -> TypeError:
    return TypeError(f"{name}: expected {expected}, got {type(value).__name__}")


def req_str(u: dict[str, Any], name: str) -> str:
    if name not in u:
        raise KeyError(name)
    v = u[name]
    if v.__class__ is not str:
        raise type_error(name, "a string", v)
    return v


def opt_str(u: dict[str, Any], name: str, default: Any = MISSING) -> Any:
    """A string, ``None`` or ``default`` (when absent); anything else raises."""
    v = u.get(name, default)
    if v is default or v is None or v.__class__ is str:
        return v
    raise type_error(name, "a string or null", v)


def list_of_dicts(v: Any, name: str) -> list[dict[str, Any]]:
    if not isinstance(v, list):
        raise type_error(name, "an array", v)
    for i, item in enumerate(v):
        if not isinstance(item, dict):
            raise type_error(f"{name}[{i}]", "an object", item)
    return v
