"""Waiting on a condition in async tests that have no Pilot (a Pilot test uses
``tests.ui.chat_helpers.wait_for``): polled, never a fixed sleep, with a limit far above a
loaded machine's worst case."""

from __future__ import annotations

from collections.abc import Callable

import anyio


async def until(condition: Callable[[], object], what: str, limit: float = 10.0) -> None:
    """Return once ``condition()`` is true; fail naming ``what`` after ``limit`` seconds."""
    with anyio.move_on_after(limit):
        while not condition():
            await anyio.sleep(0.01)
        return
    raise AssertionError(f"timed out after {limit:g} s waiting for {what}")
