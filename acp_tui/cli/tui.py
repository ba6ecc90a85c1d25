"""From the parsed command line (and the config file) to a running app, and back to an
exit code."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tui.cli.parse import Invocation, directory_problem, unknown_agent_message
from acp_tui.cli.say import say
from acp_tui.cli.terminal import NO_TERMINAL_EXIT, terminal_problem
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
    from acp_tui.ui.app import AcpTuiApp


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
        settings.client_files = agent.client_files
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


def agent_settings(
    invocation: Invocation, config: Config | None = None, problems: list[str] | None = None
) -> list[AppSettings]:
    """The settings of each agent to run (``--agent A --agent B --demo -- CMD``), the one shown
    first first; one agent (or none: the launcher) as :func:`settings_from_invocation` makes
    it. ``--resume`` and ``--continue`` apply to the first agent only: a session id belongs to
    one agent."""
    specs = list(getattr(invocation.options, "agent_specs", None) or [])
    if len(specs) <= 1:
        return [settings_from_invocation(invocation, config, problems)]
    from acp_tui.demo_agent import demo_agent_argv

    made: list[AppSettings] = []
    for kind, value in specs:
        options = argparse.Namespace(**vars(invocation.options))
        options.demo = kind == "demo"
        options.agent = value if kind == "config" else None
        if made:
            options.resume, options.continue_ = None, False
        argv = demo_agent_argv() if kind == "demo" else list(value) if kind == "command" else []
        one = dataclasses.replace(invocation, options=options, agent_argv=argv)
        found: list[str] = []
        settings = settings_from_invocation(one, config, found)
        if problems is not None:
            problems += [problem for problem in found if problem not in problems]
        if all(settings.agent_key != other.agent_key for other in made):
            # The same command line twice is one agent (its process runs many sessions).
            made.append(settings)
    return made


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
        say(str(config_path()))
        return 0
    config, problems = _load_config()
    names = list(getattr(options, "agents", None) or [])
    if names and config is None:
        config = _default_config()
    unknown = [name for name in names if config is not None and name not in config.agents]
    if unknown and config is not None:
        for problem in problems:
            say(f"acp-tui: config: {problem}", file=sys.stderr)
        say(unknown_agent_message(unknown[0], config), file=sys.stderr)
        return 2
    refusal = terminal_problem()
    if refusal is not None:
        say(refusal, file=sys.stderr)
        return NO_TERMINAL_EXIT
    setup_logging()
    settings, *more = agent_settings(invocation, config, problems)
    return asyncio.run(_run_app(settings, config, problems, bool(options.cwd), more))


async def _run_app(
    settings: AppSettings,
    config: Config | None,
    problems: list[str],
    cwd_given: bool,
    more: list[AppSettings] | None = None,
) -> int:
    """Start the agents, then import and run the app: the agents boot while the UI loads."""
    from acp_tui.session.prestart import PrestartedAgent

    early: list[PrestartedAgent] = []
    for each in [settings, *(more or [])]:
        if not each.agent_argv:
            continue
        started = await PrestartedAgent.start(
            each.agent_argv,
            cwd=each.cwd,
            env=each.env,
            log_dir=each.log_dir,
        )
        if started is not None:
            each.process_factory = started.factory
            early.append(started)
    try:
        return await _run_loaded_app(settings, config, problems, cwd_given, more or [])
    finally:
        for started in early:
            await started.discard()


async def _run_loaded_app(
    settings: AppSettings,
    config: Config | None,
    problems: list[str],
    cwd_given: bool,
    more: list[AppSettings] | None = None,
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
        more_agents=more or [],
        config=config,
    )
    prepare_to_run(app)
    result = await app.run_async()
    failures = app.workspace.start_failures
    if failures:
        # Every agent that could not start, one line each; exit 1 if any did not.
        for failure in failures:
            say(failure, file=sys.stderr)
        return 1
    return result or 0


def prepare_to_run(app: AcpTuiApp) -> None:
    """What the command line does to an app just before it runs it (the TUI and a replay):
    the start-up objects settled, full collections kept for the person's pauses, and the
    first reply's modules loaded in the background soon after start, the stylesheets
    parsed by an earlier run read from the cache directory, and SIGTERM / SIGHUP quitting as
    Ctrl+Q does."""
    from acp_tui.config.locations import cache_dir
    from acp_tui.ui.collector import IdleCollector
    from acp_tui.ui.termination import terminal_modes
    from acp_tui.ui.textual_patches import css_cache

    css_cache.keep_on_disk(cache_dir())

    settle_long_lived_objects()
    app.collector = IdleCollector()
    app.warm_up = True
    app.quit_on_termination = True
    app.terminal_modes = terminal_modes()


def settle_long_lived_objects() -> None:
    """Move everything alive now (imported modules: Textual, Rich, our own; the config) out of
    the garbage collector's reach, and turn collection on (the command line turns it off while
    the UI loads). A full collection walks every tracked object and took 40 to 70 ms here once
    a long reply was on screen, long enough to delay a keystroke's echo; with the start-up
    objects frozen it walks only what the session created. No collection first: at this point
    it finds a handful of unreachable objects and costs 20-50 ms of the way to a ready prompt.
    Called once, just before the app runs (the benchmarks call it as the command line does)."""
    import gc

    gc.freeze()
    gc.enable()


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
