"""One parse of each stylesheet per test process, not one per app.

Textual keeps the rules it parsed in the app's own stylesheet, so every app a test builds
would parse the same CSS again (every widget's DEFAULT_CSS, the screens' .tcss files): about a
sixth of the CPU of an app's start here, over the ~450 apps of a run. The app shares parsed
rules within its process already (acp_tui/ui/css_cache.py, for its own re-parses); the tests
install it at collection, before any app, and keep more themes (the tests try many).
"""

from __future__ import annotations

from acp_tui.ui import css_cache

#: Sets of theme variables kept in a test process.
TEST_THEMES = 64


def install() -> None:
    css_cache.install(keep_themes=TEST_THEMES)
