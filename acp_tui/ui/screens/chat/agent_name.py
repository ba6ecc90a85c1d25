"""What the person calls a chat view's agent, and the title of a toast from a view that is not
on screen (several agents: "The agent exited" must say which one).

Plain functions: the app's agent views (:mod:`acp_tui.ui.agent_views`) use them too.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from acp_tui.session.launch.spec import AgentSpec
from acp_tui.ui.agent_text import line_of

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from acp_tui.session.agent.controller import SessionController

__all__ = ["agent_label", "background_title"]


def agent_label(spec: AgentSpec, controller: SessionController | None) -> str:
    """A view's agent: its configured label, else the name it gave at initialize, else its
    program's name. One line, literal."""
    name = spec.label or (controller.agent.display_name if controller and controller.agent else "")
    if not name and spec.argv:
        name = os.path.basename(spec.argv[0])
    return line_of(name or "agent", 60)


def background_title(
    app: App[Any],
    view: Screen[Any],
    title: str,
    spec: AgentSpec,
    controller: SessionController | None,
) -> str:
    """A toast's title from ``view`` when it is not the agent view on screen names its agent,
    when the app runs several (see :meth:`acp_tui.ui.agent_views.AgentViews.is_shown`)."""
    views = getattr(app, "agent_views", None)
    if not views or len(views) < 2 or view in app.screen_stack:
        return title
    label = agent_label(spec, controller)
    return f"{label}: {title}" if title else label
