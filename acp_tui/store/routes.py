"""A ``session/update`` kind's way through the store: its coercer (:mod:`acp_tui.wire.coerce`)
and its handler, paired so that mypy checks the handler takes the shape the coercer gives."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from acp_tui.store.session import SessionState
from acp_tui.wire.fields import LeftOut
from acp_tui.wire.updates import JsonObject

__all__ = ["Route", "route"]

U = TypeVar("U")

#: (coercer, handler) of one kind; built only by :func:`route`, which types the pair.
Route = tuple[Callable[[JsonObject, LeftOut], Any], Callable[[SessionState, Any], None]]


def route(
    coerce: Callable[[JsonObject, LeftOut], U], handle: Callable[[SessionState, U], None]
) -> Route:
    """The route of a kind whose coercer gives ``U`` to a handler that takes ``U``."""
    return (coerce, handle)
