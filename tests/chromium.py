"""Headless Chromium, as the browser test of ``--serve`` and scripts/screenshots.py run it.

The flags are the ones this machine's closed network needs: without the background-networking
ones Chromium's connections are refused many at a time, and it looks up Google's hosts at
every start. Each caller adds its own window size and profile directory.
"""

from __future__ import annotations

import os
import shutil

__all__ = ["BROWSERS", "HEADLESS_FLAGS", "find_chromium"]

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
HEADLESS_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def find_chromium() -> str | None:
    """The installed Chromium (or Chrome), or None."""
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None
