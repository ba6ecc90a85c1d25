""" "Show sessions of: NAME", from the command palette (issue 19): a configured agent that is
not running is started in the background, only when the person asks (never at start-up),
and its sessions join the sidebar's list (the session browser across agents).

The agent runs through the app's workspace (:func:`acp_tui.session.workspace.listing.start_for_listing`),
in a worker of the app (it outlives this screen, and the app stops every agent of its
workspace when it quits); no session is opened in it until the person opens one of its rows.

:class:`OtherAgents` is a plain object the chat screen owns.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from textual.app import App

from acp_tui.session.agent.controller import AgentExit, ControllerEvents
from acp_tui.session.agent.events import FaceHooks, ProcessSetup
from acp_tui.session.launch.resolve import resolve_agent
from acp_tui.session.launch.settings import AppSettings
from acp_tui.session.launch.spec import AgentSource, AgentSpec
from acp_tui.session.workspace.listing import run_for_listing, start_for_listing
from acp_tui.session.workspace.workspace import AgentRunning, Workspace
from acp_tui.text.safety import one_line
from acp_tui.ui.models import Notify
from acp_tui.ui.palette import AgentCommand
from acp_tui.ui.widgets.sidebar import SessionsSidebar

if TYPE_CHECKING:
    from acp_tui.config.load import Config

log = logging.getLogger(__name__)

__all__ = ["OtherAgents"]


def _config() -> Config | None:
    from acp_tui.config.load import load_config

    try:
        config, _ = load_config()
    except Exception:  # a config that cannot be read offers nothing here (the app said why)
        log.exception("reading the config for the palette")
        return None
    return config


class OtherAgents:
    """The configured agents that do not run: their sessions listed on request. ``spec`` is
    the view's agent, ``sidebar`` the view's sidebar, ``app`` the app (its workers outlive the
    view)."""

    def __init__(
        self,
        workspace: Workspace,
        settings: AppSettings,
        spec: AgentSpec,
        *,
        notify: Notify,
        sidebar: Callable[[], SessionsSidebar],
        app: Callable[[], App[Any]],
    ) -> None:
        self.workspace = workspace
        self.settings = settings
        self.spec = spec
        self.notify = notify
        self.sidebar = sidebar
        self.app = app

    def commands(self) -> Iterable[AgentCommand]:
        """One palette entry per configured agent that is not running in the workspace. Its
        name is the config's words, shown literally (never read as markup)."""
        config = _config()
        if config is None:
            return
        for name in config.agents:
            controller = self.workspace.get(AgentSource.configured(name).key)
            if controller is not None and not controller.finished.is_set():
                continue
            label = one_line(name, 40)
            yield AgentCommand(
                f"Show sessions of: {label}",
                f"Start {label} in the background and list its sessions in the sidebar",
                functools.partial(self.show_sessions_of, name, config),
            )

    def show_sessions_of(self, name: str, config: Config) -> None:
        """Start the agent configured as ``name`` to list its sessions, and show the
        sidebar."""
        settings = self.settings
        # Its sessions join this view's list: it works in this view's directory (unless --cwd).
        here = dataclasses.replace(settings.options, cwd=settings.options.cwd or self.spec.cwd)
        spec = resolve_agent(AgentSource.configured(name), config, here).spec
        key = spec.key
        label = one_line(spec.label or name, 40)
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
            controller = start_for_listing(
                self.workspace,
                spec,
                FaceHooks(events=ControllerEvents(on_exit=on_exit, on_error=on_error)),
                ProcessSetup(log_dir=settings.log_dir),
            )
        except AgentRunning:
            notify(f"{label} is running already: its sessions are in the list.")
            return
        sidebar = self.sidebar()
        if sidebar.model.directory is not None:
            sidebar.model.directory.names[key] = name
        sidebar.display = True
        self.app().run_worker(
            run_for_listing(controller), name=f"list sessions of {label}", exit_on_error=False
        )
        notify(f"Starting {label} to list its sessions…", title="Show sessions")
