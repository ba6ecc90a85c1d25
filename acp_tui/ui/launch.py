"""From the parsed command line to a running app, and back to an exit code."""

from __future__ import annotations

import sys

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

    app = make_app(settings_from_invocation(invocation))
    result = app.run()
    if app.start_failure:
        print(app.start_failure, file=sys.stderr)
        return 1
    return result or 0
