"""A person sees a dialog arming (issue 36): until its keys act, every dialog that acts starts
its hint line with a meter that fills step by step; armed, the meter is gone; typing at it
(which disarms it) empties the meter again. Every :class:`ArmedDialog` of the UI, through the
key gate test's makers."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Static

from acp_tui.ui.screens.armed import ARMING_CELLS, ArmedDialog, arming_meter
from tests.ui.chat_helpers import wait_for
from tests.ui.test_dialog_key_gate import DIALOGS, SIZE, Host

pytestmark = pytest.mark.anyio

#: Long enough to see the meter at several steps on a busy machine.
ARM = 10.0
EMPTY, FULL = "▱", "▰"


def hint(dialog: ArmedDialog[Any]) -> str:
    return str(dialog.query_one("#hint", Static).content)


def filled(dialog: ArmedDialog[Any]) -> int | None:
    """The meter's filled cells; None when the hint shows no meter."""
    text = hint(dialog)
    meter = text[:ARMING_CELLS]
    if len(meter) < ARMING_CELLS or set(meter) - {EMPTY, FULL}:
        return None
    return meter.count(FULL)


def test_the_meter_fills_with_the_time_to_arm() -> None:
    assert [arming_meter(p) for p in (0.0, 0.19, 0.2, 0.5, 0.99, 1.0, 1.5, -1.0)] == [
        "▱▱▱▱▱",
        "▱▱▱▱▱",
        "▰▱▱▱▱",
        "▰▰▱▱▱",
        "▰▰▰▰▱",
        "▰▰▰▰▰",
        "▰▰▰▰▰",
        "▱▱▱▱▱",
    ]


@pytest.mark.parametrize("name", DIALOGS)
async def test_every_dialog_shows_itself_arming_then_armed(name: str) -> None:
    """Shown, the meter is there and fills on its own (its timer, not the test, moves it);
    at each point of the wait it shows how far the dialog is; armed, it is gone."""
    app = Host(DIALOGS[name], ARM)
    async with app.run_test(size=SIZE) as pilot:
        dialog = app.dialog
        await wait_for(pilot, lambda: dialog._shown_at is not None, "the dialog shown")
        await wait_for(pilot, lambda: filled(dialog) is not None, "the meter")
        first = filled(dialog)
        assert first is not None and first < ARMING_CELLS, hint(dialog)
        await wait_for(pilot, lambda: (filled(dialog) or 0) > first, "the meter filling")
        # Where it stands at each point of the wait (the clock moved back to that point).
        for part, cells in ((0.0, 0), (0.45, 2), (0.7, 3)):
            dialog._shown_at = dialog.event_now() - part * ARM
            dialog._arm_later()
            await pilot.pause()
            assert not dialog.armed and filled(dialog) in (cells, cells + 1), hint(dialog)
        dialog._shown_at = dialog.event_now() - ARM
        dialog._arm_later()
        await wait_for(pilot, lambda: dialog.armed, "the dialog armed")
        await pilot.pause()
        assert filled(dialog) is None and EMPTY not in hint(dialog), hint(dialog)


async def test_typing_at_a_dialog_empties_its_meter_again() -> None:
    app = Host(DIALOGS["PermissionScreen"], ARM)
    async with app.run_test(size=SIZE) as pilot:
        dialog = app.dialog
        await wait_for(pilot, lambda: dialog._shown_at is not None, "the dialog shown")
        dialog._shown_at = dialog.event_now() - ARM  # shown long enough
        dialog._arm_later()
        await wait_for(pilot, lambda: dialog.armed, "the dialog armed")
        await pilot.press("h", "i")
        await wait_for(pilot, lambda: not dialog.armed, "disarmed by typing")
        await pilot.pause()
        assert filled(dialog) in (0, 1), hint(dialog)
        assert app.typed_text() == "hi"
