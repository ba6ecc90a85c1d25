"""Well-known ACP agents and the command line each needs to speak ACP on stdio.

The launcher offers the ones found on PATH (:func:`detect_agents`); the README lists them all.
"""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["KNOWN_AGENTS", "KnownAgent", "detect_agents", "offers_client_files"]


@dataclass(frozen=True, slots=True)
class KnownAgent:
    """One agent: its executable, the arguments that switch on ACP, and where it comes from."""

    id: str
    name: str
    executable: str
    args: tuple[str, ...] = ()
    install: str = ""

    @property
    def argv(self) -> list[str]:
        return [self.executable, *self.args]

    @property
    def command_line(self) -> str:
        return shlex.join(self.argv)


KNOWN_AGENTS: tuple[KnownAgent, ...] = (
    KnownAgent(
        "claude",
        "Claude Code",
        "claude-agent-acp",
        install="npm install -g @zed-industries/claude-agent-acp",
    ),
    KnownAgent(
        "claude-code-acp",
        "Claude Code (older adapter)",
        "claude-code-acp",
        install="npm install -g @zed-industries/claude-code-acp",
    ),
    KnownAgent(
        "gemini",
        "Gemini CLI",
        "gemini",
        ("--experimental-acp",),
        install="npm install -g @google/gemini-cli",
    ),
    KnownAgent("codex", "Codex", "codex-acp", install="npm install -g @zed-industries/codex-acp"),
    KnownAgent("goose", "Goose", "goose", ("acp",), install="https://block.github.io/goose/"),
    KnownAgent("kimi", "Kimi CLI", "kimi", ("acp",), install="uv tool install kimi-cli"),
    KnownAgent("vibe", "Mistral Vibe", "vibe-acp", install="uv tool install mistral-vibe"),
    KnownAgent(
        "fast-agent", "fast-agent", "fast-agent", ("acp",), install="uv tool install fast-agent-mcp"
    ),
    KnownAgent("opencode", "OpenCode", "opencode", ("acp",), install="npm install -g opencode-ai"),
    KnownAgent(
        "qwen",
        "Qwen Code",
        "qwen",
        ("--experimental-acp",),
        install="npm install -g @qwen-code/qwen-code",
    ),
    KnownAgent(
        "auggie",
        "Auggie (Augment Code)",
        "auggie",
        ("--acp",),
        install="npm install -g @augmentcode/auggie",
    ),
)


def detect_agents(
    path_lookup: Callable[[str], str | None] = shutil.which,
    agents: tuple[KnownAgent, ...] = KNOWN_AGENTS,
) -> list[KnownAgent]:
    """The well-known agents whose executable ``path_lookup`` finds, in catalogue order."""
    found: list[KnownAgent] = []
    for agent in agents:
        try:
            located = path_lookup(agent.executable)
        except OSError:
            located = None
        if located:
            found.append(agent)
    return found


def offers_client_files(argv: list[str]) -> bool:
    """Whether the client's file access (``fs/read_text_file``, ``fs/write_text_file``) is
    offered to the agent run by ``argv`` when its config does not say (``client_files``).

    Not to Gemini CLI: it cannot create a file through a client (seen with 0.61.0). Before a
    write it reads the file through the client and tells "no such file" by the error's
    message; its bundled SDK hands it the bare JSON-RPC error object, whose message it never
    reads, so every new file fails ("Error checking existing file"), whatever the client
    answers. Without the client's file access it reads and writes with its own tools (and
    still asks before writing)."""
    if not argv:
        return True
    program = argv[0].replace("\\", "/").rsplit("/", 1)[-1]
    return program != "gemini" and not any("@google/gemini-cli" in arg for arg in argv)
