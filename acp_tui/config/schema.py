"""The config file's schema: pydantic models, validated strictly.

Kept apart from :mod:`acp_tui.config.load` so that its paths and helpers (and the start-up with no
config file) do not load pydantic; :mod:`acp_tui.config.load` re-exports every name here.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Discriminator, Field, Tag

from acp_tui.config.defaults import (
    DEFAULT_CHECKPOINT_KEEP_PER_SESSION,
    DEFAULT_CHECKPOINT_KEEP_TOTAL,
    DEFAULT_CHECKPOINT_MAX_FILE_KB,
    DEFAULT_CHECKPOINT_MAX_FILES,
    DEFAULT_DESKTOP_NOTIFICATIONS,
    DEFAULT_INITIALIZE_TIMEOUT,
    DEFAULT_LOG_KEEP,
    DEFAULT_LOG_MEGABYTES,
    DEFAULT_NOTIFICATIONS,
    DEFAULT_PERMISSION_POLICY,
)

__all__ = [
    "AgentConfig",
    "BudgetConfig",
    "Config",
    "ExportConfig",
    "LogsConfig",
    "McpHttpServer",
    "McpServerConfig",
    "McpSseServer",
    "McpStdioServer",
    "ProjectConfig",
    "SystemPromptConfig",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, use_attribute_docstrings=True)


class McpStdioServer(_Strict):
    """An MCP server the agent starts as a subprocess (every agent supports these)."""

    type: Literal["stdio"] = "stdio"
    """Transport: ``"stdio"`` (the default when ``type`` is left out)."""
    name: str
    """Human-readable name of the server, shown to the agent."""
    command: str
    """The server's executable: an absolute path, or a name looked up on PATH."""
    args: list[str] = Field(default_factory=list)
    """Arguments for the command."""
    env: dict[str, str] = Field(default_factory=dict)
    """Environment variables for the server process (secrets are fine here: the client
    passes them to the agent and stores them nowhere else)."""


class McpHttpServer(_Strict):
    """An MCP server reached over streamable HTTP (only if the agent advertises it)."""

    type: Literal["http"]
    """Transport: ``"http"``."""
    name: str
    """Human-readable name of the server, shown to the agent."""
    url: str
    """URL of the MCP endpoint."""
    headers: dict[str, str] = Field(default_factory=dict)
    """HTTP headers for every request, e.g. ``Authorization``."""


class McpSseServer(_Strict):
    """An MCP server reached over server-sent events (only if the agent advertises it)."""

    type: Literal["sse"]
    """Transport: ``"sse"``."""
    name: str
    """Human-readable name of the server, shown to the agent."""
    url: str
    """URL of the SSE endpoint."""
    headers: dict[str, str] = Field(default_factory=dict)
    """HTTP headers for every request, e.g. ``Authorization``."""


def _mcp_kind(value: Any) -> str | None:
    if isinstance(value, dict):
        kind = value.get("type", "stdio")
        return kind if kind in ("stdio", "http", "sse") else None
    if isinstance(value, BaseModel):
        return getattr(value, "type", None)
    return None


McpServerConfig = Annotated[
    Annotated[McpStdioServer, Tag("stdio")]
    | Annotated[McpHttpServer, Tag("http")]
    | Annotated[McpSseServer, Tag("sse")],
    Discriminator(
        _mcp_kind,
        custom_error_type="mcp_type",
        custom_error_message='type must be "stdio", "http" or "sse"',
    ),
]


def _key_spec(value: Any) -> Any:
    # One clear message rather than one per member of the union.
    if isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(item, str) for item in value)
    ):
        return value
    raise ValueError('must be a key such as "ctrl+k", several comma-separated, or a list of them')


#: The keys of one action in ``[keys]``: ``"ctrl+k"``, ``"f2, ctrl+b"`` or ``["f2", "ctrl+b"]``.
KeySpec = Annotated[str | list[str], BeforeValidator(_key_spec)]


class SystemPromptConfig(_Strict):
    """A system prompt with its mode: ``{ text = "...", mode = "override" }``."""

    text: str
    """The instructions, or ``@FILE``: the text of that file (``~`` expanded; a relative path
    is taken from the config file's folder, or for a project from the project's folder)."""
    mode: Literal["append", "override"] = "append"
    """``"append"``: added to the agent's own instructions; ``"override"``: replaces its
    built-in default instructions (only agents that advertise it take this)."""


def _system_prompt(value: Any) -> Any:
    # A plain string is the text, appended.
    return {"text": value} if isinstance(value, str) else value


#: ``system_prompt = "..."`` (or ``"@FILE"``), or ``{ text = "...", mode = "override" }``.
SystemPromptSetting = Annotated[SystemPromptConfig, BeforeValidator(_system_prompt)]

#: The built-in items of the status line under the prompt (``status_items``), in the order
#: the person lists them.
StatusItem = Literal[
    "agent", "model", "mode", "context", "cost", "cwd", "git_branch", "elapsed", "turn_tokens"
]


class AgentConfig(_Strict):
    """A named agent: ``[agents.NAME]``; start it with ``acp-tui --agent NAME``."""

    command: str
    """The agent's executable, e.g. ``"claude-agent-acp"`` or ``"gemini"``."""
    args: list[str] = Field(default_factory=list)
    """Arguments for the command, e.g. ``["--experimental-acp"]``."""
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment variables for the agent process (API keys and the like). They are
    never written to any other file the client keeps."""
    cwd: str | None = None
    """Default working directory of its sessions (``~`` is expanded); ``--cwd`` wins."""
    mcp_servers: list[McpServerConfig] = Field(default_factory=list)
    """MCP servers passed to the agent in ``session/new`` and ``session/load``: stdio
    always, http and sse only when the agent says it supports them."""
    label: str | None = None
    """Name shown in the launcher and the header (default: the agent's own name)."""
    additional_directories: list[str] = Field(default_factory=list)
    """More directories its sessions work in besides the working directory (``~`` is
    expanded; relative ones are taken from the agent's ``cwd``, else the current directory).
    Sent to agents that support it, with any ``--add-dir``; the agent may read and write
    there without asking."""
    protocol: Literal[1, 2] | None = None
    """ACP version to ask this agent for (default: the top-level ``protocol``)."""
    client_files: bool | None = None
    """Offer the agent the client's file reading and writing (``fs/read_text_file``,
    ``fs/write_text_file``: reads and writes outside the session's folders are asked about).
    Default: yes, but for Gemini CLI, which cannot create a file through a client (it then
    uses its own file tools)."""
    checkpoints: bool | None = None
    """Snapshot the session's folders before each turn so it can be rewound (default: the
    top-level ``[checkpoints] enabled``); ``false`` takes none for this agent, as
    ``--no-checkpoints`` does."""

    review_writes: Literal["ask", "auto"] | None = None
    """``"ask"``: each file the agent writes through the client (``fs/write_text_file``) is
    shown as a diff first, hunk by hunk, and only what the person keeps is written (Ctrl+P →
    "Review writes: on/off" per session). ``"auto"``: written at once. Default: the
    top-level ``review_writes``."""

    index: bool = True
    """Keep what its sessions say in the search index of every session (Ctrl+P → Search all
    sessions, ``acp-tui search``); ``false``: nothing of this agent's sessions is indexed."""

    system_prompt: SystemPromptSetting | None = None
    """Instructions sent with each of its sessions (``session/new``, load, resume, branch),
    to agents that take a client's system prompt: ``"..."`` or ``"@FILE"``, appended to the
    agent's own; ``{ text = "...", mode = "override" }`` replaces them. A project's
    (``[projects."DIR"]``) wins; ``--system-prompt`` wins over both."""

    status_items: list[StatusItem] | None = None
    """The built-in items of the status line in its view (default: the top-level
    ``status_items``); ``[]`` shows none."""
    status_command: str | None = None
    """The status command in its view (default: the top-level ``status_command``); ``""``
    runs none."""

    @property
    def argv(self) -> list[str]:
        return [self.command, *self.args]


class ProjectConfig(_Strict):
    """Settings of the sessions working in one directory (or below it):
    ``[projects."~/src/shop"]``."""

    system_prompt: SystemPromptSetting | None = None
    """The system prompt of every agent's sessions there (a relative ``@FILE`` is taken from
    the project's directory); wins over an agent's own, ``--system-prompt`` wins over it."""


class LogsConfig(_Strict):
    """What is kept of the agent logs (one per agent run, its stderr; each capped at
    16 MiB). The oldest are deleted as acp-tui starts. The client's own log is rotated at
    5 MiB, with two older ones kept."""

    keep: int = Field(default=DEFAULT_LOG_KEEP, ge=1)
    """How many agent logs to keep, the newest."""
    max_megabytes: float = Field(default=DEFAULT_LOG_MEGABYTES, gt=0)
    """How much the agent logs may take together, in megabytes."""


class CheckpointsConfig(_Strict):
    """Checkpoints of the project's files, taken at every turn so it can be rewound
    (``[checkpoints]``): kept in a shadow git repository in acp-tui's data folder, never in
    the project's own ``.git``."""

    enabled: bool = True
    """Take checkpoints (an agent's ``checkpoints = false`` or ``--no-checkpoints`` wins)."""
    max_file_kb: int = Field(default=DEFAULT_CHECKPOINT_MAX_FILE_KB, ge=1)
    """Files larger than this many KiB are left out of the checkpoints (said when it
    happens); a rewind leaves them as they are."""
    max_files: int = Field(default=DEFAULT_CHECKPOINT_MAX_FILES, ge=1)
    """A folder with more files than this (not counting ignored ones) takes no checkpoints:
    snapshotting it before every turn would hold the turn up (said when it happens)."""
    keep_per_session: int = Field(default=DEFAULT_CHECKPOINT_KEEP_PER_SESSION, ge=1)
    """The newest turns kept per session; older ones are pruned."""
    keep_total: int = Field(default=DEFAULT_CHECKPOINT_KEEP_TOTAL, ge=1)
    """The newest turns kept across all sessions."""


class BudgetConfig(_Strict):
    """A spending limit (``[[budgets]]``), summed from the costs the agents report, in one
    currency: the whole day or month (local time), of every agent and project, or of one
    agent (``agent``), or one project (``project``), or both. At 80% the status line warns;
    at 100% each message sent under it asks first, or is refused (``hard = true``)."""

    period: Literal["daily", "monthly"]
    """``"daily"`` (from midnight) or ``"monthly"`` (from the first of the month)."""
    amount: float = Field(gt=0)
    """The limit, in ``currency``."""
    currency: str = Field(min_length=1)
    """The unit the agents report in (``"USD"``, ``"EUR"``, ``"credits"``): costs in other
    currencies never count against it."""
    agent: str | None = None
    """Only this agent's costs: its ``[agents.NAME]`` name or its label (``"demo agent"``)."""
    project: str | None = None
    """Only the costs of sessions working in this directory or below (``~`` expanded)."""
    hard: bool = False
    """``true``: over the limit, messages are refused instead of asked about."""


class ExportConfig(_Strict):
    """Exports to share (``[export]``): the Markdown or HTML export of a session and
    ``acp-tui export``."""

    redact_patterns: dict[str, str] = Field(default_factory=dict)
    """More to redact, beside secrets, home directories and e-mail addresses: ``NAME =
    "regular expression"`` (Python's syntax), e.g. ``ticket = "ACME-[0-9]{4,}"``. What one
    matches becomes ``[redacted NAME]``; a pattern that does not compile is reported and
    left out."""


class Config(_Strict):
    """The whole file."""

    agents: dict[str, AgentConfig] = Field(default_factory=dict)
    """Named agents, one ``[agents.NAME]`` table each."""
    theme: str | None = None
    """Theme name: one of Textual's, or from a theme file. Remembered when picked in the
    command palette."""
    sidebar: bool | None = None
    """Show (``true``) or hide (``false``) the sessions sidebar when the chat screen opens;
    left out, the app decides (it toggles at any time with its key)."""
    permission_policy: Literal["ask", "yolo", "deny"] = DEFAULT_PERMISSION_POLICY
    """How permission requests are answered: ``"ask"`` shows the dialog, ``"yolo"`` allows
    everything, ``"deny"`` rejects everything. ``--yolo`` / ``--deny-all`` win."""
    notifications: Literal["bell", "off"] = DEFAULT_NOTIFICATIONS
    """``"bell"`` rings the terminal bell when a turn ends or a permission is needed while
    the terminal is not focused, or in a session that is not on screen; ``"off"`` stays
    quiet."""
    desktop_notifications: Literal["off", "osc9", "osc777", "both"] = DEFAULT_DESKTOP_NOTIFICATIONS
    """A desktop notification, asked of the terminal, when a session that is not on screen
    (or any, while the terminal is not focused) finishes a turn or needs you: ``"osc9"``
    (iTerm2, WezTerm, Ghostty, kitty, Windows Terminal), ``"osc777"`` (foot, rxvt-unicode,
    Ghostty, WezTerm), ``"both"``, or ``"off"``."""
    terminal_title: bool = True
    """Set the terminal's window title to what needs you (``acp-tui · 1 waiting · 2 done``),
    back to ``acp-tui`` when nothing does; the terminal's own title comes back on exit."""
    keys: dict[str, KeySpec] = Field(default_factory=dict)
    """Key bindings: ``action = "key"`` (Textual's key syntax, e.g. ``"ctrl+k"``; several
    keys comma-separated or as a list). The actions are listed in the README; an unknown
    action or a bad key is reported and the rest applies."""
    protocol: Literal[1, 2] = 1
    """ACP version asked for at ``initialize``: 1, or 2 (the draft; an agent that answers 1
    is spoken to in version 1). ``--protocol`` wins."""
    projects: dict[str, ProjectConfig] = Field(default_factory=dict)
    """Per-directory settings, one ``[projects."DIR"]`` table each (``~`` expanded); a
    session's directory takes the deepest one it is in."""
    logs: LogsConfig = Field(default_factory=LogsConfig)
    """What is kept of the logs (``[logs]``)."""
    checkpoints: CheckpointsConfig = Field(default_factory=CheckpointsConfig)
    """Checkpoints of the project's files for rewind (``[checkpoints]``)."""
    export: ExportConfig = Field(default_factory=ExportConfig)
    """Exports to share (``[export]``)."""
    review_writes: Literal["ask", "auto"] = "auto"
    """Every agent's ``review_writes`` unless it says otherwise: ``"ask"`` shows each file an
    agent writes through acp-tui as a diff first, hunk by hunk (``--review-writes``)."""
    budgets: list[BudgetConfig] = Field(default_factory=list)
    """Spending limits, one ``[[budgets]]`` table each (see :class:`BudgetConfig`)."""
    status_items: list[StatusItem] = Field(default_factory=list)
    """The built-in items of the status line under the prompt, in this order: ``agent``,
    ``model``, ``mode``, ``context`` (percent used), ``cost``, ``cwd``, ``git_branch``,
    ``elapsed`` (the turn's time), ``turn_tokens`` (the last turn's). An agent's own wins."""
    status_command: str | None = None
    """A command (run by ``$SHELL -c`` in the session's directory) that reads the session's
    state as JSON on stdin and prints one line, shown after the items. An agent's own wins."""
    initialize_timeout: float = Field(default=DEFAULT_INITIALIZE_TIMEOUT, gt=0)
    """Seconds to wait for the agent's answer to ``initialize`` before saying that it is not
    responding (and quoting what it printed, if that was not ACP). The TUI keeps waiting and
    offers a restart; ``acp-tui ask`` gives up."""
