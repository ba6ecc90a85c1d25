"""Textual's private state that acp-tui reads, where Textual offers no public way.

These change nothing in Textual (that is what the patches do), so they have no switch: each
reads one private name, and gives a public approximation where the name is gone (another
Textual), so that the app degrades rather than fails. tests/ui/test_textual_access.py checks
each against the installed Textual, and its approximation.
"""

from __future__ import annotations

import sys
import time
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from textual.app import App
from textual.binding import Binding, BindingsMap
from textual.dom import DOMNode
from textual.driver import Driver
from textual.widget import Widget

__all__ = [
    "anchor_released",
    "bindings",
    "character_to_key",
    "class_bindings",
    "closing",
    "configured_bindings",
    "dismiss_notifications",
    "driver",
    "event_clock",
    "keymap",
]


def keymap(app: App[Any] | None) -> Mapping[str, str]:
    """The keymap :meth:`App.set_keymap` gave ``app`` (binding id -> keys), as Textual
    normalized it; empty without one. Textual has no getter for it."""
    return getattr(app, "_keymap", None) or {}


def class_bindings(cls: type[DOMNode]) -> BindingsMap:
    """The bindings a node of class ``cls`` starts with: its ``BINDINGS`` merged with its
    bases' (Textual's merge, which it keeps on the class once a node was made)."""
    merged = getattr(cls, "_merged_bindings", None)
    if isinstance(merged, BindingsMap):
        return merged.copy()
    # Another Textual: merged as Textual 8.2 does (a class that does not inherit its bases'
    # bindings starts again).
    keys: dict[str, list[Binding]] = {}
    for base in reversed(cls.__mro__):
        if not issubclass(base, DOMNode):
            continue
        if not getattr(base, "_inherit_bindings", True):
            keys.clear()
        keys.update(BindingsMap(base.__dict__.get("BINDINGS", [])).key_to_bindings)
    return BindingsMap.from_keys(keys)


def bindings(node: DOMNode) -> BindingsMap:
    """``node``'s own bindings (not those around it), before the keymap."""
    own = getattr(node, "_bindings", None)
    return own if isinstance(own, BindingsMap) else class_bindings(type(node))


def configured_bindings(node: DOMNode) -> BindingsMap:
    """A copy of ``node``'s own bindings with its app's keymap applied: the keys that act."""
    found = bindings(node).copy()
    try:
        app: App[Any] | None = node.app
    except Exception:  # a node outside an app: the defaults
        app = None
    configured = keymap(app)
    if configured:
        found.apply_keymap(configured)
    return found


#: Characters whose key name Textual spells otherwise than their Unicode name.
_KEY_NAMES = {
    "solidus": "slash",
    "reverse_solidus": "backslash",
    "commercial_at": "at",
    "hyphen_minus": "minus",
    "plus_sign": "plus",
    "low_line": "underscore",
}


def character_to_key(character: str) -> str:
    """The key name Textual gives a key press of ``character`` (``/`` -> ``slash``)."""
    try:
        from textual.keys import _character_to_key
    except ImportError:  # another Textual: spelled as Textual 8.2 does
        if character.isalnum():
            return character
        try:
            name = unicodedata.name(character).lower().replace("-", "_").replace(" ", "_")
        except ValueError:
            return character
        return _KEY_NAMES.get(name, name)
    return _character_to_key(character)


def event_clock() -> Callable[[], float]:
    """The clock of Textual's event times (``Message.time``)."""
    try:
        from textual._time import get_time
    except ImportError:  # another Textual: its clock as in 8.2
        return time.perf_counter if sys.platform == "win32" else time.monotonic
    return get_time


def driver(app: App[Any] | None) -> Driver | None:
    """The driver ``app`` runs on (None before it runs, or without an app)."""
    found = getattr(app, "_driver", None)
    return found if isinstance(found, Driver) else None


def anchor_released(widget: Widget) -> bool:
    """Whether the person scrolled an anchored ``widget`` away from its end (it follows new
    content again once scrolled back there)."""
    return bool(getattr(widget, "_anchor_released", False))


def closing(widget: Widget) -> bool:
    """Whether ``widget`` is being removed or closed (what is mounted in it now is dropped)."""
    return bool(getattr(widget, "_closing", False) or getattr(widget, "_pruning", False))


def dismiss_notifications(app: App[Any], message: str) -> int:
    """Take down the toasts of ``app`` that say ``message``, before their time; how many.
    (Textual can only clear them all.)"""
    shown = getattr(app, "_notifications", None)
    unnotify = getattr(app, "_unnotify", None)
    if shown is None or unnotify is None:
        return 0
    dismissed = 0
    for notification in list(shown):
        if notification.message == message:
            unnotify(notification)
            dismissed += 1
    return dismissed
