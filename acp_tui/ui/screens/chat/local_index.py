"""The chat view and the local session index: sessions started here (for agents that cannot
list them), titles given here, and what a new session of this agent offered last time.

:class:`IndexSync` is a plain object the screen owns: it opens the index at mount and keeps it
up to date with the store's changes the screen hands it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from acp_tui.config import locations
from acp_tui.session.launch.settings import AppSettings
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.store.local_index import LocalIndex
from acp_tui.store.session import SessionState
from acp_tui.text.safety import sanitize_terminal_text
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.screens.chat.common import data_dir

__all__ = ["IndexSync"]

#: What a ``session/new`` answer offers that the next new session shows before it exists.
OFFERED_KEYS = ("modes", "configOptions", "models")

log = logging.getLogger(__name__)


class IndexSync:
    """Open the index of ``spec``'s agent, and keep it up to date with the store. ``reapply``
    sets again the options a reopened session's agent forgot; ``spec_of`` gives another agent's
    spec by its key (the workspace's)."""

    def __init__(
        self,
        model: ChatModel,
        settings: AppSettings,
        spec: AgentSpec,
        reapply: Callable[[SessionState], None],
        spec_of: Callable[[str], AgentSpec | None],
    ) -> None:
        self.model = model
        self.settings = settings
        self.spec = spec
        self.reapply = reapply
        self.spec_of = spec_of

    @property
    def index(self) -> LocalIndex | None:
        return self.model.index

    def open(self) -> LocalIndex:
        """The local session index of this view's agent: its sessions go into the store, its
        titles over the agent's, its remembered new-session offer to the new session."""
        model = self.model
        path = locations.local_index_file(data_dir(self.settings))
        index = model.index = LocalIndex(path, self.spec.key, legacy=self.spec.legacy_key)
        index.forget_unused()
        for warning in index.warnings:
            model.notify(sanitize_terminal_text(warning), severity="warning", timeout=10)
        index.warnings.clear()
        model.store.apply_index_records(index.sessions())
        self.apply_local_titles()
        model.new_choices.defaults = index.defaults()
        return index

    def apply_local_titles(self) -> None:
        """The titles given here to sessions of agents that cannot store them."""
        index = self.index
        if index is None:
            return
        for session_id, title in index.local_titles().items():
            self.model.store.pin_title(session_id, title)

    def records_of(self, agent_key: str) -> list[Any]:
        """What the local index remembers of another agent of the workspace (the session
        browser across agents shows it for agents that cannot list); this view's own agent
        has it already (:meth:`open`)."""
        if agent_key == self.spec.key:
            return []
        path = locations.local_index_file(data_dir(self.settings))
        spec = self.spec_of(agent_key)
        with LocalIndex(path, agent_key, legacy=spec.legacy_key if spec else None) as index:
            return list(index.sessions())

    def remember(self, state: SessionState) -> None:
        # A draft is remembered once it has a prompt: the agent may never keep it otherwise.
        # An archived one is not offered from the index (the agent lists it as archived), a
        # subagent neither (it is its parent's, never reopened on its own).
        index = self.index
        if index is None or state.draft or not state.live or not state.id or state.archived:
            return
        if state.parent_id is not None:
            return
        if index.remember_session(state) is False:
            log.warning("session index: %s", "; ".join(index.warnings))
            index.warnings.clear()

    def remember_commands(self, state: SessionState | None) -> None:
        choices = self.model.new_choices
        commands = state.commands if state is not None else None
        index = self.index
        if index is not None and commands and commands != choices.defaults.get("commands"):
            index.remember_defaults({"commands": commands})
            choices.defaults = {**choices.defaults, "commands": commands}

    def session_created(self, session_id: str, response: Any) -> None:
        """Remember what a new session of this agent offers: the next "New session" shows its
        mode and model selectors before it exists. What it no longer offers is forgotten (an
        agent that stopped sending ``modes`` had the names of the run before it shown for
        good)."""
        index = self.index
        if index is None or not isinstance(response, dict):
            return
        offered = {
            key: response[key] for key in OFFERED_KEYS if isinstance(response.get(key), dict | list)
        }
        index.remember_defaults(offered, forget=OFFERED_KEYS)
        choices = self.model.new_choices
        kept = {key: value for key, value in choices.defaults.items() if key not in OFFERED_KEYS}
        choices.defaults = {**kept, **offered}

    def options_offered(self, response: Any) -> None:
        """``session/options`` answered: the options a new session would start with, fresher
        than those its last new session offered (remembered the same way). v2 adds the
        commands it would have."""
        if not isinstance(response, dict):
            return
        offered: dict[str, Any] = {}
        if isinstance(response.get("configOptions"), list):
            offered["configOptions"] = response["configOptions"]
        if isinstance(response.get("availableCommands"), list):
            offered["commands"] = response["availableCommands"]
        if not offered:
            return
        index = self.index
        if index is not None:
            index.remember_defaults(offered)
        choices = self.model.new_choices
        choices.defaults = {**choices.defaults, **offered}

    def session_opened(self, state: SessionState) -> None:
        """A session opened: the options it had here set again, and it is remembered."""
        self.reapply(state)
        self.remember(state)
