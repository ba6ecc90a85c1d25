"""From the parsed command line (and the config file) to a running app, and back to an
exit code."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tui.cli.parse import Invocation, directory_problem, unknown_agent_message
from acp_tui.config import locations
from acp_tui.config.defaults import (
    DEFAULT_DESKTOP_NOTIFICATIONS,
    DEFAULT_INITIALIZE_TIMEOUT,
    DEFAULT_NOTIFICATIONS,
    DEFAULT_PERMISSION_POLICY,
)
from acp_tui.config.load import config_path, load_config
from acp_tui.session.roots import dirs_to_send, resolve_dirs
from acp_tui.session.settings import AppSettings, PermissionPolicy

if TYPE_CHECKING:
    from acp_tui.config.load import Config


def settings_from_invocation(
    invocation: Invocation, config: Config | None = None, problems: list[str] | None = None
) -> AppSettings:
    """Command line over config file over defaults. With ``--agent NAME`` (which must be in
    ``config``; see :func:`run_tui`) the agent's command, env, cwd and MCP servers apply.
    Anything not usable is appended to ``problems``. No ``config`` means no config file: the
    defaults, without loading the config schema (pydantic) on the way to the first frame."""
    options = invocation.options
    policy: PermissionPolicy
    if options.yolo:
        policy = "yolo"
    elif options.deny_all:
        policy = "deny"
    else:
        policy = config.permission_policy if config is not None else DEFAULT_PERMISSION_POLICY
    resume: str | None = options.resume
    if options.continue_ and resume is None:
        resume = ""
    settings = AppSettings(
        agent_argv=invocation.agent_argv,
        permission_policy=policy,
        resume=resume,
        continue_latest=options.continue_,
        agent_label="demo agent" if options.demo else "",
        theme=getattr(options, "theme", None) or (config.theme if config is not None else None),
        show_sidebar=config.sidebar if config is not None else None,
        notify_when_unfocused=(
            config.notifications if config is not None else DEFAULT_NOTIFICATIONS
        )
        == "bell",
        desktop_notifications=(
            config.desktop_notifications if config is not None else DEFAULT_DESKTOP_NOTIFICATIONS
        ),
        terminal_title=config.terminal_title if config is not None else True,
        recorder=invocation.recorder,
        initialize_timeout=(
            config.initialize_timeout if config is not None else DEFAULT_INITIALIZE_TIMEOUT
        ),
    )
    if config is not None and config.keys:
        from acp_tui.ui.keymap import resolve_keymap

        settings.keymap, key_problems = resolve_keymap(config.keys, str(config_path()))
        if problems is not None:
            problems += key_problems
    name = getattr(options, "agent", None)
    agent = config.agents.get(name) if name and config is not None else None
    if agent is not None:
        settings.agent_argv = agent.argv
        settings.agent_label = agent.label or name or ""
        settings.env = dict(agent.env) or None
        settings.mcp_servers = [server.model_dump() for server in agent.mcp_servers]
        if agent.cwd and not options.cwd:
            cwd = os.path.abspath(os.path.expanduser(agent.cwd))
            problem = directory_problem(cwd)
            if problem is None:
                settings.cwd = cwd
            elif problems is not None:
                problems.append(f"agents.{name}.cwd: {cwd}: {problem}; using {settings.cwd}")
    if options.cwd:
        settings.cwd = options.cwd
    if agent is not None and agent.additional_directories:
        dirs, bad = resolve_dirs(agent.additional_directories, settings.cwd)
        settings.additional_dirs = dirs
        if problems is not None:
            problems += [f"agents.{name}.additional_directories: {p}; left out" for p in bad]
    settings.additional_dirs = dirs_to_send(
        settings.additional_dirs, getattr(options, "add_dirs", None) or []
    )
    settings.protocol_version = (
        getattr(options, "protocol", None)
        or (agent.protocol if agent is not None else None)
        or (config.protocol if config is not None else 1)
    )
    return settings


def setup_logging() -> Path | None:
    """Client logs go to a file: the terminal belongs to the app."""
    try:
        directory = locations.log_dir()
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / "acp-tui.log"
        # An agent's string in a log message may hold a lone surrogate: escape it, never fail.
        handler = logging.FileHandler(path, encoding="utf-8", errors="backslashreplace")
    except OSError:
        return None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return path


def run_tui(invocation: Invocation) -> int:
    options = invocation.options
    if options.config_path:
        print(config_path())
        return 0
    config, problems = _load_config()
    name = getattr(options, "agent", None)
    if name is not None and config is None:
        config = _default_config()
    if name is not None and config is not None and name not in config.agents:
        for problem in problems:
            print(f"acp-tui: config: {problem}", file=sys.stderr)
        print(unknown_agent_message(name, config), file=sys.stderr)
        return 2
    setup_logging()
    settings = settings_from_invocation(invocation, config, problems)
    return asyncio.run(_run_app(settings, config, problems, bool(options.cwd)))


async def _run_app(
    settings: AppSettings, config: Config | None, problems: list[str], cwd_given: bool
) -> int:
    """Start the agent, then import and run the app: the agent boots while the UI loads."""
    early = None
    if settings.agent_argv:
        from acp_tui.session.prestart import PrestartedAgent

        early = await PrestartedAgent.start(
            settings.agent_argv,
            cwd=settings.cwd,
            env=settings.env,
            log_dir=settings.log_dir if settings.log_dir is not None else locations.log_dir(),
        )
        if early is not None:
            settings.process_factory = early.factory
    try:
        return await _run_loaded_app(settings, config, problems, cwd_given)
    finally:
        if early is not None:
            await early.discard()


async def _run_loaded_app(
    settings: AppSettings, config: Config | None, problems: list[str], cwd_given: bool
) -> int:
    from acp_tui.config.recent import RecentAgents
    from acp_tui.ui.app import make_app

    choices = None
    recent = None
    if not settings.agent_argv:
        from acp_tui.config.known_agents import detect_agents
        from acp_tui.demo_agent import demo_agent_argv
        from acp_tui.ui.screens.launcher import build_choices

        if config is None:
            config = _default_config()
        recent = RecentAgents()
        choices = build_choices(
            config,
            detect_agents(),
            demo_agent_argv(),
            recent.keys(),
            use_agent_cwd=not cwd_given,
        )
    app = make_app(
        settings,
        choices=choices,
        problems=problems,
        recent=recent,
        remember_theme=True,
        config_location=_home_relative(config_path()),
    )
    settle_long_lived_objects()
    result = await app.run_async()
    if app.start_failure:
        print(app.start_failure, file=sys.stderr)
        return 1
    return result or 0


def settle_long_lived_objects() -> None:
    """Move everything alive now (imported modules: Textual, Rich, our own; the config) out of
    the garbage collector's reach. A full collection walks every tracked object and took 40 to
    70 ms here once a long reply was on screen, long enough to delay a keystroke's echo; with
    the start-up objects frozen it walks only what the session created. Called once, just
    before the app runs (the benchmarks call it as the command line does)."""
    import gc

    gc.collect()
    gc.freeze()


def _load_config() -> tuple[Config | None, list[str]]:
    """:func:`load_config`, except that no config file gives None (the defaults) rather than
    ``Config()``: the schema (pydantic, some 150 ms) is then never loaded before the first
    frame."""
    path = config_path()
    try:
        path.stat()
    except FileNotFoundError:
        return None, []
    except OSError:
        pass  # load_config reports it
    return load_config(path)


def _default_config() -> Config:
    from acp_tui.config.load import Config

    return Config()


def _home_relative(path: Path) -> str:
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)
