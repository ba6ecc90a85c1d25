"""Command line: ``acp-tui [OPTIONS] [-- AGENT [ARGS...]]`` and the headless sub-commands.

With no agent, the app opens the launcher.

Everything after the first ``--`` is the agent's command line, untouched, so agent flags
never collide with ours.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acp_tui import __version__
from acp_tui.cli.say import InertArgumentParser, say

if TYPE_CHECKING:
    from acp_tui.config.budgets import Budget
    from acp_tui.config.load import Config
    from acp_tui.devtools.recording import WireRecorder
    from acp_tui.session.launch.spec import AgentSpec

SUBCOMMANDS = ("ask", "sessions", "export")

#: ``--record`` without a file: a new recording in acp-tui's data folder.
RECORD_IN_DATA_DIR = ""

EPILOG = """\
examples:
  acp-tui                                     the launcher: pick an agent
  acp-tui --demo                              the built-in demo agent
  acp-tui --agent claude                      an agent from the config file
  acp-tui -- claude-agent-acp                 any ACP agent: its command after --
  acp-tui --agent claude --agent codex        several agents at once (Ctrl+G switches)
  acp-tui -- gemini --experimental-acp
  acp-tui --continue -- claude-agent-acp      carry on with the last conversation here
  acp-tui ask "explain this repo" -- codex-acp
  acp-tui sessions --all --json -- goose acp
  acp-tui --serve --port 8000 --demo          the same app in a web browser
  acp-tui --record bug.jsonl -- my-agent      record the wire, for a bug report
  acp-tui --record -- my-agent                the same, into acp-tui's data folder
  acp-tui export ID --redact --format html --demo   a session to share, secrets taken out
  acp-tui replay bug.jsonl                    play a recording back (no agent needed)
  acp-tui replay --check bug.jsonl            list a recording's protocol errors
  eval "$(acp-tui completion bash)"           Tab completion in bash (zsh, fish: the same)
"""


def installed_version() -> str:
    """The version of the installed distribution, from its package metadata (what pip, pipx
    or uv installed), or the source tree's when it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("acp-tui")
    except PackageNotFoundError:
        return f"{__version__} (not installed)"


class _VersionAction(argparse.Action):
    """``--version``: the metadata is read only when asked for, not on every start."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS) -> None:
        super().__init__(
            option_strings,
            dest=dest,
            default=argparse.SUPPRESS,
            nargs=0,
            help="show the version and exit",
        )

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        say(f"acp-tui {installed_version()}")
        parser.exit()


@dataclass(slots=True)
class Invocation:
    """The parsed command line: our options plus the agent's argv."""

    command: str  # "tui", "ask", "sessions" or "export"
    options: argparse.Namespace
    agent_argv: list[str] = field(default_factory=list)
    #: The command line as given (for ``--serve``, which runs the same app without it).
    argv: list[str] = field(default_factory=list)
    #: ``--record FILE``, opened.
    recorder: WireRecorder | None = None
    #: A headless command's agent, resolved (acp_tui.session.launch.resolve).
    spec: AgentSpec | None = None
    #: The config's budgets (``acp-tui ask`` keeps to them).
    budgets: tuple[Budget, ...] = ()


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
    parser.add_argument(
        "--review-writes",
        action="store_true",
        help="show each file the agent writes through acp-tui as a diff first and write only "
        "the hunks kept (ask: --allow writes them whole, else they are rejected)",
    )
    parser.add_argument(
        "--agent",
        metavar="NAME",
        action="append",
        dest="agents",
        help="start the agent NAME from the config file (repeatable in the app: each one runs "
        "beside the others, with --demo and an agent command after -- too)",
    )
    parser.add_argument(
        "--protocol",
        type=int,
        choices=[1, 2],
        metavar="{1,2}",
        help="ACP protocol version to ask for: 1 (default) or 2, the draft (an agent that "
        "answers 1 is spoken to in version 1)",
    )
    parser.add_argument(
        "--no-checkpoints",
        action="store_true",
        help="take no checkpoints of the project's files (nothing to rewind the files to)",
    )
    parser.add_argument(
        "--record",
        metavar="FILE",
        nargs="?",
        const=RECORD_IN_DATA_DIR,
        help="write every message to and from the agent, timestamped, to FILE (JSON Lines; "
        "without FILE: a new file in acp-tui's data folder, named when acp-tui ends); "
        "play it back with `acp-tui replay FILE`",
    )


def _add_system_prompt_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--system-prompt",
        metavar="TEXT|@FILE",
        help="instructions sent with each session to agents that take a client's system "
        "prompt (@FILE: that file's text); wins over the config's system_prompt",
    )
    parser.add_argument(
        "--system-prompt-mode",
        choices=["append", "override"],
        help="append (the default) adds to the agent's own instructions; override replaces "
        "its default ones (only agents that advertise it take that)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = InertArgumentParser(
        prog="acp-tui",
        usage="acp-tui [OPTIONS] [--agent NAME]... [--demo] [-- AGENT [ARGS...]]\n       acp-tui {ask,sessions} ... [--agent NAME | --demo | -- AGENT [ARGS...]]\n       acp-tui export SESSION [--redact] [--format md|html] [--agent NAME | --demo | -- AGENT]\n       acp-tui replay [--speed FACTOR | --fast] [--check] FILE\n       acp-tui checkpoints [--session ID] [--json]\n       acp-tui search WORDS... [--agent NAME] [--json] | --forget ID | --reindex\n       acp-tui spend [--json]\n       acp-tui rewind --session ID --turn N --code [--force]",
        description="A terminal chat client for the Agent Client Protocol (ACP).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    _add_agent_options(parser)
    _add_system_prompt_options(parser)
    policy = parser.add_mutually_exclusive_group()
    policy.add_argument(
        "--yolo",
        action="store_true",
        help="allow every permission request, once where the agent offers that, else always "
        "(shown in the header)",
    )
    policy.add_argument(
        "--deny-all", action="store_true", help="reject every permission request automatically"
    )
    parser.add_argument(
        "--resume",
        nargs="?",
        const="",
        metavar="ID",
        help="reopen session ID; without ID, list this directory's sessions to choose from "
        "(the most recent highlighted: Enter opens it, Esc starts a new one)",
    )
    parser.add_argument(
        "--continue",
        dest="continue_",
        action="store_true",
        help="reopen the most recent session of this directory that has a conversation, "
        "without asking",
    )
    parser.add_argument(
        "--add-dir",
        dest="add_dirs",
        action="append",
        default=[],
        metavar="DIR",
        help="another directory the sessions work in besides the working directory "
        "(repeatable; relative to the current directory; sent to agents that support it, "
        "and the agent may read and write there without asking)",
    )
    parser.add_argument(
        "--theme",
        metavar="NAME",
        help="colour theme for this run (pick one with Ctrl+P to keep it)",
    )
    parser.add_argument(
        "--config-path", action="store_true", help="print where the config file is read from"
    )
    parser.add_argument(
        "--serve",
        action="store_true",
        help="serve the app to a web browser on 127.0.0.1, at the address it prints (with a "
        "random token: whoever has it can use acp-tui as you)",
    )
    parser.add_argument("--port", type=int, default=8000, help="port for --serve (default 8000)")
    return parser


def build_ask_parser() -> argparse.ArgumentParser:
    parser = InertArgumentParser(
        prog="acp-tui ask",
        usage='acp-tui ask "PROMPT" [--cwd DIR] [--session ID] [--allow|--deny] [--allow-outside] '
        "[--json] [--over-budget] [--system-prompt TEXT|@FILE] -- AGENT [ARGS...]",
        description="Send one prompt, stream the reply to stdout, exit 0 when the turn ended normally.",
    )
    parser.add_argument("prompt", help="the prompt text ('-' reads it from stdin)")
    _add_agent_options(parser)
    _add_system_prompt_options(parser)
    parser.add_argument("--session", metavar="ID", help="continue this session (resume or load)")
    answer = parser.add_mutually_exclusive_group()
    answer.add_argument(
        "--allow",
        action="store_true",
        help="allow the permission requests no permission rule decides, once where the agent "
        "offers that, else always",
    )
    answer.add_argument(
        "--deny",
        action="store_true",
        help="reject every permission request, whatever the rules say (without --allow or "
        "--deny: the rules decide, and what they do not is rejected)",
    )
    parser.add_argument(
        "--allow-outside",
        action="store_true",
        help="let the agent read and write files outside --cwd and run commands outside it "
        "or with an environment that changes what runs (refused by default, said on stderr)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object per line for each change of the transcript, then the "
        "result (see the README)",
    )
    parser.add_argument(
        "--over-budget",
        action="store_true",
        help="send even when a budget of the config is spent (the TUI would ask first); a "
        "budget with hard = true still refuses",
    )
    return parser


def build_sessions_parser() -> argparse.ArgumentParser:
    parser = InertArgumentParser(
        prog="acp-tui sessions",
        usage="acp-tui sessions [--cwd DIR | --all] [--json] "
        "[--agent NAME... | --all-agents | --demo | -- AGENT [ARGS...]]",
        conflict_handler="resolve",
        description="List the agent's sessions (session/list, every page).",
    )
    _add_agent_options(parser)
    # Several agents at once (issue 19): --agent is repeatable here, --all-agents lists
    # every configured one; one table with an AGENT column, or an "agent" field in JSON.
    parser.add_argument(
        "--agent",
        metavar="NAME",
        action="append",
        help="the agent NAME from the config file; repeat it to list several agents at once",
    )
    parser.add_argument(
        "--all-agents",
        action="store_true",
        help="the sessions of every agent in the config file",
    )
    parser.add_argument("--all", action="store_true", help="sessions of every directory")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser


def build_export_parser() -> argparse.ArgumentParser:
    parser = InertArgumentParser(
        prog="acp-tui export",
        usage="acp-tui export SESSION [--redact] [--format md|html] [--cwd DIR] "
        "[--agent NAME | --demo | -- AGENT [ARGS...]]\n"
        "       acp-tui export --recording FILE --redact",
        description="Export a session (loaded from its agent) as Markdown or one "
        "self-contained HTML page into acp-tui's exports folder; --redact takes out secrets, "
        "private keys, passwords in URLs, home directories, e-mail addresses and the "
        "config's [export] redact_patterns, and lists each on stderr.",
    )
    parser.add_argument("session", nargs="?", metavar="SESSION", help="the session's id")
    _add_agent_options(parser)
    parser.add_argument(
        "--redact", action="store_true", help="redact the export (each finding listed on stderr)"
    )
    parser.add_argument(
        "--format", choices=["md", "html"], default="md", help="Markdown (md, the default) or html"
    )
    parser.add_argument(
        "--recording",
        metavar="FILE",
        help="a --record file to copy redacted (with --redact) instead of a session",
    )
    return parser


def directory_problem(path: str) -> str | None:
    """Why ``path`` cannot be a working directory ("no such directory", "not a directory"),
    or None when it can."""
    if os.path.isdir(path):
        return None
    if os.path.exists(path):
        return "not a directory"
    return "no such directory"


def parse(argv: Sequence[str]) -> Invocation:
    ours, agent_argv = _split_agent(argv)
    if ours and ours[0] in SUBCOMMANDS:
        command = ours[0]
        builders = {"ask": build_ask_parser, "export": build_export_parser}
        parser = builders.get(command, build_sessions_parser)()
        options = parser.parse_args(ours[1:])
    else:
        command = "tui"
        parser = build_parser()
        options = parser.parse_args(ours)
    names: list[str] = list(getattr(options, "agents", None) or [])
    if hasattr(options, "agents"):
        #: The first ``--agent NAME``: what a command that runs one agent uses. (``sessions``
        #: has its own ``--agent``, a list: several agents in one table.)
        options.agent = names[0] if names else None
    chosen = [
        flag
        for flag, given in (
            ("--demo", getattr(options, "demo", False)),
            ("--agent", bool(names) or bool(getattr(options, "agent", None))),
            ("--all-agents", getattr(options, "all_agents", False)),
            ("an agent command after --", bool(agent_argv)),
        )
        if given
    ]
    if command == "tui":
        options.agent_choices = agent_choices(ours, names, bool(options.demo), agent_argv)
    elif len(chosen) > 1 or len(names) > 1:
        parser.error(f"give only one of {', '.join(chosen)}")
    if options.cwd is not None:
        options.cwd = os.path.abspath(options.cwd)
        problem = directory_problem(options.cwd)
        if problem:
            parser.error(f"--cwd {options.cwd}: {problem}")
    add_dirs: list[str] = []
    for raw in getattr(options, "add_dirs", None) or []:
        path = os.path.abspath(os.path.expanduser(raw))
        problem = directory_problem(path)
        if problem:
            parser.error(f"--add-dir {raw}: {path}: {problem}")
        if path not in add_dirs:
            add_dirs.append(path)
    options.add_dirs = add_dirs
    _check_system_prompt(parser, options)
    return Invocation(command, options, agent_argv, list(argv))


def _check_system_prompt(parser: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    """``--system-prompt @FILE`` must name a file that can be read (the resolver reads it)."""
    given = getattr(options, "system_prompt", None)
    if given is None:
        return
    from acp_tui.session.launch.system_prompt import SystemPromptProblem, read_system_prompt

    try:
        read_system_prompt(given, "append", origin="--system-prompt", base=os.getcwd())
    except SystemPromptProblem as problem:
        parser.error(str(problem))


#: One agent of ``acp-tui --agent A --demo -- CMD``: ``("config", NAME)``, ``("demo", "")`` or
#: ``("command", ARGV)``.
AgentChoice = tuple[str, Any]


def agent_choices(
    ours: Sequence[str], names: Sequence[str], demo: bool, command: Sequence[str]
) -> list[AgentChoice]:
    """The agents to run, in the order given (the first is shown first), each once: ``--agent
    NAME`` and ``--demo`` as they come on the command line, then the command after ``--``."""
    specs: list[AgentChoice] = []
    for index, token in enumerate(ours):
        if token == "--demo":
            specs.append(("demo", ""))
        elif token == "--agent" and index + 1 < len(ours):
            specs.append(("config", ours[index + 1]))
        elif token.startswith("--agent="):
            specs.append(("config", token.split("=", 1)[1]))
    # What a scan of the tokens missed (an abbreviated option): after the rest, still run.
    specs += [("config", name) for name in names if ("config", name) not in specs]
    if demo and ("demo", "") not in specs:
        specs.append(("demo", ""))
    specs = [spec for spec in specs if spec[0] != "config" or spec[1] in names]
    if command:
        specs.append(("command", list(command)))
    unique: list[AgentChoice] = []
    for spec in specs:
        if spec not in unique:
            unique.append(spec)
    return unique


def unknown_agent_message(name: str, config: Config) -> str:
    from acp_tui.config.load import config_path

    names = ", ".join(sorted(config.agents)) or "none"
    return (
        f"acp-tui: no agent named {name!r} in {config_path()}\n"
        f"configured agents: {names}\n"
        "add one as [agents.NAME] with command = ...; see `acp-tui --help`"
    )
