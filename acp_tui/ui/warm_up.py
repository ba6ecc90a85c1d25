"""What the first reply needs, loaded in the background once the app is up.

Rich's Markdown, markdown-it and Pygments are left off the way to a ready prompt (about a sixth
of it); loaded by the first text drawn, they would stall that frame instead (70 ms on a 2-core
machine, in the middle of the first reply, while the person may be typing). A thread imports
them soon after start-up: with the app's short switch interval (1 ms) the event loop keeps
its turn, and should the first reply come first, its import simply waits for the thread's.
Only the running command line warms up (the tests' apps share one process that has it all).
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Sequence

__all__ = ["WARM_UP_AFTER", "WARM_UP_MODULES", "warm_up_in_background"]

log = logging.getLogger(__name__)

#: Seconds after the app is mounted: its first frames and the agent's handshake go first (at
#: 0.3 s the thread still slowed a launch to a ready prompt by a tenth on a 2-core machine).
WARM_UP_AFTER = 1.0
#: Imported by the first Markdown drawn.
WARM_UP_MODULES = ("acp_tui.ui.render.markdown",)


def _import_all(modules: Sequence[str]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # the first text drawn imports it again and says what is wrong
            log.exception("warm-up: could not import %s", name)


def warm_up_in_background(modules: Sequence[str] = WARM_UP_MODULES) -> threading.Thread:
    """Import ``modules`` in a daemon thread (started; returned for the tests)."""
    thread = threading.Thread(
        target=_import_all, args=(tuple(modules),), name="acp-tui-warm-up", daemon=True
    )
    thread.start()
    return thread
