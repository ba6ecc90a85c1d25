"""What the app needs to know to start: the agent, where, and how to answer permissions."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from acp_tui.config import locations

if TYPE_CHECKING:
    from acp_tui.protocol.client import ProcessFactory
    from acp_tui.protocol.recording import WireRecorder
    from acp_tui.session.replay import ReplaySession

PermissionPolicy = Literal["ask", "yolo", "deny"]


@dataclass(slots=True)
class AppSettings:
    """Resolved start-up settings, from the command line (and later the config file)."""

    agent_argv: list[str]
    cwd: str = field(default_factory=os.getcwd)
    agent_label: str = ""
    permission_policy: PermissionPolicy = "ask"
    #: ``None``: a new session (made by the first message); ``""``: choose among this
    #: directory's sessions (the most recent highlighted); else the id of one to reopen.
    resume: str | None = None
    #: With ``resume == ""``: do not ask, open the most recent one that has a conversation.
    continue_latest: bool = False
    env: dict[str, str] | None = None
    mcp_servers: list[dict[str, Any]] = field(default_factory=list)
    #: Where each agent's stderr log goes; the prestarted agent and the controller both read it.
    log_dir: Path = field(default_factory=locations.log_dir)
    data_dir: Path | None = None
    theme: str | None = None
    show_sidebar: bool | None = None
    notify_when_unfocused: bool = True
    #: Desktop notifications through the terminal (``desktop_notifications`` in the config);
    #: off unless the config (or its default) says so: tests and embedders stay quiet.
    desktop_notifications: Literal["off", "osc9", "osc777", "both"] = "off"
    #: The window title says what needs the person (``terminal_title``); off like the above.
    terminal_title: bool = False
    #: ``--record FILE``: every connection's wire goes there.
    recorder: WireRecorder | None = None
    #: ``acp-tui replay FILE``: the agent is the recording.
    replay: ReplaySession | None = None
    #: Makes the agent's process for a launch (acp_tui.protocol.client.ProcessFactory); the
    #: command line passes one that hands over the agent it started before the UI
    #: (acp_tui.session.prestart). None: spawn as usual.
    process_factory: ProcessFactory | None = None
    #: Seconds to wait for the answer to initialize before saying the agent is not responding.
    initialize_timeout: float = 30.0
    #: Absolute directories every session works in besides its cwd (``--add-dir``, the
    #: agent's ``additional_directories``), sent when the agent takes them.
    additional_dirs: list[str] = field(default_factory=list)
    #: Configured keys, action id to keys (``[keys]``, checked): the app's keymap.
    keymap: dict[str, str] = field(default_factory=dict)
    #: The ACP version asked for at initialize (``--protocol``, ``protocol`` in the config).
    protocol_version: int = 1
    #: Offer the agent the client's file access (``client_files`` in its config); None: as
    #: :func:`acp_tui.config.known_agents.offers_client_files` says for its command.
    client_files: bool | None = None

    @property
    def agent_key(self) -> str:
        """Identifies the agent in the local session index."""
        return " ".join(self.agent_argv)
