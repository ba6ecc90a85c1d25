"""Reading fields of raw ``session/update`` JSON: a wrong type raises, for the reducer to turn
into an :class:`~acp_tui.store.entries.UnknownUpdate` (agent input never raises further).

One bad item of an array does not make the whole update wrong: :class:`LeftOut` keeps the
good items, leaves the bad one out, and says so once in the log."""

from __future__ import annotations

import logging
from collections import deque
from typing import Any

__all__ = ["MISSING", "LeftOut", "opt_str", "req_str", "type_error"]

log = logging.getLogger(__name__)

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


class LeftOut:
    """Items of the agent's arrays that were left out (they are no objects), while the rest
    of their update or answer is taken. Collected per update by :meth:`objects`, then said
    by :meth:`report`: one log line per update, and not again while the same source repeats
    the same fault (a plan re-sent with each step would flood the log); the messages, newest
    last, stay in :attr:`said`."""

    __slots__ = ("_last", "items", "said")

    #: Items named in one message at most (the count says the rest).
    NAMED = 5

    def __init__(self) -> None:
        #: Of the update being applied.
        self.items: list[str] = []
        self.said: deque[str] = deque(maxlen=200)
        self._last: dict[str, str] = {}

    def objects(self, v: Any, name: str, *, some: bool = True) -> list[dict[str, Any]]:
        """The objects of the array ``v``, each other item left out (and noted). Not an
        array at all, or (``some``) an array with items but no object among them: the field
        itself is wrong, and that raises (the update is not taken, so what it would have
        replaced stays)."""
        if not isinstance(v, list):
            raise type_error(name, "an array", v)
        for item in v:
            if item.__class__ is not dict and not isinstance(item, dict):
                break
        else:
            return v  # the usual case: nothing to leave out, no copy
        kept: list[dict[str, Any]] = []
        for i, item in enumerate(v):
            if isinstance(item, dict):
                kept.append(item)
            else:
                self.items.append(f"{name}[{i}] (expected an object, got {type(item).__name__})")
        if some and not kept:
            self.items.clear()
            raise type_error(f"{name}[0]", "an object", v[0])
        return kept

    def report(self, where: str) -> None:
        """Say what :meth:`objects` left out of the update or answer ``where`` names."""
        items, self.items = self.items, []
        if not items:
            return
        named = "; ".join(items[: self.NAMED])
        more = f" and {len(items) - self.NAMED} more" if len(items) > self.NAMED else ""
        message = f"{where}: left out {named}{more}; the rest was taken"
        self.said.append(message)
        if self._last.get(where) == message:
            return
        if len(self._last) >= 1000:
            self._last.clear()
        self._last[where] = message
        log.warning("%s", message)
