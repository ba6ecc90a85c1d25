"""Numbers from the wire that are not tokens or costs (those are checked in the store): sizes,
schema bounds, counts. JSON has no range: ``10**400`` is a valid integer, and Python turns
it into a float only by raising ``OverflowError`` (``float()``, ``math.isfinite()``, a
division). Whatever reads such a number takes it through :func:`wire_number` once, and a
number out of range is unknown, never a crash.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["MAX_WIRE_INTEGER", "wire_number"]

#: The largest integer magnitude believed (a signed 64-bit integer: what agents' own types
#: hold); anything bigger is a mistake or an attack.
MAX_WIRE_INTEGER = 2**63 - 1


def wire_number(value: Any, *, low: float | None = None) -> int | float | None:
    """``value`` when it is a finite number within ±:data:`MAX_WIRE_INTEGER` (and at least
    ``low``), else None; never a bool or a string."""
    if value.__class__ is int:
        ok = -MAX_WIRE_INTEGER <= value <= MAX_WIRE_INTEGER
    elif value.__class__ is float:
        ok = math.isfinite(value) and abs(value) <= MAX_WIRE_INTEGER
    else:
        return None
    if not ok or (low is not None and value < low):
        return None
    number: int | float = value
    return number
