"""What the person calls a chat screen's agent, and the title of a toast from a screen that is
not on screen (several agents: "The agent exited" must say which one).

Plain functions of the screen (typed as a :class:`~acp_tui.ui.screens.chat.host.ChatHost`):
the app's agent views (:mod:`acp_tui.ui.agent_views`) use them too, without an import cycle.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from acp_tui.ui.agent_text import line_of

if TYPE_CHECKING:
    from acp_tui.ui.screens.chat.host import ChatHost

__all__ = ["agent_label", "background_title"]


def agent_label(screen: ChatHost) -> str:
    """The screen's agent: its configured label, else the name it gave at initialize, else its
    program's name. One line, literal."""
    link = screen.link
    name = screen.settings.agent_label or (link.agent.display_name if link and link.agent else "")
    if not name and screen.settings.agent_argv:
        name = os.path.basename(screen.settings.agent_argv[0])
    return line_of(name or "agent", 60)


def background_title(screen: ChatHost, title: str) -> str:
    """A toast's title from a screen that is not the agent view on screen names its agent, when
    the app runs several (see :meth:`acp_tui.ui.agent_views.AgentViews.is_shown`)."""
    app = screen.app
    views = getattr(app, "agent_views", None)
    if not views or len(views) < 2 or screen in app.screen_stack:
        return title
    label = agent_label(screen)
    return f"{label}: {title}" if title else label
