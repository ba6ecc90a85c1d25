"""The suite's heap stays small between tests (tests/conftest.py): Textual's style cache, which
keeps drawn widgets' styles caches (and their lines) alive after their app has gone, is
emptied after each test. Measured on tests/ui/test_chat.py: the heap grew by ~15,000 objects a
test without it, and stays flat with it."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from tests.conftest import empty_textual_style_cache

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
