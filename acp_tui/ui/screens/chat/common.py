"""What several parts of the chat screen use: how a session title shows, and where the data
of this app lives (from :mod:`acp_tui.config.locations` unless the settings say otherwise)."""

from __future__ import annotations

from pathlib import Path

from acp_tui.config import locations
from acp_tui.session.launch.settings import AppSettings
from acp_tui.text.safety import one_line

__all__ = ["TITLE_DISPLAY_LIMIT", "data_dir", "display_title", "history_path"]

TITLE_DISPLAY_LIMIT = 500


def display_title(text: str | None, limit: int = TITLE_DISPLAY_LIMIT) -> str:
    return one_line(text or "", limit)


def data_dir(settings: AppSettings) -> Path:
    if settings.data_dir is not None:
        return settings.data_dir
    return locations.data_dir()


def history_path(settings: AppSettings) -> Path:
    return locations.history_file(data_dir(settings))
