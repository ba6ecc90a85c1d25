"""The chat screen's command palette entries. Its own commands are the app's system commands
(:meth:`acp_tui.ui.app.AcpTuiApp.get_system_commands` lists them, with Textual's); entries in
the agent's words go through :class:`acp_tui.ui.palette.AgentCommands`, a palette ``Provider``
that shows them literally.

A mixin of :class:`~acp_tui.ui.screens.chat.screen.ChatScreen` (typed as a
:class:`~acp_tui.ui.screens.chat.host.ChatHost`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from acp_tui.ui.keymap import effective_keys, key_words
from acp_tui.ui.palette import AgentCommand
from acp_tui.ui.screens.chat.auth_actions import auth_palette_commands
from acp_tui.ui.screens.chat.other_agents import show_sessions_commands

if TYPE_CHECKING:
    from acp_tui.ui.screens.chat.host import ChatHost
else:
    ChatHost = object


class ChatPalette(ChatHost):
    """The palette entries of the chat screen."""

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "New session",
            self._with_key("Start a new session with this agent", "new-session"),
            self.action_new_session,
        )
        yield SystemCommand(
            "Toggle thoughts", "Show or hide the agent's reasoning", self.action_toggle_thoughts
        )
        yield SystemCommand(
            "Copy last reply",
            self._with_key("Copy the agent's last message", "copy-reply"),
            self.tools.copy_last_reply,
        )
        yield SystemCommand(
            "Export transcript",
            "Save this session as Markdown in the working directory",
            self.tools.export_transcript,
        )
        yield SystemCommand(
            "Show agent log", "The agent's recent stderr lines", self.tools.show_stderr
        )
        yield SystemCommand(
            "Protocol inspector",
            "The raw JSON-RPC traffic of this connection",
            self.tools.show_inspector,
        )
        yield SystemCommand(
            "Context details", "Token usage, cost and the last turn", self.tools.context_details
        )
        yield SystemCommand(
            "Toggle sessions sidebar",
            self._with_key("Show or hide past sessions", "sessions-sidebar"),
            self.action_toggle_sidebar,
        )
        yield from self.session_actions.palette_commands()
        yield from show_sessions_commands(self)
        agent = self.link.agent if self.link else None
        if agent is not None and self._sidebar_target():
            if agent.can_close:
                yield SystemCommand(
                    "Close session",
                    "Close the highlighted session in the sidebar",
                    self.action_close_session,
                )
            if agent.can_delete:
                yield SystemCommand(
                    "Delete session",
                    "Delete the highlighted session (asks first)",
                    self.action_delete_session,
                )
        yield from auth_palette_commands(self)
        if not self.agent_alive:
            yield SystemCommand(
                "Restart agent",
                self._with_key("Start the agent again and reopen this session", "restart-agent"),
                self.action_restart_agent,
            )

    def _with_key(self, text: str, action_id: str) -> str:
        """A palette entry's help with the key that does the same (as configured)."""
        keys = effective_keys(self, action_id)
        return f"{text} ({key_words(keys[0])})" if keys else text

    def agent_commands(self) -> Iterable[AgentCommand]:
        """Palette entries named by the agent (its options): see :mod:`acp_tui.ui.palette`."""
        yield from self.option_commands()
        # "Switch to AGENT" for the app's other running agents (their names are agent text).
        switches = getattr(self.app, "agent_switch_commands", None)
        if callable(switches):
            yield from switches()
