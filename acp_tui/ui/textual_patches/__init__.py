"""Everything acp-tui does with Textual's private API, behind one version gate and one switch
per patch.

Textual's private names (``textual._*`` modules, ``_attributes`` of its objects, methods it
does not document) change between releases without notice. acp-tui uses a few, each for a
measured reason (bench/README.md, "What each Textual patch buys"), and only here:
tests/ui/test_private_api.py fails on any use outside this package.

- :func:`install` is called once per app, as it is made: it decides the app's patches
  (:mod:`.switches`: the supported Textual range, ``ACP_TUI_PATCHES``) and installs those
  that act on the app or the process; :func:`install_screen` those of the chat screen.
  Widgets ask :func:`switches_of` their app.
- :mod:`.access` reads private state Textual offers no public way to read; it changes
  nothing, so it has no switch, and gives a public approximation where a name is gone.
- Every patch has a switch and the app works with any of them off (CI runs the whole suite
  once more with ``ACP_TUI_PATCHES=none``), only slower or, for a patch that works around a
  Textual bug, with that bug back (docs/upstream/ holds the issue text for Textual).
- With a Textual outside :data:`~.switches.SUPPORTED_TEXTUAL` every patch is off.

A new patch: a module here, its line in :data:`~.switches.PATCHES`, its installation below
(or on its screen), a test that the app still works with it off, and its row in
bench/README.md.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from acp_tui.ui.textual_patches.switches import (
    ENV,
    PATCHES,
    SUPPORTED_TEXTUAL,
    Patch,
    Switches,
    from_environment,
)

if TYPE_CHECKING:
    from textual import events
    from textual.app import App
    from textual.screen import Screen
    from textual.widget import Widget

    from acp_tui.ui.textual_patches.paint_gate import Pacer

__all__ = [
    "ENV",
    "PATCHES",
    "SUPPORTED_TEXTUAL",
    "Patch",
    "Switches",
    "from_environment",
    "install",
    "install_screen",
    "switches_of",
]

log = logging.getLogger(__name__)

#: Each app's switches, as :func:`install` decided them.
_apps: WeakKeyDictionary[App[Any], Switches] = WeakKeyDictionary()


def install(
    app: App[Any],
    switches: Switches | None = None,
    *,
    key_read: Callable[[events.Key], None] | None = None,
) -> Switches:
    """Decide ``app``'s patches (default: from the environment and the installed Textual) and
    install those that act on the app or the process (call as the app is made, before it
    runs). ``key_read`` hears each key as the terminal's input thread reads it (called in
    that thread). Returns the switches: the caller shows their ``problems`` to the person (a
    misspelt name in ``ACP_TUI_PATCHES``)."""
    switches = from_environment() if switches is None else switches
    _apps[app] = switches
    if switches.gated:
        log.warning("%s", switches.gated)
    if switches("css-cache"):
        from acp_tui.ui.textual_patches import css_cache

        css_cache.install()
    if switches("key-order"):
        from acp_tui.ui.textual_patches import key_order

        key_order.install(app)
    if switches("input-thread") and key_read is not None:
        from acp_tui.ui.textual_patches import driver

        driver.hear_keys(app, key_read)
    if switches("dead-terminal"):
        from acp_tui.ui.textual_patches import driver

        driver.resume_only_after_stop(app)
    if switches("early-keys"):
        from acp_tui.ui.textual_patches import early_keys

        early_keys.install(app)
    # For the process: the last app made decides (one app a process, but for tests).
    from acp_tui.ui.textual_patches import inert_output

    if switches("inert-output"):
        inert_output.install()
    else:
        inert_output.uninstall()
    return switches


def switches_of(app: App[Any]) -> Switches:
    """The switches :func:`install` decided for ``app`` (from the environment if none)."""
    switches = _apps.get(app)
    return from_environment() if switches is None else switches


def install_screen(
    screen: Screen[Any],
    *,
    pacer: Pacer | None = None,
    typing_target: Callable[[], Widget | None] | None = None,
) -> Switches:
    """Install the patches that act on one screen, as its app's switches say (call from the
    screen's ``__init__``, before it is laid out): ``compositor``, ``restyle``, and, given the
    screen's pacer and the widget typed into, ``paint-gate``."""
    try:
        app = screen.app
    except Exception:  # a screen made outside its app: the environment decides
        switches = from_environment()
    else:
        switches = switches_of(app)
    if switches("compositor"):
        from acp_tui.ui.textual_patches import compositor

        compositor.install(screen)
    if switches("restyle"):
        from acp_tui.ui.textual_patches import restyle

        restyle.install(screen)
    if switches("paint-gate") and pacer is not None and typing_target is not None:
        from acp_tui.ui.textual_patches import paint_gate

        paint_gate.install(screen, pacer, typing_target)
    return switches
