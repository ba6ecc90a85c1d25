"""The chat view's command palette entries. Its own commands are the app's system commands
(:meth:`acp_tui.ui.app.AcpTuiApp.get_system_commands` lists them, with Textual's); entries in
the agent's words go through :class:`acp_tui.ui.palette.AgentCommands`, a palette ``Provider``
that shows them literally.

:class:`ChatPalette` is a plain object the screen owns: it lists the entries of the view's
parts (its tools, session actions, dialogs, options) and of the screen's own actions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from textual.app import SystemCommand

from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.palette import AgentCommand
from acp_tui.ui.screens.chat.modals import ChatDialogs
from acp_tui.ui.screens.chat.session_actions import SessionActions
from acp_tui.ui.screens.chat.subagents import Subagents
from acp_tui.ui.screens.chat.tools import ChatTools, system_prompt_state

__all__ = ["ChatPalette", "ViewActions"]


@dataclass(frozen=True, slots=True)
class ViewActions:
    """The screen's own actions the palette offers (each is also a key)."""

    new_session: Callable[[], object]
    toggle_thoughts: Callable[[], object]
    toggle_sidebar: Callable[[], object]
    restart_agent: Callable[[], object]


class ChatPalette:
    """The palette entries of the chat view. ``key_words`` names the key of a binding id as
    configured ("Ctrl+N"), None without one; ``highlighted`` is the session highlighted in
    the sidebar (of this view's agent), ``other_agents`` the "Show sessions of" entries,
    ``options`` the entries of the session's options and ``agent_switches`` the app's
    "Switch to AGENT" entries."""

    def __init__(
        self,
        model: ChatModel,
        *,
        actions: ViewActions,
        tools: ChatTools,
        sessions: SessionActions,
        dialogs: ChatDialogs,
        rules: Callable[[], object],
        key_words: Callable[[str], str | None],
        highlighted: Callable[[], str | None],
        other_agents: Callable[[], Iterable[AgentCommand]],
        options: Callable[[], Iterable[AgentCommand]],
        agent_switches: Callable[[], Iterable[AgentCommand]],
        rewind: Callable[[], Iterable[SystemCommand]] = tuple,
        review_writes: Callable[[], Iterable[SystemCommand]] = tuple,
        subagents: Subagents | None = None,
    ) -> None:
        self.model = model
        self.actions = actions
        self.tools = tools
        self.sessions = sessions
        self.dialogs = dialogs
        #: Shows the permission rules (Ctrl+P → Permission rules).
        self.rules = rules
        self.key_words = key_words
        self.highlighted = highlighted
        self.other_agents = other_agents
        self.options = options
        self.agent_switches = agent_switches
        #: "Rewind…" and "Changes of this turn" (acp_tui.ui.screens.chat.rewind).
        self.rewind = rewind
        #: "Review writes: on/off" (acp_tui.ui.screens.chat.write_review).
        self.review_writes = review_writes
        #: Background work, and a subagent's view's own entries.
        self.subagents = subagents

    def _with_key(self, text: str, action_id: str) -> str:
        """A palette entry's help with the key that does the same (as configured)."""
        words = self.key_words(action_id)
        return f"{text} ({words})" if words else text

    def system_commands(self) -> Iterable[SystemCommand]:
        actions, tools = self.actions, self.tools
        yield SystemCommand(
            "New session",
            self._with_key("Start a new session with this agent", "new-session"),
            actions.new_session,
        )
        yield SystemCommand(
            "Toggle thoughts", "Show or hide the agent's reasoning", actions.toggle_thoughts
        )
        yield SystemCommand(
            "Copy last reply",
            self._with_key("Copy the agent's last message", "copy-reply"),
            tools.copy_last_reply,
        )
        yield SystemCommand(
            "Copy last code block",
            self._with_key(
                "Copy the code of the last code block (a click on a code block copies it)",
                "copy-code",
            ),
            tools.copy_last_code,
        )
        yield SystemCommand(
            "Export transcript",
            "Save this session as Markdown in acp-tui's exports folder, secrets redacted "
            "(each one reviewed first)",
            tools.export_transcript,
        )
        yield SystemCommand(
            "Export transcript as HTML",
            "One self-contained page in acp-tui's exports folder, secrets redacted "
            "(each one reviewed first)",
            lambda: tools.export_transcript("html"),
        )
        yield SystemCommand("Show agent log", "The agent's recent stderr lines", tools.show_stderr)
        yield SystemCommand(
            "Protocol inspector",
            "The raw JSON-RPC traffic of this connection",
            tools.show_inspector,
        )
        yield SystemCommand(
            "Context details", "Token usage, cost and the last turn", tools.context_details
        )
        controller = self.model.controller
        prompt = controller.system_prompt if controller is not None else None
        if controller is not None and prompt is not None:
            yield SystemCommand(
                "System prompt",
                f"{prompt.describe()}; {system_prompt_state(controller.system_prompt_sent)}",
                tools.show_system_prompt,
            )
        yield SystemCommand(
            "Permission rules",
            "The rules that answer permission requests before the dialog: list, add, edit",
            self.rules,
        )
        yield from self.review_writes()
        yield SystemCommand(
            "Toggle sessions sidebar",
            self._with_key("Show or hide past sessions", "sessions-sidebar"),
            actions.toggle_sidebar,
        )
        if self.subagents is not None:
            yield from self.subagents.palette_commands()
        yield from self.sessions.palette_commands()
        yield from self.rewind()
        yield from self._highlighted_commands()
        if controller is not None and self.model.agent_alive and controller.sign_in.needs_sign_in:
            yield SystemCommand(
                "Sign in", "The agent says you are not signed in: sign in now", self.dialogs.sign_in
            )
        if controller is not None and self.model.agent_alive and controller.can_logout:
            yield SystemCommand(
                "Log out", "Sign out of the agent (asks first)", self.dialogs.confirm_logout
            )
        if not self.model.agent_alive:
            yield SystemCommand(
                "Restart agent",
                self._with_key("Start the agent again and reopen this session", "restart-agent"),
                actions.restart_agent,
            )

    def _highlighted_commands(self) -> Iterable[SystemCommand]:
        """Close and delete the session highlighted in the sidebar, when the agent can."""
        controller = self.model.controller
        agent = controller.agent if controller else None
        if agent is None or not self.highlighted():
            return
        if agent.can_close:
            yield SystemCommand(
                "Close session",
                "Close the highlighted session in the sidebar",
                lambda: self.sessions.close(self.highlighted()),
            )
        if agent.can_delete:
            yield SystemCommand(
                "Delete session",
                "Delete the highlighted session (asks first)",
                lambda: self.sessions.delete(self.highlighted()),
            )

    def agent_commands(self) -> Iterable[AgentCommand]:
        """Palette entries named by the agent (its options): see :mod:`acp_tui.ui.palette`;
        then "Switch to AGENT" for the app's other running agents and "Show sessions of" for
        the configured ones (their names are outside text)."""
        yield from self.options()
        if self.subagents is not None:
            yield from self.subagents.agent_commands()
        yield from self.agent_switches()
        yield from self.other_agents()
