"""What the first reply needs, loaded in the background once the app is up.

Rich's Markdown, markdown-it and Pygments are left off the way to a ready prompt (about a sixth
of it); loaded by the first text drawn, they would stall that frame instead (70 ms on a 2-core
machine, in the middle of the first reply, while the person may be typing). A thread imports
them soon after start-up: with the app's short switch interval (1 ms) the event loop keeps
its turn, and should the first reply come first, its import simply waits for the thread's.
Only the running command line warms up (the tests' apps share one process that has it all).

Pygments builds a lexer's regular expressions the first time the lexer is made: Python's
took 110 ms here, JavaScript's 70, TypeScript's 50. The thread makes the lexers coding agents
use most, so that the first code block of a reply finds them ready. (Started at once when
the app resumes a session, it made the way to the replayed session's last entry slower, not
faster: the replay keeps the loop busy, and the thread took turns from it.)
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Sequence

__all__ = [
    "WARM_UP_AFTER",
    "WARM_UP_LEXERS",
    "WARM_UP_MODULES",
    "warm_up_in_background",
]

log = logging.getLogger(__name__)

#: Seconds after the app is mounted: its first frames and the agent's handshake go first (at
#: 0.3 s the thread still slowed a launch to a ready prompt by a tenth on a 2-core machine).
WARM_UP_AFTER = 1.0
#: Imported by the first Markdown drawn.
WARM_UP_MODULES = ("acp_tui.ui.render.markdown",)
#: Fence languages whose lexers are made ahead, most used first.
WARM_UP_LEXERS = ("python", "bash", "diff", "json", "typescript", "javascript")


def _warm_up(modules: Sequence[str], lexers: Sequence[str]) -> None:
    # First: the stylesheets this launch parsed, for the next one (textual_patches.css_cache),
    # kept even if this one is killed or crashes before it ends.
    from acp_tui.ui.textual_patches import css_cache

    css_cache.save_to_disk()
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # the first text drawn imports it again and says what is wrong
            log.exception("warm-up: could not import %s", name)
    if not lexers:
        return
    try:
        from acp_tui.ui.render.markdown import lexer_for_fence
    except Exception:  # logged above
        return
    for language in lexers:
        try:
            # Kept by the renderer: the first fence of this language finds it made.
            if lexer_for_fence(language) is None:
                log.info("warm-up: Pygments has no lexer for %s", language)
        except Exception:
            log.exception("warm-up: could not make the lexer for %s", language)


def warm_up_in_background(
    modules: Sequence[str] = WARM_UP_MODULES, lexers: Sequence[str] = WARM_UP_LEXERS
) -> threading.Thread:
    """Import ``modules`` and make ``lexers`` in a daemon thread (started; returned for the
    tests)."""
    thread = threading.Thread(
        target=_warm_up,
        args=(tuple(modules), tuple(lexers)),
        name="acp-tui-warm-up",
        daemon=True,
    )
    thread.start()
    return thread
