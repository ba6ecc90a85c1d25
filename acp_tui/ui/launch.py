"""From the parsed command line to a running app, and back to an exit code."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from acp_tui.cli import Invocation
from acp_tui.ui.settings import AppSettings


def settings_from_invocation(invocation: Invocation) -> AppSettings:
    options = invocation.options
    policy = "yolo" if options.yolo else "deny" if options.deny_all else "ask"
    resume: str | None = options.resume
    if options.continue_ and resume is None:
        resume = ""
    settings = AppSettings(
        agent_argv=invocation.agent_argv,
        permission_policy=policy,
        resume=resume,
        continue_latest=options.continue_,
        agent_label="demo agent" if options.demo else "",
    )
    if options.cwd:
        settings.cwd = options.cwd
    return settings


def setup_logging() -> Path | None:
    """Client logs go to a file: the terminal belongs to the app."""
    from platformdirs import user_log_dir

    try:
        directory = Path(user_log_dir("acp-tui", appauthor=False))
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / "acp-tui.log"
        handler = logging.FileHandler(path, encoding="utf-8")
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
        from platformdirs import user_config_dir

        print(f"{user_config_dir('acp-tui', appauthor=False)}/config.toml")
        return 0
    if not invocation.agent_argv:
        print(
            "acp-tui: give the agent's command after --, e.g. `acp-tui -- claude-agent-acp`,\n"
            "or try the built-in demo agent: `acp-tui --demo`",
            file=sys.stderr,
        )
        return 2
    from acp_tui.ui.app import make_app

    setup_logging()
    app = make_app(settings_from_invocation(invocation))
    result = app.run()
    if app.start_failure:
        print(app.start_failure, file=sys.stderr)
        return 1
    return result or 0
