"""The client's system prompt: which one is in force for an agent's sessions, read once.

ACP lets a client send system-level instructions with every session setup request
(``session/new``, ``session/load``, ``session/resume``, ``session/fork``) to an agent that
advertises ``session.systemPrompt`` (stable since 2026-11-06:
https://agentclientprotocol.com/protocol/v1/session-setup#system-prompt). ``append`` adds to
the agent's own instructions, ``override`` replaces its default ones and needs the agent's
``systemPrompt.mode.override``.

Where it comes from, the first found: ``--system-prompt`` (the command line), the deepest
``[projects."DIR"]`` holding the session's directory, the agent's ``system_prompt``.
``--system-prompt-mode`` sets the mode of whichever is in force. ``@FILE`` is the text of a
file, read through the path gate (a regular file, at most :data:`MAX_BYTES`, UTF-8).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from acp_tui.services.path_gate import PathRefused, read_bytes, resolve_path

if TYPE_CHECKING:
    from acp_tui.config.load import Config

__all__ = [
    "MAX_BYTES",
    "MODES",
    "SystemPrompt",
    "SystemPromptProblem",
    "read_system_prompt",
    "system_prompt_for",
]

Mode = Literal["append", "override"]
MODES: tuple[Mode, ...] = ("append", "override")
#: The most a system prompt file may hold.
MAX_BYTES = 256 * 1024


class SystemPromptProblem(ValueError):
    """A system prompt that cannot be used; ``str()`` says why, for the person."""


@dataclass(frozen=True, slots=True)
class SystemPrompt:
    """The instructions in force, and where they came from."""

    text: str
    mode: Mode = "append"
    #: Where it was set, for the person: ``--system-prompt``, ``agents.NAME``,
    #: ``projects."DIR"``.
    origin: str = ""
    #: The file it was read from (``@FILE``), else None.
    path: str | None = None

    def wire(self) -> dict[str, Any]:
        """The ``systemPrompt`` object of a session setup request (text only: the baseline
        every agent that advertises it takes)."""
        return {"mode": self.mode, "content": [{"type": "text", "text": self.text}]}

    def describe(self) -> str:
        """``append, from agents.claude (~/prompts/terse.md)``: for the palette and notes."""
        where = f"from {self.origin}" if self.origin else ""
        if self.path:
            where += f" ({self.path})"
        return ", ".join(part for part in (self.mode, where) if part)


def read_system_prompt(value: str, mode: str, *, origin: str, base: str) -> SystemPrompt | None:
    """``value`` as written (text, or ``@FILE`` relative to ``base``) as a prompt; None for
    an empty one (nothing is sent). :class:`SystemPromptProblem` when a file cannot be read."""
    if mode not in MODES:
        raise SystemPromptProblem(f"{origin}: mode {mode!r}: use append or override")
    path: str | None = None
    text = value
    if value.startswith("@"):
        raw = value[1:]
        if not raw:
            raise SystemPromptProblem(f"{origin}: @ names no file")
        try:
            resolved = resolve_path(raw, base=base)
            data = read_bytes(resolved, MAX_BYTES, inside=False)
        except (PathRefused, OSError, ValueError) as error:
            raise SystemPromptProblem(f"{origin}: {raw}: {_reason(error)}") from None
        if data is None:
            raise SystemPromptProblem(
                f"{origin}: {raw}: more than {MAX_BYTES // 1024} KiB; not sent"
            )
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise SystemPromptProblem(f"{origin}: {raw}: not UTF-8 text") from None
        path = str(resolved.given)
    if not text.strip():
        return None
    return SystemPrompt(text, mode, origin, path)


def _reason(error: Exception) -> str:
    if isinstance(error, PathRefused):
        return error.what
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return str(error)


def _project(config: Config, cwd: str) -> tuple[str, Any] | None:
    """The ``[projects."DIR"]`` the directory is in, the deepest one; (its key, its table)."""
    best: tuple[int, str, Any] | None = None
    real = os.path.realpath(cwd)
    for key, project in config.projects.items():
        if project.system_prompt is None:
            continue
        folder = os.path.realpath(os.path.expanduser(key))
        if real == folder or real.startswith(folder.rstrip(os.sep) + os.sep):
            depth = len(folder)
            if best is None or depth > best[0]:
                best = (depth, key, project)
    return (best[1], best[2]) if best else None


def system_prompt_for(
    config: Config | None,
    *,
    agent: str | None,
    cwd: str,
    given: str | None = None,
    given_mode: str | None = None,
    config_dir: str | None = None,
) -> tuple[SystemPrompt | None, list[str]]:
    """The system prompt in force for an agent's sessions in ``cwd``: ``given`` (the command
    line's, relative to the current directory), else the project's, else the agent's; with
    ``given_mode`` over its own mode. Returns it (None: none) and what could not be used,
    one sentence each (the prompt is then not sent)."""
    candidates: list[tuple[str, str, str, str]] = []  # text, mode, origin, base
    if given is not None:
        candidates.append((given, given_mode or "append", "--system-prompt", os.getcwd()))
    elif config is not None:
        found = _project(config, cwd)
        if found is not None:
            key, project = found
            setting = project.system_prompt
            folder = os.path.expanduser(key)
            candidates.append((setting.text, setting.mode, f'projects."{key}"', folder))
        elif agent is not None and agent in config.agents:
            setting = config.agents[agent].system_prompt
            if setting is not None:
                base = config_dir or os.getcwd()
                candidates.append((setting.text, setting.mode, f"agents.{agent}", base))
    if not candidates:
        return None, []
    text, mode, origin, base = candidates[0]
    if given_mode is not None:
        mode = given_mode
    try:
        return read_system_prompt(text, mode, origin=origin, base=base), []
    except SystemPromptProblem as problem:
        return None, [f"{problem}; no system prompt is sent"]
