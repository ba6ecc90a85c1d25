"""How the app runs its agents: the first one, how permissions are answered, which session
opens at start, where things are kept. What each agent is started with is its
:class:`~acp_tui.session.launch.spec.AgentSpec`; how the screen looks is the UI's
(:class:`acp_tui.ui.preferences.UiSettings`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from acp_tui.config import locations
from acp_tui.session.launch.spec import AgentSpec, LaunchOptions

if TYPE_CHECKING:
    from acp_tui.protocol.client import ProcessFactory
    from acp_tui.protocol.recording import WireRecorder
    from acp_tui.session.launch.replay import ReplaySession

PermissionPolicy = Literal["ask", "yolo", "deny"]


@dataclass(slots=True)
class AppSettings:
    """Resolved start-up settings, from the command line and the config file."""

    #: The agent to run first; None: the launcher asks which.
    agent: AgentSpec | None = None
    #: What the command line says of every agent of this run (those picked later too).
    options: LaunchOptions = field(default_factory=LaunchOptions)
    permission_policy: PermissionPolicy = "ask"
    #: ``None``: a new session (made by the first message); ``""``: choose among this
    #: directory's sessions (the most recent highlighted); else the id of one to reopen.
    resume: str | None = None
    #: With ``resume == ""``: do not ask, open the most recent one that has a conversation.
    continue_latest: bool = False
    #: Where each agent's stderr log goes; the prestarted agent and the controller both read it.
    log_dir: Path = field(default_factory=locations.log_dir)
    data_dir: Path | None = None
    #: The config's ``[export] redact_patterns`` (name -> regular expression).
    redact_patterns: dict[str, str] = field(default_factory=dict)
    #: ``--record FILE``: every connection's wire goes there.
    recorder: WireRecorder | None = None
    #: ``acp-tui replay FILE``: the agent is the recording.
    replay: ReplaySession | None = None
    #: Makes the agent's process for a launch (acp_tui.protocol.client.ProcessFactory); the
    #: command line passes one that hands over the agent it started before the UI
    #: (acp_tui.session.launch.prestart). None: spawn as usual.
    process_factory: ProcessFactory | None = None
