"""A guard, installed for the whole test run (tests/conftest.py), that every write of store state
goes through the store: an attribute of a session, a transcript entry, a usage record, the
list state or the store itself assigned by a module of acp_tui outside ``acp_tui.store`` is
recorded (and raises there), and the test that did it fails. Such a write bypasses the change
tracking: the screen would never hear of it (issue 16).

Tests themselves may build state directly (set-up): only acp_tui's own modules are held to it.
A property of the façade (``store.protocol_version = 2``) is a method of the store: allowed.
"""

from __future__ import annotations

import sys
from typing import Any

from acp_tui.store.agent_terminals import AgentTerminal
from acp_tui.store.catalog import ListState
from acp_tui.store.entries import Entry
from acp_tui.store.session import ContextUsage, SessionState, TurnUsage
from acp_tui.store.store import SessionStore

#: The classes whose instances are store state.
GUARDED: tuple[type, ...] = (
    SessionState,
    Entry,
    ContextUsage,
    TurnUsage,
    ListState,
    AgentTerminal,
    SessionStore,
)

#: "module: Class.attribute" of each write seen from outside the store, since the last take.
violations: list[str] = []


class WriteOutsideStore(AttributeError):
    """Store state written by a module of acp_tui that is not the store."""


def outside_store(module: str) -> bool:
    return module.startswith("acp_tui.") and not (
        module == "acp_tui.store" or module.startswith("acp_tui.store.")
    )


def _guarded(kind: str) -> Any:
    plain = getattr(object, kind)

    def guard(self: Any, name: str, *value: Any) -> None:
        module = sys._getframe(1).f_globals.get("__name__", "")
        if outside_store(module) and not isinstance(getattr(type(self), name, None), property):
            what = f"{module}: {type(self).__name__}.{name}"
            violations.append(what)
            raise WriteOutsideStore(f"store state written outside the store: {what}")
        plain(self, name, *value)

    return guard


def install() -> None:
    for cls in GUARDED:
        cls.__setattr__ = _guarded("__setattr__")  # type: ignore[method-assign,assignment]
        cls.__delattr__ = _guarded("__delattr__")  # type: ignore[method-assign,assignment]


def take() -> list[str]:
    seen = violations[:]
    violations.clear()
    return seen
