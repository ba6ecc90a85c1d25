"""The chat screen, as a package: :mod:`.screen` composes and wires it; each other module is
one of its jobs, a plain object the screen owns (the drawing, the agent, dialogs, options,
the palette, ...).

The names below are what the rest of the app and the tests use.
"""

from acp_tui.ui.screens.chat.common import data_dir, display_title, history_path
from acp_tui.ui.screens.chat.screen import ChatScreen
from acp_tui.ui.widgets.agent_banner import AgentBanner
from acp_tui.ui.widgets.chat_header import ChatHeader
from acp_tui.ui.widgets.queue_view import QueuedItem

__all__ = [
    "AgentBanner",
    "ChatHeader",
    "ChatScreen",
    "QueuedItem",
    "data_dir",
    "display_title",
    "history_path",
]
