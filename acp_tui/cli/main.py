"""The ``acp-tui`` command: parse the command line (:mod:`.parse`) and run what it asks for."""

from __future__ import annotations

import copy
import gc
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from acp_tui.cli.agents import resolve_command_line
from acp_tui.cli.parse import RECORD_IN_DATA_DIR, Invocation, parse, unknown_agent_message
from acp_tui.cli.say import say
from acp_tui.text.safety import escaped_line

if TYPE_CHECKING:
    from acp_tui.config.load import Config

__all__ = ["main"]


def _resolve(invocation: Invocation, config: Config) -> int | None:
    """The agent of a headless command (``--agent NAME``, ``--demo`` or ``-- CMD``), resolved
    as the TUI resolves it, into ``invocation.spec``. Returns an exit code on error."""
    from acp_tui.session.launch.resolve import UnknownAgent

    try:
        resolved = resolve_command_line(invocation.options, invocation.agent_argv, config)
    except UnknownAgent as error:
        say(unknown_agent_message(str(error.args[0]), config), file=sys.stderr)
        return 2
    if resolved is None:
        say(
            f"acp-tui {invocation.command}: give the agent command after --, "
            "--agent NAME, or --demo",
            file=sys.stderr,
        )
        return 2
    if resolved.bad_cwd is not None:
        say(f"acp-tui: {resolved.bad_cwd}", file=sys.stderr)
        return 2
    for problem in resolved.problems:
        say(f"acp-tui: config: {problem}", file=sys.stderr)
    invocation.spec = resolved.spec
    return None


def _agents_to_list(options: Any, config: Config) -> list[str] | None:
    """``acp-tui sessions``: the configured agents asked for (``--agent``, repeatable, each
    once; ``--all-agents``: all of them), or None for none."""
    if getattr(options, "all_agents", False):
        return list(config.agents)
    given = getattr(options, "agent", None)
    if not given:
        return None
    return list(dict.fromkeys(given))


def _sessions_of_agents(invocation: Invocation, config: Config, names: list[str]) -> int:
    """``acp-tui sessions`` for several configured agents at once (one table)."""
    from acp_tui.cli.headless_sessions_agents import AgentToList, run_sessions_of_agents

    if not names:
        from acp_tui.config.load import config_path

        say(
            f"acp-tui sessions: --all-agents: no agents in {config_path()}; "
            "add one as [agents.NAME] with command = ...",
            file=sys.stderr,
        )
        return 2
    agents: list[AgentToList] = []
    for name in names:
        options = copy.copy(invocation.options)
        options.agent = name
        one = Invocation(invocation.command, options, [], invocation.argv, invocation.recorder)
        code = _resolve(one, config)
        if code is not None:
            return code
        agents.append(AgentToList(name, one))
    return run_sessions_of_agents(
        agents,
        json_output=bool(invocation.options.json),
        all_dirs=bool(invocation.options.all),
    )


def _export(invocation: Invocation, config: Config) -> int:
    """``acp-tui export``: a session through its agent, or a recording's redacted copy."""
    from acp_tui.cli import export

    options = invocation.options
    patterns = dict(config.export.redact_patterns)
    if options.recording is not None:
        if options.session is not None or not options.redact:
            say("acp-tui export: --recording FILE takes --redact and no SESSION", file=sys.stderr)
            return 2
        return export.export_recording(options.recording, patterns)
    if options.session is None:
        say("acp-tui export: give the SESSION to export (its id)", file=sys.stderr)
        return 2
    code = _resolve(invocation, config)
    if code is not None:
        return code
    return export.run_export(invocation, patterns)


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if "_ARGCOMPLETE" in os.environ:
        from acp_tui.cli import completion

        completion.complete()  # a shell asking what a Tab completes to: answers and exits
    if args[:1] == ["completion"]:
        from acp_tui.cli import completion

        return completion.main(args[1:])
    if args[:1] in (["checkpoints"], ["rewind"]):
        from acp_tui.cli import checkpoints

        if args[0] == "checkpoints":
            return checkpoints.main_checkpoints(args[1:])
        return checkpoints.main_rewind(args[1:])
    if args[:1] == ["search"]:
        from acp_tui.cli import search

        return search.main_search(args[1:])
    if args[:1] == ["spend"]:
        from acp_tui.cli import spend

        return spend.main_spend(args[1:])
    if args[:1] == ["replay"]:
        from acp_tui.devtools import replay

        return replay.main(args[1:])
    invocation = parse(args)
    record = getattr(invocation.options, "record", None)
    if record is not None:
        if getattr(invocation.options, "serve", False):
            say("acp-tui: --record cannot be used with --serve", file=sys.stderr)
            return 2
        from acp_tui.services.path_gate import PathRefused

        try:
            from acp_tui.devtools.recording import open_recorder

            invocation.recorder = open_recorder(None if record == RECORD_IN_DATA_DIR else record)
        except (OSError, PathRefused) as error:
            why = error.strerror if isinstance(error, OSError) and error.strerror else error
            say(
                f"acp-tui: --record {escaped_line(record, 1000)}: {escaped_line(str(why), 2000)}",
                file=sys.stderr,
            )
            return 2
    try:
        return _run(invocation)
    finally:
        if invocation.recorder is not None:
            invocation.recorder.close()
            if invocation.recorder.error:
                say(f"acp-tui: {invocation.recorder.error}", file=sys.stderr)
            else:
                where = escaped_line(str(invocation.recorder.path), 2000)
                say(f"acp-tui: the wire was recorded in {where}", file=sys.stderr)


def _run(invocation: Invocation) -> int:
    options = invocation.options
    if invocation.command == "tui" and options.config_path:
        from acp_tui.config.load import config_path

        say(str(config_path()))
        return 0
    if invocation.command == "tui" and options.serve:
        from acp_tui.cli import web

        return web.serve(invocation.argv, port=options.port)
    if invocation.command in ("ask", "sessions", "export"):
        from acp_tui.cli import headless
        from acp_tui.config.load import load_config

        config, problems = load_config()
        for problem in problems:
            say(f"acp-tui: config: {problem}", file=sys.stderr)
        from acp_tui.cli.tui import tidy_logs

        tidy_logs(config)
        if invocation.command == "export":
            return _export(invocation, config)
        if invocation.command == "sessions":
            names = _agents_to_list(options, config)
            if names is not None and (len(names) != 1 or options.all_agents):
                # --all-agents always prints the agent column (a script gets one shape).
                return _sessions_of_agents(invocation, config, names)
            options.agent = names[0] if names else None
        code = _resolve(invocation, config)
        if code is not None:
            return code
        if invocation.command == "ask":
            from acp_tui.config.budgets import budgets_of

            invocation.budgets = budgets_of(config)
            return headless.run_ask(invocation)
        return headless.run_sessions(invocation)

    from acp_tui.ui.textual_patches import from_environment
    from acp_tui.ui.textual_patches.early_keys import keep_keys_as_typed

    if from_environment()("early-keys"):
        keep_keys_as_typed()  # an Enter typed while the UI loads must not become a new line
    # No collection while the UI loads: its some 45,000 objects are made to live as long as
    # the app (a collection then finds a handful of garbage in ~30 ms), and the automatic
    # collections of the import took another ~40 ms of the way to a ready prompt. The app
    # turns collection back on as it starts (settle_long_lived_objects).
    collecting = gc.isenabled()
    gc.disable()
    try:
        from acp_tui.cli import tui as launch

        return launch.run_tui(invocation)
    finally:
        if collecting:
            gc.enable()
