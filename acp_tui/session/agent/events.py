"""What a :class:`~acp_tui.session.agent.controller.SessionController` is given by the face that
drives it (the Textual app, headless, a test): how it reaches the person (:class:`FaceHooks`),
where its process comes from (:class:`ProcessSetup`), and the callbacks it talks back through
(:class:`ControllerEvents`) with what they are told."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.protocol.agent_info import AgentInfo
from acp_tui.text.safety import one_line

if TYPE_CHECKING:
    from acp_tui.protocol.client import ProcessFactory
    from acp_tui.protocol.recording import WireRecorder
    from acp_tui.services.paths import ApproveOutside
    from acp_tui.session.auth.signin import AuthChooser, TerminalRunner
    from acp_tui.session.auth.status import AuthStatus

__all__ = [
    "AgentExit",
    "AgentInfo",
    "ControllerEvents",
    "FaceHooks",
    "NotResponding",
    "PermissionHandler",
    "ProcessSetup",
]

PermissionHandler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


#: The longest exit description shown (it may quote a whole error message of the agent's).
EXIT_DESCRIPTION_LIMIT = 1000


@dataclass(slots=True)
class NotResponding:
    """The agent has not answered ``initialize`` in time: what it did print, for the banner."""

    seconds: float
    #: The first lines it printed on stdout that were not ACP (JSON-RPC) messages.
    printed: list[str]
    #: How many such lines there were in all.
    printed_count: int
    stderr_tail: list[str]


@dataclass(slots=True)
class ControllerEvents:
    """How the controller talks back to whoever drives it (the Textual app, `ask`, a test)."""

    on_ready: Callable[[AgentInfo], None] = lambda agent: None
    on_status: Callable[[str], None] = lambda text: None
    on_error: Callable[[str], None] = lambda text: None
    on_session_opened: Callable[[str], None] = lambda session_id: None
    #: A ``session/new`` answered (its raw answer): what a new session of this agent offers.
    on_session_created: Callable[[str, Any], None] = lambda session_id, response: None
    on_turn_ended: Callable[[str, str | None], None] = lambda session_id, reason: None
    on_exit: Callable[[AgentExit], None] = lambda exit_info: None
    on_terminal_output: Callable[[str], None] = lambda terminal_id: None
    on_not_responding: Callable[[NotResponding], None] = lambda report: None
    #: The agent's sign-in state, as it told it (``auth/status``) or pushed it.
    on_auth_status: Callable[[AuthStatus], None] = lambda status: None
    #: ``session/options``: what a new session of this agent would offer, before it exists.
    on_session_options: Callable[[Any], None] = lambda response: None


@dataclass(slots=True)
class AgentExit:
    """Why the agent is gone, for the banner."""

    description: str
    returncode: int | None
    stderr_tail: list[str]
    expected: bool
    start_failed: bool = False
    log_path: str | None = None
    #: Lines it printed on stdout that were not ACP messages (the first few).
    printed: list[str] = field(default_factory=list)
    #: How the process ended, as the process says it ("exit code 3", "killed by SIGKILL";
    #: "running" while it still runs, its output closed).
    status: str = ""
    #: The agent stopped reading its input: acp-tui could not write to it, and stopped it.
    closed_input: bool = False
    #: v2, work in flight (a prompt whose answer was lost, or a turn running): a face may
    #: start the agent again on its own (see acp_tui.session.agent.reconnect).
    reconnect: bool = False

    def __post_init__(self) -> None:
        # The description quotes the agent (its initialize error, what it printed): shown in
        # the banner and, for a start failure, printed on the real terminal after the app
        # exits. One printable line, whoever reads it.
        self.description = one_line(self.description, EXIT_DESCRIPTION_LIMIT)


@dataclass(frozen=True, slots=True)
class FaceHooks:
    """How the controller reaches the person, as the face that drives it can: every hook is
    optional (a test, an agent started only to list its sessions)."""

    events: ControllerEvents = field(default_factory=ControllerEvents)
    #: Answers ``session/request_permission``; None: the permission broker of the agent's
    #: parts (:class:`~acp_tui.session.launch.factory.AgentParts`), else ``cancelled``.
    permission_handler: PermissionHandler | None = None
    #: Asks before a file or a command outside the session's directories (None: refused).
    approve_outside: ApproveOutside | None = None
    #: Picks a sign-in method (None: the error names the methods).
    choose_auth: AuthChooser | None = None
    #: Runs a terminal sign-in method in the person's terminal.
    run_terminal_login: TerminalRunner | None = None
    #: Whether terminal sign-in methods can run here (not in a browser, not in a replay).
    terminal_auth: bool = True
    #: Whether the face offers the agent's prompt suggestions for the person to take (the
    #: TUI: chips under the prompt); advertised only then (``session.promptSuggestions``).
    offers_suggestions: bool = False
    #: Whether the face shows a new session's options before it exists (the TUI's new
    #: session view): only then is ``session/options`` asked.
    shows_new_session_options: bool = False
    #: Whether the face shows what the agent reports of terminals of its own (the TUI's tool
    #: blocks); advertised only then (``_meta.terminal_output``): an agent told so sends that
    #: output in ``_meta`` alone, which a face that does not show it would lose.
    shows_agent_terminals: bool = False


@dataclass(frozen=True, slots=True)
class ProcessSetup:
    """Where the agent's process comes from and what is kept of its wire."""

    #: Where its stderr log goes (None: kept in memory only).
    log_dir: Path | None = None
    #: ``--record FILE``: every connection's wire goes there.
    recorder: WireRecorder | None = None
    #: Makes the process (the one started before the UI, a replay's stand-in); None: spawn.
    process_factory: ProcessFactory | None = None
    #: Whether the agent's ``fs/*`` and ``terminal/*`` requests may act on this machine.
    #: False for a replay: a recording is a file anyone can write.
    machine_access: bool = True
