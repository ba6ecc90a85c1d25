"""The chat screen, as a package: :mod:`.screen` composes and wires it; the other modules
each do one of its jobs (options, session actions, sign-out, ...).

The names below are what the rest of the app and the tests use.
"""

from acp_tui.ui.screens.chat.screen import (
    AgentBanner,
    ChatHeader,
    ChatScreen,
    QueuedItem,
    data_dir,
    display_title,
    history_path,
)

__all__ = [
    "AgentBanner",
    "ChatHeader",
    "ChatScreen",
    "QueuedItem",
    "data_dir",
    "display_title",
    "history_path",
]
