"""From the parsed command line (and the config file) to a running app, and back to an
exit code."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tui.cli.agents import launch_options, source_of, sources
from acp_tui.cli.parse import Invocation, unknown_agent_message
from acp_tui.cli.say import say
from acp_tui.cli.terminal import NO_TERMINAL_EXIT, terminal_problem
from acp_tui.config import locations
from acp_tui.config.defaults import (
    DEFAULT_DESKTOP_NOTIFICATIONS,
    DEFAULT_LOG_KEEP,
    DEFAULT_LOG_MEGABYTES,
    DEFAULT_NOTIFICATIONS,
    DEFAULT_PERMISSION_POLICY,
)
from acp_tui.config.load import config_path, load_config
from acp_tui.config.log_files import client_log_handler, prune_agent_logs
from acp_tui.session.launch.resolve import resolve_agent
from acp_tui.session.launch.settings import AppSettings, PermissionPolicy
from acp_tui.session.launch.spec import AgentSource
from acp_tui.ui.preferences import UiSettings

if TYPE_CHECKING:
    from acp_tui.config.load import Config
    from acp_tui.ui.app import AcpTuiApp


def settings_from_invocation(
    invocation: Invocation, config: Config | None = None, problems: list[str] | None = None
) -> AppSettings:
    """Command line over config file over defaults, for the one agent of the command line
    (``--agent NAME``, which must be in ``config``: see :func:`run_tui`; ``--demo``; ``--
    CMD``) or none (the launcher). Anything not usable is appended to ``problems``. No
    ``config`` means no config file: the defaults, without loading the config schema
    (pydantic) on the way to the first frame."""
    options = invocation.options
    found = sources(options, invocation.agent_argv)
    return _settings(invocation, found[0] if found else None, config, problems)


def _settings(
    invocation: Invocation,
    source: AgentSource | None,
    config: Config | None,
    problems: list[str] | None,
) -> AppSettings:
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
    launch = launch_options(options)
    agent = None
    if source is not None:
        resolved = resolve_agent(source, config, launch)
        agent = resolved.spec
        if problems is not None:
            problems += [problem for problem in resolved.problems if problem not in problems]
    return AppSettings(
        agent=agent,
        options=launch,
        permission_policy=policy,
        resume=resume,
        continue_latest=options.continue_,
        recorder=invocation.recorder,
        redact_patterns=dict(config.export.redact_patterns) if config is not None else {},
    )


def ui_settings(
    options: argparse.Namespace, config: Config | None = None, problems: list[str] | None = None
) -> UiSettings:
    """The look and the notices: ``--theme`` over the config over the defaults; the
    configured keys, checked (what is wrong goes to ``problems``)."""
    keymap: dict[str, str] = {}
    if config is not None and config.keys:
        from acp_tui.ui.keymap_config import resolve_keymap

        keymap, key_problems = resolve_keymap(config.keys, str(config_path()))
        if problems is not None:
            problems += key_problems
    return UiSettings(
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
        keymap=keymap,
    )


def agent_settings(
    invocation: Invocation, config: Config | None = None, problems: list[str] | None = None
) -> list[AppSettings]:
    """The settings of each agent to run (``--agent A --agent B --demo -- CMD``), the one shown
    first first; one agent (or none: the launcher) as :func:`settings_from_invocation` makes
    it. ``--resume`` and ``--continue`` apply to the first agent only: a session id belongs to
    one agent."""
    choices = list(getattr(invocation.options, "agent_choices", None) or [])
    if len(choices) <= 1:
        return [settings_from_invocation(invocation, config, problems)]
    made: list[AppSettings] = []
    for kind, value in choices:
        settings = _settings(invocation, source_of(kind, value), config, problems)
        if made:
            settings.resume, settings.continue_latest = None, False
        assert settings.agent is not None
        if all(settings.agent.key != other.agent.key for other in made if other.agent):
            # The same agent twice is one agent (its process runs many sessions).
            made.append(settings)
    return made


def setup_logging(config: Config | None = None) -> Path | None:
    """Client logs go to a file (rotated by size): the terminal belongs to the app. The
    oldest agent logs beyond what ``config`` keeps (``[logs]``) are deleted first."""
    tidy_logs(config)
    try:
        handler = client_log_handler(locations.log_dir())
    except OSError:
        return None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return Path(handler.baseFilename)


def tidy_logs(config: Config | None) -> None:
    """Delete the oldest agent logs beyond what the config keeps (its defaults when None)."""
    keep, megabytes = (
        (config.logs.keep, config.logs.max_megabytes)
        if config is not None
        else (DEFAULT_LOG_KEEP, DEFAULT_LOG_MEGABYTES)
    )
    prune_agent_logs(locations.log_dir(), keep=keep, max_bytes=int(megabytes * 1024 * 1024))


def run_tui(invocation: Invocation) -> int:
    options = invocation.options
    if options.config_path:
        say(str(config_path()))
        return 0
    config, problems = load_config_if_any()
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
    setup_logging(config)
    settings, *more = agent_settings(invocation, config, problems)
    ui = ui_settings(options, config, problems)
    return asyncio.run(_run_app(settings, ui, config, problems, more))


async def _run_app(
    settings: AppSettings,
    ui: UiSettings,
    config: Config | None,
    problems: list[str],
    more: list[AppSettings] | None = None,
) -> int:
    """Start the agents, then import and run the app: the agents boot while the UI loads."""
    from acp_tui.session.launch.prestart import PrestartedAgent

    early: list[PrestartedAgent] = []
    for each in [settings, *(more or [])]:
        if each.agent is None:
            continue
        started = await PrestartedAgent.start(
            each.agent.argv,
            cwd=each.agent.cwd,
            env=each.agent.env_dict(),
            log_dir=each.log_dir,
        )
        if started is not None:
            each.process_factory = started.factory
            early.append(started)
    try:
        return await _run_loaded_app(settings, ui, config, problems, more or [])
    finally:
        for started in early:
            await started.discard()


async def _run_loaded_app(
    settings: AppSettings,
    ui: UiSettings,
    config: Config | None,
    problems: list[str],
    more: list[AppSettings] | None = None,
) -> int:
    app = make_tui_app(settings, ui, config, problems, more)
    prepare_to_run(app)
    result = await app.run_async()
    failures = app.workspace.start_failures
    if failures:
        # Every agent that could not start, one line each; exit 1 if any did not.
        for failure in failures:
            say(failure, file=sys.stderr)
        return 1
    return result or 0


def make_tui_app(
    settings: AppSettings,
    ui: UiSettings,
    config: Config | None,
    problems: list[str],
    more: list[AppSettings] | None = None,
) -> AcpTuiApp:
    """The app the command line runs: on ``settings``' agent (and ``more``), or, with none,
    the launcher over the configured, detected and demo agents, recently used first."""
    from acp_tui.config.recent import RecentAgents
    from acp_tui.ui.app import make_app

    choices = None
    recent = None
    if settings.agent is None:
        from acp_tui.config.known_agents import detect_agents
        from acp_tui.demo_agent import demo_agent_argv
        from acp_tui.ui.screens.launcher import build_choices

        if config is None:
            config = _default_config()
        recent = RecentAgents()
        choices = build_choices(config, detect_agents(), demo_agent_argv(), recent.keys())
    return make_app(
        settings,
        ui=ui,
        choices=choices,
        problems=problems,
        recent=recent,
        remember_theme=True,
        config_location=_home_relative(config_path()),
        more_agents=more or [],
        config=config,
    )


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


def load_config_if_any() -> tuple[Config | None, list[str]]:
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
