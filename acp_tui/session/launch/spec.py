"""What an agent is started with, decided once: :class:`AgentSpec`.

Every face (the TUI's ``--agent`` and ``-- CMD``, the launcher, ``acp-tui ask`` and
``sessions``, "show sessions of") gets its spec from :func:`acp_tui.session.launch.resolve.
resolve_agent`, and the controller is made from it: the same configured agent is the same
spec everywhere. A field added here is read in the resolver and nowhere else.

An agent's identity (:attr:`AgentSpec.key`) is its configured name, or, for an agent given by
its command line, its exact argv and env: two configured agents that run the same program with
different env are two agents, and ``["a b"]`` is not ``["a", "b"]``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from acp_tui.config.defaults import DEFAULT_INITIALIZE_TIMEOUT
from acp_tui.session.checkpoints.settings import CheckpointSettings
from acp_tui.session.launch.system_prompt import SystemPrompt
from acp_tui.session.status.settings import StatusLineSettings

__all__ = ["AgentSource", "AgentSpec", "LaunchOptions", "agent_key", "words_of_key"]

#: A spec made by hand (a test) takes no checkpoints; the resolver decides for the faces.
NO_CHECKPOINTS = CheckpointSettings()
#: No status line unless the config asks for one.
NO_STATUS_LINE = StatusLineSettings()
#: What the demo agent is called in the header and the lists.
DEMO_LABEL = "demo agent"
#: The key prefix of a configured agent (``[agents.NAME]``): ``config:NAME``.
CONFIG_PREFIX = "config:"
#: The key prefix of an agent given by its command line: ``command:["prog", "arg"]``.
COMMAND_PREFIX = "command:"


def agent_key(name: str | None, argv: Sequence[str], env: Mapping[str, str] | None = None) -> str:
    """An agent's identity: ``config:NAME`` for a configured agent, else its exact argv and
    env (the env as a digest: its values may be secrets, and the key is stored in the local
    session index). The workspace, the local index and the lists key on it."""
    if name is not None:
        return CONFIG_PREFIX + name
    key = COMMAND_PREFIX + json.dumps(list(argv), ensure_ascii=False)
    if env:
        pairs = json.dumps(sorted(env.items()), ensure_ascii=False)
        key += " env:" + hashlib.sha256(pairs.encode("utf-8")).hexdigest()[:16]
    return key


def words_of_key(key: str) -> list[str]:
    """What a key says of its agent, for a person: a configured agent's name, or the command
    line (a key not made by :func:`agent_key`: its words)."""
    if key.startswith(CONFIG_PREFIX):
        return [key.removeprefix(CONFIG_PREFIX)]
    if key.startswith(COMMAND_PREFIX):
        encoded = key.removeprefix(COMMAND_PREFIX).split(" env:", 1)[0]
        try:
            argv = json.loads(encoded)
        except ValueError:
            argv = None
        if isinstance(argv, list) and all(isinstance(word, str) for word in argv):
            return argv
    return key.split()


def _frozen(mapping: Mapping[str, str] | None) -> Mapping[str, str] | None:
    return MappingProxyType(dict(sorted(mapping.items()))) if mapping else None


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """One agent, resolved: what its process is started with and what its sessions carry."""

    argv: tuple[str, ...]
    #: The working directory of its sessions (absolute).
    cwd: str
    #: ``[agents.NAME]``'s NAME; None for an agent given by its command line.
    name: str | None = None
    #: What the header, the launcher and the lists call it ("" : the agent's own name).
    label: str = ""
    #: Variables added to the agent's environment (its process only; never written to disk).
    env: Mapping[str, str] | None = None
    #: The configured MCP servers, as written (the controller picks what the agent takes).
    mcp_servers: tuple[Mapping[str, Any], ...] = ()
    #: Absolute directories its sessions work in besides ``cwd``.
    additional_dirs: tuple[str, ...] = ()
    #: The ACP version asked for at ``initialize``.
    protocol_version: int = 1
    #: Whether the client's file reading and writing is offered to the agent.
    client_files: bool = True
    #: Seconds to wait for ``initialize`` before saying the agent is not responding.
    initialize_timeout: float = DEFAULT_INITIALIZE_TIMEOUT
    #: Checkpoints of its sessions' files (off: ``checkpoints = false``, ``--no-checkpoints``).
    checkpoints: CheckpointSettings = NO_CHECKPOINTS
    #: The client's instructions sent with each session (to agents that take them).
    system_prompt: SystemPrompt | None = None
    #: Whether what its sessions say goes into the search index (``index = false``: never).
    index: bool = True
    #: Whether its sessions' client writes are reviewed first (``"ask"``) or not (``"auto"``).
    review_writes: str = "auto"
    #: The status line of its view: the built-in items and the status command.
    status_line: StatusLineSettings = NO_STATUS_LINE

    def __post_init__(self) -> None:
        object.__setattr__(self, "argv", tuple(self.argv))
        object.__setattr__(self, "env", _frozen(self.env))
        object.__setattr__(
            self, "mcp_servers", tuple(MappingProxyType(dict(s)) for s in self.mcp_servers)
        )
        object.__setattr__(self, "additional_dirs", tuple(self.additional_dirs))

    @property
    def key(self) -> str:
        """The agent's identity (see :func:`agent_key`)."""
        return agent_key(self.name, self.argv, self.env)

    @property
    def legacy_key(self) -> str:
        """The key of this agent's sessions in a local index written before keys were
        identities (its command line joined with spaces): read once, kept under :attr:`key`."""
        return " ".join(self.argv)

    def env_dict(self) -> dict[str, str] | None:
        """The env to start the process with (a copy), or None."""
        return dict(self.env) if self.env else None

    def mcp_server_list(self) -> list[dict[str, Any]]:
        """The configured MCP servers (copies)."""
        return [dict(server) for server in self.mcp_servers]


@dataclass(frozen=True, slots=True)
class AgentSource:
    """Which agent a face asks for: a configured one by name, or a command line (with the
    label it is shown by: the launcher's "found on PATH" agents, the demo agent)."""

    name: str | None = None
    argv: tuple[str, ...] = ()
    label: str = ""

    @property
    def key(self) -> str:
        """The key of the spec it resolves to (see :func:`agent_key`)."""
        return agent_key(self.name, self.argv)

    @classmethod
    def configured(cls, name: str) -> AgentSource:
        return cls(name=name)

    @classmethod
    def command(cls, argv: Sequence[str], label: str = "") -> AgentSource:
        return cls(argv=tuple(argv), label=label)

    @classmethod
    def demo(cls, argv: Sequence[str]) -> AgentSource:
        """The built-in demo agent (its command line is the demo package's)."""
        return cls(argv=tuple(argv), label=DEMO_LABEL)


@dataclass(frozen=True, slots=True)
class LaunchOptions:
    """What the command line says of every agent it starts (those picked later in the
    launcher too): it wins over an agent's own settings."""

    #: ``--cwd`` (absolute), else None: the agent's configured cwd, else the current one.
    cwd: str | None = None
    #: ``--add-dir`` (absolute, existing), added to the agent's own.
    add_dirs: tuple[str, ...] = ()
    #: ``--protocol``, else None: the agent's, else the config's.
    protocol: int | None = None
    #: False with ``--no-checkpoints``: no agent takes checkpoints.
    checkpoints: bool = True
    #: ``--system-prompt`` as given (text or ``@FILE``), else None: the project's or agent's.
    system_prompt: str | None = None
    #: ``--system-prompt-mode`` (``append``, ``override``), else None: the prompt's own.
    system_prompt_mode: str | None = None
    #: True with ``--review-writes``: every agent's client writes are reviewed first.
    review_writes: bool = False
