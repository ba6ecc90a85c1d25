"""Shell completion for bash, zsh and fish, generated from the command line's own parsers by
argcomplete: ``acp-tui completion SHELL`` prints the script that a shell loads once; at each
Tab the shell runs ``acp-tui`` with ``_ARGCOMPLETE`` set, and :func:`complete` answers from the
same parsers that read the command line (so an option added there completes with no more
work), then exits before anything else runs."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from acp_tui.cli.parse import (
    build_ask_parser,
    build_export_parser,
    build_parser,
    build_sessions_parser,
)
from acp_tui.cli.say import InertArgumentParser, say

__all__ = ["SHELLS", "build_completion_parser", "complete", "completion_parser", "main"]

SHELLS = ("bash", "zsh", "fish")


def build_completion_parser() -> argparse.ArgumentParser:
    parser = InertArgumentParser(
        prog="acp-tui completion",
        usage="acp-tui completion {bash,zsh,fish}",
        description="Print the shell code that completes acp-tui's options; see the README "
        "(Shell completion) for where it goes.",
    )
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    return parser


def completion_parser() -> argparse.ArgumentParser:
    """The whole command line as one parser: the TUI's options, and each sub-command's own
    parser under its name (the real parsers, which :mod:`acp_tui.cli.main` dispatches to by
    the first word), with completers for the values a person looks up."""
    from acp_tui.cli.checkpoints import build_checkpoints_parser, build_rewind_parser
    from acp_tui.cli.spend import build_spend_parser
    from acp_tui.devtools import replay

    parser = build_parser()
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, sub in (
        ("ask", build_ask_parser()),
        ("sessions", build_sessions_parser()),
        ("export", build_export_parser()),
        ("replay", replay.build_parser()),
        ("checkpoints", build_checkpoints_parser()),
        ("rewind", build_rewind_parser()),
        ("spend", build_spend_parser()),
        ("completion", build_completion_parser()),
    ):
        commands.add_parser(
            name,
            parents=[sub],
            add_help=False,
            help=sub.description,
            conflict_handler="resolve",
        )
    _attach_completers(parser)
    return parser


def complete() -> None:
    """Answer the shell's completion request and exit (only when ``_ARGCOMPLETE`` is set)."""
    import argcomplete

    argcomplete.autocomplete(completion_parser())


def main(argv: Sequence[str]) -> int:
    """``acp-tui completion SHELL``: the shell code, on stdout."""
    import argcomplete

    options = build_completion_parser().parse_args(list(argv))
    say(argcomplete.shellcode(["acp-tui"], shell=options.shell), file=sys.stdout)
    return 0


# -- what each value completes to ------------------------------------------------------------


def _configured_agents(**_: Any) -> list[str]:
    from acp_tui.config.load import load_config

    config, _problems = load_config()
    return sorted(config.agents)


def _themes(**_: Any) -> list[str]:
    from acp_tui.ui.themes import theme_names

    return theme_names()


def _attach_completers(parser: argparse.ArgumentParser) -> None:
    import argcomplete.completers as completers

    by_dest: dict[str, Callable[..., Any]] = {
        "cwd": completers.DirectoriesCompleter(),
        "add_dirs": completers.DirectoriesCompleter(),
        "agents": _configured_agents,
        "agent": _configured_agents,
        "theme": _themes,
        "record": completers.FilesCompleter(),
        "file": completers.FilesCompleter(["jsonl"]),
    }
    for action in parser._actions:  # argparse has no public list of a parser's arguments
        completer = by_dest.get(action.dest)
        if completer is not None:
            action.completer = completer  # type: ignore[attr-defined]
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                _attach_completers(sub)
