""" "Show sessions of: NAME", from the command palette (issue 19): a configured agent that is
not running is started in the background, only when the person asks (never at start-up),
and its sessions join the sidebar's list (the session browser across agents).

The agent runs through the app's workspace (:func:`acp_tui.session.listing.start_for_listing`),
in a worker of the app (it outlives this screen, and the app stops every agent of its
workspace when it quits); no session is opened in it until the person opens one of its rows.

:class:`OtherAgents` is a plain object the chat screen owns.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from textual.app import App, SystemCommand

from acp_tui.session.controller import AgentExit, LinkEvents
from acp_tui.session.listing import run_for_listing, start_for_listing
from acp_tui.session.settings import AppSettings
from acp_tui.session.workspace import AgentRunning, Workspace
from acp_tui.text.safety import one_line
from acp_tui.ui.models import Notify
from acp_tui.ui.widgets.sidebar import SessionsSidebar

if TYPE_CHECKING:
    from acp_tui.config.schema import AgentConfig

log = logging.getLogger(__name__)

__all__ = ["OtherAgents", "agent_key_of"]


def agent_key_of(agent: AgentConfig) -> str:
    """The workspace key of a configured agent: its command line, as the app keys the agent
    it starts (:attr:`acp_tui.session.settings.AppSettings.agent_key`)."""
    return " ".join(agent.argv)


def _configured_agents() -> dict[str, AgentConfig]:
    from acp_tui.config.load import load_config

    try:
        config, _ = load_config()
    except Exception:  # a config that cannot be read offers nothing here (the app said why)
        log.exception("reading the config for the palette")
        return {}
    return dict(config.agents)


class OtherAgents:
    """The configured agents that do not run: their sessions listed on request. ``sidebar``
    is the view's sidebar, ``app`` the app (its workers outlive the view)."""

    def __init__(
        self,
        workspace: Workspace,
        settings: AppSettings,
        *,
        notify: Notify,
        sidebar: Callable[[], SessionsSidebar],
        app: Callable[[], App[Any]],
    ) -> None:
        self.workspace = workspace
        self.settings = settings
        self.notify = notify
        self.sidebar = sidebar
        self.app = app

    def commands(self) -> Iterable[SystemCommand]:
        """One palette entry per configured agent that is not running in the workspace."""
        for name, agent in _configured_agents().items():
            link = self.workspace.get(agent_key_of(agent))
            if link is not None and not link.finished.is_set():
                continue
            label = one_line(name, 40)
            yield SystemCommand(
                f"Show sessions of: {label}",
                f"Start {label} in the background and list its sessions in the sidebar",
                lambda name=name, agent=agent: self.show_sessions_of(name, agent),
            )

    def show_sessions_of(self, name: str, agent: AgentConfig) -> None:
        """Start ``agent`` (configured as ``name``) to list its sessions, and show the
        sidebar."""
        key = agent_key_of(agent)
        label = one_line(agent.label or name, 40)
        settings = self.settings
        notify = self.notify

        def on_exit(info: AgentExit) -> None:
            if info.start_failed or not info.expected:
                notify(
                    f"{label} stopped: {one_line(info.description, 300)}",
                    title="Show sessions",
                    severity="error",
                )

        def on_error(text: str) -> None:
            notify(one_line(text, 300), title=label, severity="warning")

        try:
            link = start_for_listing(
                self.workspace,
                key,
                agent.argv,
                cwd=settings.cwd,
                events=LinkEvents(on_exit=on_exit, on_error=on_error),
                env=dict(agent.env) or None,
                mcp_servers=[server.model_dump() for server in agent.mcp_servers],
                log_dir=settings.log_dir,
                initialize_timeout=settings.initialize_timeout,
                protocol_version=agent.protocol or settings.protocol_version,
            )
        except AgentRunning:
            notify(f"{label} is running already: its sessions are in the list.")
            return
        sidebar = self.sidebar()
        if sidebar.model.directory is not None:
            sidebar.model.directory.names[key] = name
        sidebar.display = True
        self.app().run_worker(
            run_for_listing(link), name=f"list sessions of {label}", exit_on_error=False
        )
        notify(f"Starting {label} to list its sessions…", title="Show sessions")
