"""The agents the command line asks for, as sources for the one resolver
(:func:`acp_tui.session.launch.resolve.resolve_agent`): ``--agent NAME``, ``--demo`` and an
agent command after ``--``, with what the command line says of every agent (``--cwd``,
``--add-dir``, ``--protocol``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from acp_tui.session.launch.resolve import Resolved, resolve_agent
from acp_tui.session.launch.spec import AgentSource, LaunchOptions

if TYPE_CHECKING:
    from acp_tui.config.load import Config

__all__ = ["launch_options", "resolve_command_line", "source_of", "sources"]


def launch_options(options: argparse.Namespace) -> LaunchOptions:
    """``--cwd``, ``--add-dir``, ``--protocol`` and ``--system-prompt`` (checked, and made
    absolute, by the parser)."""
    return LaunchOptions(
        cwd=getattr(options, "cwd", None),
        add_dirs=tuple(getattr(options, "add_dirs", None) or ()),
        protocol=getattr(options, "protocol", None),
        checkpoints=not getattr(options, "no_checkpoints", False),
        system_prompt=getattr(options, "system_prompt", None),
        system_prompt_mode=getattr(options, "system_prompt_mode", None),
        review_writes=bool(getattr(options, "review_writes", False)),
    )


def source_of(kind: str, value: Any) -> AgentSource:
    """One agent of the command line: ``("config", NAME)``, ``("demo", "")`` or
    ``("command", ARGV)`` (see :func:`acp_tui.cli.parse.agent_choices`)."""
    if kind == "config":
        return AgentSource.configured(str(value))
    if kind == "demo":
        from acp_tui.demo_agent import demo_agent_argv

        return AgentSource.demo(demo_agent_argv())
    return AgentSource.command(list(value))


def sources(options: argparse.Namespace, agent_argv: list[str]) -> list[AgentSource]:
    """The one agent a command runs (``--agent NAME`` first, then ``--demo``, then the command
    after ``--``), or none."""
    name = getattr(options, "agent", None)
    if name:
        return [AgentSource.configured(name)]
    if getattr(options, "demo", False):
        return [source_of("demo", "")]
    return [AgentSource.command(agent_argv)] if agent_argv else []


def resolve_command_line(
    options: argparse.Namespace, agent_argv: list[str], config: Config | None = None
) -> Resolved | None:
    """The one agent of a command, resolved (None: the command line names none). Raises
    :class:`~acp_tui.session.launch.resolve.UnknownAgent` for a name not in ``config``."""
    found = sources(options, agent_argv)
    if not found:
        return None
    return resolve_agent(found[0], config, launch_options(options))
