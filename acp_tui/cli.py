"""Command line: ``acp-tui [OPTIONS] -- AGENT [ARGS...]`` and the headless sub-commands.

Everything after the first ``--`` is the agent's command line, untouched, so agent flags
never collide with ours.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from acp_tui import __version__

SUBCOMMANDS = ("ask", "sessions")

EPILOG = """\
examples:
  acp-tui --demo                              the built-in demo agent
  acp-tui -- claude-agent-acp                 any ACP agent: its command after --
  acp-tui -- gemini --experimental-acp
  acp-tui ask "explain this repo" -- codex-acp
  acp-tui sessions --all --json -- goose acp
"""


@dataclass(slots=True)
class Invocation:
    """The parsed command line: our options plus the agent's argv."""

    command: str  # "tui", "ask" or "sessions"
    options: argparse.Namespace
    agent_argv: list[str] = field(default_factory=list)


def _split_agent(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    argv = list(argv)
    if "--" in argv:
        index = argv.index("--")
        return argv[:index], argv[index + 1 :]
    return argv, []


def _add_agent_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--demo",
        action="store_true",
        help="use the built-in demo agent (no network, no model) instead of AGENT",
    )
    parser.add_argument(
        "--cwd",
        metavar="DIR",
        help="working directory of the session (default: the current directory)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acp-tui",
        usage="acp-tui [OPTIONS] -- AGENT [ARGS...]\n       acp-tui {ask,sessions} ... -- AGENT [ARGS...]",
        description="A terminal chat client for the Agent Client Protocol (ACP).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"acp-tui {__version__}")
    _add_agent_options(parser)
    policy = parser.add_mutually_exclusive_group()
    policy.add_argument(
        "--yolo",
        action="store_true",
        help="answer every permission request with its first allow option (shown in the header)",
    )
    policy.add_argument(
        "--deny-all", action="store_true", help="reject every permission request automatically"
    )
    parser.add_argument(
        "--resume",
        nargs="?",
        const="",
        metavar="ID",
        help="open the most recent session of this directory, or the given one",
    )
    parser.add_argument(
        "--continue",
        dest="continue_",
        action="store_true",
        help="resume the most recent session of this directory without asking",
    )
    parser.add_argument("--agent", metavar="NAME", help="start the agent NAME from the config file")
    parser.add_argument(
        "--config-path", action="store_true", help="print where the config file is read from"
    )
    parser.add_argument("--serve", action="store_true", help="serve the app to a web browser")
    parser.add_argument("--port", type=int, default=8000, help="port for --serve (default 8000)")
    return parser


def build_ask_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acp-tui ask",
        usage='acp-tui ask "PROMPT" [--cwd DIR] [--session ID] [--allow|--deny] -- AGENT [ARGS...]',
        description="Send one prompt, stream the reply to stdout, exit 0 when the turn ended normally.",
    )
    parser.add_argument("prompt", help="the prompt text ('-' reads it from stdin)")
    _add_agent_options(parser)
    parser.add_argument("--session", metavar="ID", help="continue this session (resume or load)")
    answer = parser.add_mutually_exclusive_group()
    answer.add_argument(
        "--allow", action="store_true", help="answer permission requests with the first allow option"
    )
    answer.add_argument(
        "--deny", action="store_true", help="reject permission requests (the default)"
    )
    return parser


def build_sessions_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acp-tui sessions",
        usage="acp-tui sessions [--cwd DIR | --all] [--json] -- AGENT [ARGS...]",
        description="List the agent's sessions (session/list, every page).",
    )
    _add_agent_options(parser)
    parser.add_argument("--all", action="store_true", help="sessions of every directory")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser


def parse(argv: Sequence[str]) -> Invocation:
    ours, agent_argv = _split_agent(argv)
    if ours and ours[0] in SUBCOMMANDS:
        command = ours[0]
        parser = build_ask_parser() if command == "ask" else build_sessions_parser()
        options = parser.parse_args(ours[1:])
    else:
        command = "tui"
        parser = build_parser()
        options = parser.parse_args(ours)
    if getattr(options, "demo", False) and agent_argv:
        parser.error("give either --demo or an agent command after --, not both")
    if options.cwd is not None:
        options.cwd = os.path.abspath(options.cwd)
        if not os.path.isdir(options.cwd):
            parser.error(f"--cwd {options.cwd}: no such directory")
    return Invocation(command, options, agent_argv)


def main(argv: Sequence[str] | None = None) -> int:
    invocation = parse(sys.argv[1:] if argv is None else argv)
    options = invocation.options
    if options.demo:
        from acp_tui.demo_agent import demo_agent_argv

        invocation.agent_argv = demo_agent_argv()
    if invocation.command in ("ask", "sessions"):
        from acp_tui import headless

        if not invocation.agent_argv:
            print(
                f"acp-tui {invocation.command}: give the agent command after --, or --demo",
                file=sys.stderr,
            )
            return 2
        if invocation.command == "ask":
            return headless.run_ask(invocation)
        return headless.run_sessions(invocation)

    from acp_tui.ui import launch

    return launch.run_tui(invocation)
