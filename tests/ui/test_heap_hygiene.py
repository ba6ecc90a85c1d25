"""The suite's heap stays small between tests (tests/conftest.py): Textual's style cache, which
keeps drawn widgets' styles caches (and their lines) alive after their app has gone, is
emptied after each test. Measured on tests/ui/test_chat.py: the heap grew by ~15,000 objects a
test without it, and stays flat with it. And an app that has ended is not kept alive."""

from __future__ import annotations

import asyncio
import gc
import weakref
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.terminal_signals import signals_of
from tests.conftest import empty_textual_style_cache
from tests.ui.chat_helpers import fixture_app, wait_for_session

pytestmark = pytest.mark.anyio


class Drawn(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("drawn")


async def test_the_cache_an_app_filled_is_emptied() -> None:
    from textual._styles_cache import StylesCache

    async with Drawn().run_test() as pilot:
        await pilot.pause()
    # The cache this is about: an app that drew filled it (Textual may rename it: then fail).
    assert StylesCache.get_inner_outer.cache_info().currsize > 0
    empty_textual_style_cache()
    assert StylesCache.get_inner_outer.cache_info().currsize == 0


async def test_an_app_that_has_ended_is_not_kept_alive(tmp_path: Path) -> None:
    """A real app on an agent, once it has ended, is garbage: nothing of acp_tui keeps it (and
    its screens and widgets) alive. A registry that held it (the terminal signals' value held
    its own weak key) kept every app of a test process: ~25,000 objects a test, each full
    collection walking all of them (a fifth of a Pilot test's CPU)."""

    async def run_to_the_end() -> weakref.ref[AcpTuiApp]:
        app = fixture_app(tmp_path)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for_session(pilot)
            signals_of(app).bell()
        return weakref.ref(app)

    # psutil, imported by the app's first agent launch (acp_tui.protocol.reaper), keeps the
    # sys.stdout of its import as a default argument (psutil._common.print_color): Textual's
    # capture of the app running then. A process has one app; here it must not be this one.
    import psutil  # noqa: F401

    # In a task of its own: Textual's "active app" context variable goes with the task's context.
    ended = await asyncio.create_task(run_to_the_end())
    gc.collect()
    left = ended()
    assert left is None, f"the ended app is still referred to by: {held_by(left)}"


def held_by(obj: object) -> list[str]:
    return sorted({type(referrer).__qualname__ for referrer in gc.get_referrers(obj)})
