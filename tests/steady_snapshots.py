"""Snapshots are taken with every text cursor shown steadily.

An input's or a text area's cursor blinks (shown, then hidden, every half second), so a
snapshot taken more than half a second after the focus came (a loaded machine, a slow
``run_before``) caught it hidden and differed from the one on file. The ``snap_compare``
fixture here wraps the plugin's: after ``run_before`` and the key presses, every input and
text area of every screen stops blinking, its cursor shown.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input, TextArea

RunBefore = Callable[[Pilot[Any]], Awaitable[None] | None]


def steady_cursors(pilot: Pilot[Any]) -> None:
    for screen in pilot.app.screen_stack:
        for field in screen.query(Input):
            field.cursor_blink = False
        for area in screen.query(TextArea):
            area.cursor_blink = False


def steady(compare: Callable[..., bool]) -> Callable[..., bool]:
    """``compare`` (the plugin's ``snap_compare``), its cursors steady when the shot is taken."""

    def steady_compare(
        app: Any,
        press: Iterable[str] = (),
        terminal_size: tuple[int, int] = (80, 24),
        run_before: RunBefore | None = None,
        **options: Any,
    ) -> bool:
        keys = tuple(press)

        async def before(pilot: Pilot[Any]) -> None:
            if run_before is not None:
                result = run_before(pilot)
                if inspect.isawaitable(result):
                    await result
            if keys:  # as the plugin presses them, once run_before is done
                await pilot.pause()
                await pilot.press(*keys)
            steady_cursors(pilot)
            await pilot.pause()

        return compare(app, terminal_size=terminal_size, run_before=before, **options)

    return steady_compare
