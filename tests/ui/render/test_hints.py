"""Key hints wrap between hints, never inside one, and no row ends with a separator."""

from __future__ import annotations

import io
from typing import Any

import anyio
import pytest
from rich.console import Console

from acp_tui.ui.render.hints import SEPARATOR, KeyHints, pack_hints
from acp_tui.ui.screens.permission import PermissionScreen
from tests.ui.chat_helpers import wait_for
from tests.ui.test_permission_dialog import BrokerApp, edit_params, wait_armed
from tests.ui.test_resilience import screen_text

HINTS = ["1-4 choose", "↑↓ + Enter", "Esc reject", "r raw input", "PgUp/PgDn scroll"]


@pytest.mark.parametrize("width", [1, 10, 20, 40, 60, 75, 200])
def test_rows_hold_whole_hints_and_fit(width: int) -> None:
    rows = pack_hints(HINTS, width)
    assert [hint for row in rows for hint in row.split(SEPARATOR)] == HINTS
    for row in rows:
        assert len(row) <= width or SEPARATOR not in row  # only a lone hint may overflow
        assert not row.endswith("·") and not row.startswith(SEPARATOR.strip())


def test_rendered_at_a_width_a_long_hint_is_wrapped_alone() -> None:
    console = Console(width=12, file=io.StringIO(), record=True)
    console.print(KeyHints(["ab", "a hint longer than twelve"]))
    rows = console.export_text().splitlines()
    assert rows[0].rstrip() == "ab"
    assert all(len(row) <= 12 for row in rows)
    assert " ".join(row.strip() for row in rows[1:]) == "a hint longer than twelve"


@pytest.mark.anyio
async def test_the_permission_dialogs_hints_at_80_columns_leave_no_separator_hanging() -> None:
    """Codex's tester at 80x24: "Esc reject  ·  r raw input  ·" then "PgUp/PgDn scroll"."""
    app = BrokerApp()
    async with app.run_test(size=(80, 24)) as pilot:
        results: list[Any] = []

        async def ask() -> None:
            results.append(await app.broker.request(edit_params()))

        async with anyio.create_task_group() as group:
            group.start_soon(ask)
            await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen), "the dialog")
            dialog = app.screen
            assert isinstance(dialog, PermissionScreen)
            await wait_armed(pilot, dialog)
            await pilot.pause()
            rows = [row.strip(" │▊▎▔▁╭╮╰╯").rstrip() for row in screen_text(app).splitlines()]
            assert any("PgUp/PgDn scroll" in row for row in rows)
            assert not [row for row in rows if row.endswith("·")]
            await pilot.press("escape")


@pytest.mark.anyio
async def test_the_protocol_inspectors_counts_are_whole_at_80_columns(tmp_path: Any) -> None:
    """Codex's tester: "… invalid 0 · unknown resp" cut at the dialog's edge."""
    from acp_tui.ui.screens.inspector import InspectorScreen
    from tests.ui.chat_helpers import chat, demo_app, wait_for_session

    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_session(pilot)
        chat(app).tools.show_inspector()
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        await wait_for(
            pilot, lambda: "unknown responses 0" in screen_text(app), "every count, whole"
        )
        assert "save as a recording (for acp-tui replay)" in screen_text(app)
