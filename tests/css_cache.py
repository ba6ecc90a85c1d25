"""One parse of each stylesheet per test process, not one per app.

Textual keeps the rules it parsed in the app's own stylesheet, so every app a test builds
would parse the same CSS again (every widget's DEFAULT_CSS, the screens' .tcss files): about a
sixth of the CPU of an app's start here, over the ~450 apps of a run. The app shares parsed
rules within its process already (acp_tui/ui/textual_patches/css_cache.py, for its own
re-parses); the tests install it at collection, before any app, and keep more themes (the tests
try many). Not when its switch is off (``ACP_TUI_PATCHES``): a run with the patches off parses as
Textual does.
"""

from __future__ import annotations

from acp_tui.ui.textual_patches import css_cache, from_environment

#: Sets of theme variables kept in a test process.
TEST_THEMES = 64


def install() -> None:
    if from_environment()("css-cache"):
        css_cache.install(keep_themes=TEST_THEMES)
