"""The chat screen and the local session index: sessions started here (for agents that
cannot list them), titles given here, and what a new session of this agent offered last time.

A mixin of :class:`~acp_tui.ui.screens.chat.screen.ChatScreen` (typed as a
:class:`~acp_tui.ui.screens.chat.host.ChatHost`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from acp_tui.config import locations
from acp_tui.store.local_index import LocalIndex
from acp_tui.store.session import SessionState
from acp_tui.text.safety import sanitize_terminal_text
from acp_tui.ui.screens.chat.common import data_dir

log = logging.getLogger(__name__)


if TYPE_CHECKING:
    from acp_tui.ui.screens.chat.host import ChatHost
else:
    ChatHost = object


class LocalIndexGlue(ChatHost):
    """Open the index, and keep it up to date with the store."""

    def _open_index(self) -> None:
        """The local session index: sessions started here, for agents that cannot list."""
        path = locations.local_index_file(data_dir(self.settings))
        self.index = LocalIndex(path, self.settings.agent_key)
        self.model.index = self.index
        self.index.forget_unused()
        for warning in self.index.warnings:
            self.notify(sanitize_terminal_text(warning), severity="warning", timeout=10)
        self.index.warnings.clear()
        self.store.apply_index_records(self.index.sessions())
        self.apply_local_titles()
        self.model.new_choices.defaults = self.index.defaults()

    def _index_records_of(self, agent_key: str) -> list[Any]:
        """What the local index remembers of another agent of the workspace (the session
        browser across agents shows it for agents that cannot list); this screen's own agent
        has it already (:meth:`_open_index`)."""
        if agent_key == self.settings.agent_key:
            return []
        path = locations.local_index_file(data_dir(self.settings))
        with LocalIndex(path, agent_key) as index:
            return list(index.sessions())

    def _remember(self, state: SessionState) -> None:
        # A draft is remembered once it has a prompt: the agent may never keep it otherwise.
        # An archived one is not offered from the index (the agent lists it as archived).
        if state.draft or not state.live or not state.id or state.archived:
            return
        if self.index.remember_session(state) is False:
            log.warning("session index: %s", "; ".join(self.index.warnings))
            self.index.warnings.clear()

    def _remember_commands(self, state: SessionState | None) -> None:
        commands = state.commands if state is not None else None
        if commands and commands != self.model.new_choices.defaults.get("commands"):
            self.index.remember_defaults({"commands": commands})
            self.model.new_choices.defaults = {
                **self.model.new_choices.defaults,
                "commands": commands,
            }

    def _on_session_created(self, session_id: str, response: Any) -> None:
        """Remember what a new session of this agent offers: the next "New session" shows its
        mode and model selectors before it exists."""
        if not isinstance(response, dict):
            return
        offered = {
            key: response[key]
            for key in ("modes", "configOptions", "models")
            if isinstance(response.get(key), dict | list)
        }
        if offered:
            self.index.remember_defaults(offered)
            self.model.new_choices.defaults = {**self.model.new_choices.defaults, **offered}

    def _reapply_choices(self, state: SessionState) -> None:
        """Re-apply the options chosen earlier that the agent does not report."""
        self.reapply_options(state)
