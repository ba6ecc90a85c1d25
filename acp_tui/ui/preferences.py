"""How the app looks and tells things: the UI's share of the config file and the command line
(the agents and how they run are the session layer's :class:`~acp_tui.session.launch.settings.
AppSettings`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["UiSettings"]


@dataclass(frozen=True, slots=True)
class UiSettings:
    """The theme, the sidebar, notifications, the window title and the keys."""

    #: A theme name (``--theme``, ``theme`` in the config); None: Textual's default.
    theme: str | None = None
    #: Show the sessions sidebar at start (``sidebar``); None: when the window is wide.
    show_sidebar: bool | None = None
    #: Ring the bell when something needs the person while the app is not in front.
    notify_when_unfocused: bool = True
    #: Desktop notifications through the terminal (``desktop_notifications`` in the config);
    #: off unless the config (or its default) says so: tests and embedders stay quiet.
    desktop_notifications: Literal["off", "osc9", "osc777", "both"] = "off"
    #: The window title says what needs the person (``terminal_title``); off like the above.
    terminal_title: bool = False
    #: Configured keys, action id to keys (``[keys]``, checked): the app's keymap.
    keymap: Mapping[str, str] = field(default_factory=dict)
