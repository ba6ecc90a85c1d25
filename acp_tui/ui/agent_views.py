"""Several agents in one app: one chat view per running agent, each in its own Textual mode.

Why modes: a mode is a screen stack of its own, kept alive while another is shown. Each agent's
:class:`ChatScreen` (its transcript, prompt, drafts, queue, dialogs pushed over it) stays
mounted and keeps taking its agent's updates when the person looks at another agent, and
coming back is a switch of stacks: nothing is rebuilt, no turn is cancelled. Installed screens
would share one stack, where a dialog of one agent would sit on top of another agent's view.

The agents themselves (processes and controllers) live in the app's
:class:`~acp_tui.session.workspace.workspace.Workspace`, by agent key; this mixin of
:class:`~acp_tui.ui.app.AcpTuiApp` only creates, finds and switches the views. The same command
line twice is one agent: asking for it again shows the one running (its process runs many
sessions already).
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.app import App, SystemCommand
from textual.css.query import NoMatches

from acp_tui.session.launch.settings import AppSettings
from acp_tui.session.launch.spec import words_of_key
from acp_tui.session.workspace.workspace import Workspace
from acp_tui.ui.agent_text import line_of
from acp_tui.ui.keymap import effective_keys, key_label, key_words
from acp_tui.ui.palette import AgentCommand
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.chat.agent_name import agent_label
from acp_tui.ui.widgets.chat_header import ChatHeader

if TYPE_CHECKING:
    from acp_tui.config.load import Config
    from acp_tui.ui.preferences import UiSettings
    from acp_tui.ui.screens.launcher import LaunchChoice, LauncherScreen

__all__ = ["AgentViews"]

#: Mode names of the agents' views: ``agent-1``, ``agent-2``… (never reused in a run).
MODE_PREFIX = "agent-"


class AgentViews(App[int]):
    """The running agents' views (a mixin of the app: ``settings`` and ``workspace`` are the
    app's)."""

    settings: AppSettings
    workspace: Workspace

    def _init_agent_views(self) -> None:
        #: The view of each running agent, by agent key, in the order they were started.
        self.agent_views: dict[str, ChatScreen] = {}
        self._agent_modes: dict[str, str] = {}
        self._modes_made = 0

    # ------------------------------------------------------------------ opening

    def open_agent(self, settings: AppSettings, *, show: bool = True) -> ChatScreen:
        """The view of ``settings``' agent, made (its agent starts as it mounts) unless it runs
        already; shown when ``show``. Starting one never stops another."""
        assert settings.agent is not None, "a view is of an agent"
        key = settings.agent.key
        view = self.agent_views.get(key)
        if view is not None:
            if show:
                self.show_agent(key)
            return view
        self._modes_made += 1
        mode = f"{MODE_PREFIX}{self._modes_made}"
        view = ChatScreen(settings, self.workspace, self.ui_settings)
        self.agent_views[key] = view
        self._agent_modes[key] = mode
        self.add_mode(mode, lambda: view)
        if show or self.current_mode not in self._agent_modes.values():
            self.switch_mode(mode)
        else:
            # Mounted now, behind the view on screen: its agent starts at once.
            shown = self.current_mode
            self.switch_mode(mode)
            self.switch_mode(shown)
        self.call_after_refresh(self._label_views)
        return view

    def show_agent(self, agent_key: str) -> ChatScreen | None:
        """Switch to ``agent_key``'s view (what it was doing goes on; so does every other)."""
        view = self.agent_views.get(agent_key)
        if view is None:
            return None
        self.switch_mode(self._agent_modes[agent_key])
        self.call_after_refresh(self._label_views)
        return view

    def show_session(self, agent_key: str, session_id: str | None) -> None:
        """Switch to ``agent_key``'s view and open ``session_id`` there (None: the session it
        shows already). For the sessions of every agent in one list, and for "go to what needs
        you"."""
        view = self.show_agent(agent_key)
        if view is None:
            controller = self.workspace.get(agent_key)
            if controller is not None and not controller.finished.is_set():
                # Started only to list its sessions ("Show sessions of"): it gets a view now.
                self.run_worker(self._adopt(agent_key, session_id), exit_on_error=False)
                return
            self.notify(
                f"That agent is not running ({line_of(self._name_of(agent_key), 80)}).",
                severity="warning",
            )
            return
        if session_id is not None and session_id != view.session_id:
            view.open_session(session_id)
        elif view.is_mounted:
            view.focus_prompt()

    def _name_of(self, agent_key: str) -> str:
        """The agent of ``agent_key`` for a person: its label, else its name or command."""
        return self.workspace.labels.get(agent_key) or shlex.join(words_of_key(agent_key))

    async def _adopt(self, agent_key: str, session_id: str | None) -> None:
        """A view for an agent that runs without one (started to list its sessions): that
        process is stopped and the view starts the agent as it was started, reopening
        ``session_id`` (a view drives its own controller: its store, permissions, dialogs)."""
        spec = self.workspace.spec_of(agent_key)
        if spec is None:
            return
        settings = dataclasses.replace(
            self.settings,
            agent=spec,
            resume=session_id,
            continue_latest=False,
            process_factory=None,
            replay=None,
        )
        await self.workspace.stop(agent_key)
        if agent_key not in self.agent_views:
            self.open_agent(settings)

    @property
    def shown_view(self) -> ChatScreen | None:
        """The view of the agent on screen (under any dialog of its own), or None (the
        launcher)."""
        key = self._shown_agent_key()
        return self.agent_views.get(key) if key is not None else None

    def is_shown(self, view: ChatScreen) -> bool:
        """Whether ``view`` is the agent view on screen: a view behind another agent's keeps
        running, and what it would show (a dialog, a toast) must say whose it is or wait."""
        return view in self.screen_stack

    def _label_views(self) -> None:
        """Each view's header says which agent of how many it is (nothing when there is one)."""
        total = len(self.agent_views)
        keys = key_label(self, "next-agent", "the palette")
        for position, view in enumerate(self.agent_views.values(), start=1):
            try:
                header = view.query_one(ChatHeader)
            except NoMatches:
                continue  # not composed yet: labelled on the next change
            header.set_agents(position, total, keys)

    # ------------------------------------------------------------------ switching

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_agent":
            return len(self.agent_views) > 1
        return super().check_action(action, parameters)

    def action_next_agent(self) -> None:
        """The next running agent's view, round the list."""
        keys = list(self.agent_views)
        if len(keys) < 2:
            return
        current = self._shown_agent_key()
        index = keys.index(current) if current in keys else -1
        self.show_agent(keys[(index + 1) % len(keys)])

    def _shown_agent_key(self) -> str | None:
        return next(
            (key for key, mode in self._agent_modes.items() if mode == self.current_mode), None
        )

    def agent_switch_commands(self) -> Iterable[AgentCommand]:
        """Palette entries "Switch to AGENT" for the other running agents (literal: the names
        may be the agents' own)."""
        shown = self._shown_agent_key()
        keys = effective_keys(self, "next-agent")
        hint = f" ({key_words(keys[0])} goes to the next)" if keys else ""
        for key, view in self.agent_views.items():
            if key == shown:
                continue
            yield AgentCommand(
                f"Switch to {agent_label(view.spec, view.controller)}",
                f"Show this agent's view; every agent keeps running{hint}",
                lambda key=key: self.show_agent(key),  # type: ignore[misc]
            )

    def agent_system_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "Start agent…",
            "Run one more agent beside this one (configured, found on PATH, or the demo)",
            self.action_start_agent,
        )

    # ------------------------------------------------------------------ starting another

    def action_start_agent(self) -> None:
        """The launcher, over the current view: the agent picked there starts beside the
        others (one already running is shown instead)."""
        from acp_tui.ui.screens.launcher import LauncherScreen

        choices = [
            dataclasses.replace(choice, running=True)
            if choice.source.key in self.agent_views
            else choice
            for choice in self._launcher_choices()
        ]
        self.push_screen(LauncherScreen(choices, self.config_location, closable=True))

    def _launcher_choices(self) -> list[LaunchChoice]:
        raise NotImplementedError  # the app's

    config_location: str
    config: Config | None
    ui_settings: UiSettings

    def start_chosen_agent(self, event: LauncherScreen.Chosen) -> None:
        """The launcher's choice: the first agent of the app, or one more."""
        from acp_tui.ui.screens.launcher import LauncherScreen, settings_for_choice

        if isinstance(self.screen, LauncherScreen) and len(self.screen_stack) > 1:
            self.pop_screen()  # over a running agent's view: it goes, the view stays
        settings, problems = settings_for_choice(self.settings, event.choice, self.config)
        for problem in problems:
            self.notify(problem, title="configuration", severity="warning", timeout=20)
        if self.agent_views:
            # One more agent: not the first one's session to resume, nor its early process.
            settings = dataclasses.replace(
                settings, resume=None, continue_latest=False, process_factory=None, replay=None
            )
        else:
            self.settings = settings
        running = settings.agent is not None and settings.agent.key in self.agent_views
        self.open_agent(settings)
        if running:
            self.notify(f"{line_of(event.choice.label, 60)} is running already: here it is.")
