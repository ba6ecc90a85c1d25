"""acp-tui as installed, frozen on a key: F12 holds its event loop for good, as a piece of work
that never gives the loop back would (``spin``: a busy loop in Python, burning a core; ``sleep``:
a wait in C). For the journeys that a frozen acp-tui still ends on SIGHUP, SIGTERM or its
terminal closing, and takes its agent with it.

``python frozen_acp_tui.py spin|sleep ACP-TUI-ARGS...``; with ``FROZEN_MARK`` in the
environment, that file is written just before the loop freezes.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from textual import events

from acp_tui.cli.main import main
from acp_tui.ui.app import AcpTuiApp

MODE = sys.argv.pop(1)
_on_event = AcpTuiApp.on_event


async def on_event(self: AcpTuiApp, event: events.Event) -> None:
    if isinstance(event, events.Key) and event.key == "f12":
        mark = os.environ.get("FROZEN_MARK")
        if mark:
            Path(mark).write_text(MODE)
        if MODE == "spin":
            while True:
                pass
        time.sleep(3600)  # noqa: ASYNC251 (the point: a wait that holds the loop)
    await _on_event(self, event)


AcpTuiApp.on_event = on_event  # type: ignore[method-assign]

if __name__ == "__main__":
    sys.exit(main())
