"""Everything acp-tui does with Textual's private API, behind one version gate and one switch
per patch.

Textual's private names (``textual._*`` modules, ``_attributes`` of its objects, methods it
does not document) change between releases without notice. acp-tui uses a few, each for a
measured reason (bench/README.md, "What each Textual patch buys"), and only here:
tests/ui/test_private_api.py fails on any use outside this package.

- :func:`install` is called once per app, as it is made: it decides the app's patches
  (:mod:`.switches`: the supported Textual range, ``ACP_TUI_PATCHES``) and installs those
  that act on the app or the process. Screens ask :func:`switches_of` for theirs.
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
from typing import Any
from weakref import WeakKeyDictionary

from acp_tui.ui.textual_patches.switches import (
    ENV,
    PATCHES,
    SUPPORTED_TEXTUAL,
    Patch,
    Switches,
    from_environment,
)

__all__ = [
    "ENV",
    "PATCHES",
    "SUPPORTED_TEXTUAL",
    "Patch",
    "Switches",
    "from_environment",
    "install",
    "switches_of",
]

log = logging.getLogger(__name__)

#: Each app's switches, as :func:`install` decided them.
_apps: WeakKeyDictionary[Any, Switches] = WeakKeyDictionary()


def install(app: Any, switches: Switches | None = None) -> Switches:
    """Decide ``app``'s patches (default: from the environment and the installed Textual) and
    install those that act on the app or the process. Returns them: the caller shows their
    ``problems`` to the person (a misspelt name in ``ACP_TUI_PATCHES``)."""
    switches = from_environment() if switches is None else switches
    _apps[app] = switches
    if switches.gated:
        log.warning("%s", switches.gated)
    if switches("css-cache"):
        from acp_tui.ui.textual_patches import css_cache

        css_cache.install()
    return switches


def switches_of(app: Any) -> Switches:
    """The switches :func:`install` decided for ``app`` (from the environment if none)."""
    switches = _apps.get(app)
    return from_environment() if switches is None else switches
