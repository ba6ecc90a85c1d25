"""The one resolver: from the config file, the command line and the agent asked for to an
:class:`~acp_tui.session.launch.spec.AgentSpec`.

Every face calls :func:`resolve_agent`: the TUI for ``--agent NAME``, ``--demo`` and ``-- CMD``
(:mod:`acp_tui.cli.tui`), the headless commands (:mod:`acp_tui.cli.main`), the launcher's pick
and "Start agent…" (:mod:`acp_tui.ui.screens.launcher`), "show sessions of"
(:mod:`acp_tui.ui.screens.chat.other_agents`). The command line wins over the agent's own
settings, which win over the config's top level, which wins over the defaults.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from acp_tui.config.defaults import DEFAULT_INITIALIZE_TIMEOUT
from acp_tui.config.known_agents import offers_client_files
from acp_tui.session.agent.roots import dirs_to_send, resolve_dirs
from acp_tui.session.checkpoints.settings import CheckpointSettings, checkpoint_store
from acp_tui.session.launch.spec import AgentSource, AgentSpec, LaunchOptions
from acp_tui.session.launch.system_prompt import SystemPrompt, system_prompt_for
from acp_tui.session.status.settings import StatusLineSettings

if TYPE_CHECKING:
    from acp_tui.config.load import Config

__all__ = ["Resolved", "UnknownAgent", "resolve_agent"]


class UnknownAgent(LookupError):
    """``--agent NAME`` (or a recent pick) names no agent of the config file."""


@dataclass(frozen=True, slots=True)
class Resolved:
    """A spec, and what in the settings could not be used (each said to the person)."""

    spec: AgentSpec
    #: Settings left out, one sentence each (a configured directory that is not there).
    problems: tuple[str, ...] = ()
    #: The agent's configured cwd is not a directory: the spec has the current directory
    #: instead. The TUI says so and goes on; a headless command refuses to start.
    bad_cwd: str | None = None


def _directory_problem(path: str) -> str | None:
    if os.path.isdir(path):
        return None
    return "not a directory" if os.path.exists(path) else "no such directory"


def _review_writes(config: Config | None, options: LaunchOptions, agent: str | None) -> str:
    """``--review-writes`` over the agent's ``review_writes`` over the top-level one."""
    if options.review_writes:
        return "ask"
    if agent is not None:
        return agent
    return config.review_writes if config is not None else "auto"


def _status_line(config: Config | None, name: str | None) -> StatusLineSettings:
    """The agent's ``status_items`` and ``status_command``, each over the top-level one
    (``[]`` and ``""``: none for this agent)."""
    if config is None:
        return StatusLineSettings()
    agent = config.agents.get(name) if name is not None else None
    items = config.status_items
    command = config.status_command
    if agent is not None and agent.status_items is not None:
        items = agent.status_items
    if agent is not None and agent.status_command is not None:
        command = agent.status_command
    return StatusLineSettings(tuple(items), (command or "").strip() or None)


def _checkpoints(
    config: Config | None, options: LaunchOptions, agent_wants: bool | None
) -> CheckpointSettings:
    """The command line (``--no-checkpoints``) over the agent's ``checkpoints`` over
    ``[checkpoints]``."""
    section = config.checkpoints if config is not None else None
    enabled = options.checkpoints and (
        agent_wants if agent_wants is not None else (section.enabled if section else True)
    )
    if section is None:
        return CheckpointSettings(store=checkpoint_store(), enabled=enabled)
    return CheckpointSettings(
        store=checkpoint_store(),
        enabled=enabled,
        max_file_bytes=section.max_file_kb * 1024,
        max_files=section.max_files,
        keep_per_session=section.keep_per_session,
        keep_total=section.keep_total,
    )


def resolve_agent(
    source: AgentSource,
    config: Config | None = None,
    options: LaunchOptions | None = None,
) -> Resolved:
    """The spec of ``source``: a configured agent (which must be in ``config``, else
    :class:`UnknownAgent`) or a command line, with ``options`` (the command line's) over its
    own settings. ``config`` None: no config file (the defaults)."""
    options = options or LaunchOptions()
    problems: list[str] = []
    bad_cwd: str | None = None
    cwd = options.cwd or os.getcwd()
    default_protocol = config.protocol if config is not None else 1
    timeout = config.initialize_timeout if config is not None else DEFAULT_INITIALIZE_TIMEOUT
    if source.name is None:
        argv = list(source.argv)
        prompt, problems = _system_prompt(config, options, None, cwd)
        spec = AgentSpec(
            argv=tuple(argv),
            cwd=cwd,
            label=source.label,
            additional_dirs=tuple(options.add_dirs),
            protocol_version=options.protocol or default_protocol,
            client_files=offers_client_files(argv),
            initialize_timeout=timeout,
            checkpoints=_checkpoints(config, options, None),
            system_prompt=prompt,
            review_writes=_review_writes(config, options, None),
            status_line=_status_line(config, None),
        )
        return Resolved(spec, tuple(problems))
    name = source.name
    agent = config.agents.get(name) if config is not None else None
    if agent is None:
        raise UnknownAgent(name)
    if agent.cwd and not options.cwd:
        wanted = os.path.abspath(os.path.expanduser(agent.cwd))
        problem = _directory_problem(wanted)
        if problem is None:
            cwd = wanted
        else:
            bad_cwd = f"agents.{name}.cwd {wanted}: {problem}"
            problems.append(f"agents.{name}.cwd: {wanted}: {problem}; using {cwd}")
    dirs, missing = resolve_dirs(agent.additional_directories, cwd)
    problems += [f"agents.{name}.additional_directories: {p}; left out" for p in missing]
    argv = agent.argv
    prompt, prompt_problems = _system_prompt(config, options, name, cwd)
    problems += prompt_problems
    spec = AgentSpec(
        argv=tuple(argv),
        cwd=cwd,
        name=name,
        label=agent.label or name,
        env=dict(agent.env) or None,
        mcp_servers=tuple(server.model_dump() for server in agent.mcp_servers),
        additional_dirs=tuple(dirs_to_send(dirs, options.add_dirs)),
        protocol_version=options.protocol or agent.protocol or default_protocol,
        client_files=(
            agent.client_files if agent.client_files is not None else offers_client_files(argv)
        ),
        initialize_timeout=timeout,
        checkpoints=_checkpoints(config, options, agent.checkpoints),
        system_prompt=prompt,
        index=agent.index,
        review_writes=_review_writes(config, options, agent.review_writes),
        status_line=_status_line(config, name),
    )
    return Resolved(spec, tuple(problems), bad_cwd)


def _system_prompt(
    config: Config | None, options: LaunchOptions, name: str | None, cwd: str
) -> tuple[SystemPrompt | None, list[str]]:
    """The system prompt in force (see :mod:`acp_tui.session.launch.system_prompt`)."""
    folder: str | None = None
    if config is not None:
        from acp_tui.config.load import config_dir

        folder = str(config_dir())
    return system_prompt_for(
        config,
        agent=name,
        cwd=cwd,
        given=options.system_prompt,
        given_mode=options.system_prompt_mode,
        config_dir=folder,
    )
