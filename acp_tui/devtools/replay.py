"""``acp-tui replay FILE``: what a recorded session looked like, played back offline.

The TUI starts as usual, but the agent is the recording (a
:class:`~acp_tui.protocol.replay_peer.ReplayPeer` in this process; nothing is spawned): the
agent's messages arrive at their recorded times, the person's prompts are sent as recorded,
permission dialogs come up and wait for an answer. The header says it is a replay.

``acp-tui replay --check FILE`` runs no screen at all (Textual is not even imported): it lists
the protocol errors in the recording (:mod:`acp_tui.devtools.wire_check`) and exits 1 if there are any;
error answers are listed apart, as notes (valid protocol).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.cli.say import InertArgumentParser, say
from acp_tui.cli.terminal import NO_TERMINAL_EXIT, terminal_problem
from acp_tui.protocol.recording import (
    Recording,
    RecordingError,
    load_recording,
)
from acp_tui.session.launch.replay import ReplaySession, first_opening, requested_version
from acp_tui.text.safety import escaped_line

if TYPE_CHECKING:
    from acp_tui.session.launch.settings import AppSettings


EPILOG = """\
examples:
  acp-tui --record bug.jsonl -- my-agent     record a session (see the README)
  acp-tui replay bug.jsonl                   watch it again, at the recorded pace
  acp-tui replay --fast bug.jsonl            as fast as it goes
  acp-tui replay --check bug.jsonl           list its protocol errors (exit 1 if any)
"""


def build_parser() -> argparse.ArgumentParser:
    parser = InertArgumentParser(
        prog="acp-tui replay",
        usage="acp-tui replay [--speed FACTOR | --fast] [--check] FILE",
        description=(
            "Play a recording made with --record (or saved from the protocol inspector)\n"
            "back in the TUI, with no agent process; or check it for protocol errors."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", metavar="FILE", help="the recording (JSON Lines)")
    pace = parser.add_mutually_exclusive_group()
    pace.add_argument(
        "--speed",
        type=_speed,
        default=1.0,
        metavar="FACTOR",
        help="1 plays at the recorded pace (default), 2 twice as fast, 0 as fast as possible",
    )
    pace.add_argument("--fast", action="store_true", help="as fast as possible (--speed 0)")
    parser.add_argument(
        "--check",
        action="store_true",
        help="no screen: list the recording's protocol errors, one a line; exit 1 if any",
    )
    parser.add_argument("--theme", metavar="NAME", help="colour theme for the replay")
    return parser


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("the speed is a factor of 0 or more")
    return value


def main(argv: Sequence[str]) -> int:
    options = build_parser().parse_args(list(argv))
    try:
        recording = _load(options.file)
    except RecordingError as error:
        say(f"acp-tui replay: {escaped_line(str(error), 2000)}", file=sys.stderr)
        return 2
    if options.check:
        return run_check(recording)
    problem = terminal_problem()
    if problem is not None:
        say(problem, file=sys.stderr)
        return NO_TERMINAL_EXIT
    speed = 0.0 if options.fast else options.speed
    return run_tui(recording, speed, theme=options.theme)


def _load(given: str) -> Recording:
    """The recording at ``given``, opened through the path gate: a pipe, a device or a
    socket is refused (reading one would block or never end), never read."""
    from acp_tui.services.path_gate import PathRefused, open_to_read, resolve_path

    try:
        file = open_to_read(resolve_path(given))
    except (OSError, ValueError, PathRefused) as error:
        why = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise RecordingError(f"cannot read {given}: {why}") from None
    return load_recording(given, file)  # kept open: its lines are read as they are played


# ---------------------------------------------------------------------------------- check


def run_check(recording: Recording, out: Any = None) -> int:
    from acp_tui.devtools.wire_check import check_recording

    out = out or sys.stdout
    found = check_recording(recording)
    problems = [problem for problem in found if not problem.note]
    notes = [problem for problem in found if problem.note]
    messages = sum(len(segment.entries) for segment in recording.segments)
    connections = len(recording.segments)
    summary = f"{messages} lines, {connections} connection{'s' if connections != 1 else ''}"
    if not problems:
        say(f"{recording.path}: no protocol errors ({summary})", file=out)
    else:
        count = len(problems)
        say(
            f"{recording.path}: {count} protocol error{'s' if count != 1 else ''} ({summary})",
            file=out,
        )
        for problem in problems:
            say(problem.format(), file=out)
    if notes:
        count = len(notes)
        say(f"{count} error answer{'s' if count != 1 else ''} (valid protocol):", file=out)
        for note in notes:
            say(note.format(), file=out)
    return 1 if problems else 0


# ---------------------------------------------------------------------------------- TUI


def replay_settings(recording: Recording, *, speed: float, data_dir: Path) -> AppSettings:
    """The app's settings for a replay. The session's directory is the recorded one (the
    sidebar shows the sessions listed there), even on a machine where it does not exist: a
    replay reads and writes nothing in it. ``data_dir`` keeps the replayed sessions out of
    this machine's session index and prompt history."""
    from acp_tui.session.launch.resolve import resolve_agent
    from acp_tui.session.launch.settings import AppSettings
    from acp_tui.session.launch.spec import AgentSource, LaunchOptions

    session = ReplaySession(recording, speed=speed)
    first = recording.segments[0]
    method, session_id = first_opening(recording)
    # The recorded agent as the command line would have given it (no config file).
    source = AgentSource.command(first.argv or ["replay"], session.label)
    options = LaunchOptions(
        cwd=first.cwd or os.getcwd(), protocol=requested_version(recording), checkpoints=False
    )
    return AppSettings(
        agent=resolve_agent(source, None, options).spec,
        # Every permission dialog comes up, whatever the config says.
        permission_policy="ask",
        # Opened at start as the recorded client did (--resume ID), not with a new session.
        resume=session_id if method != "session/new" else None,
        data_dir=data_dir,
        replay=session,
    )


def run_tui(recording: Recording, speed: float, *, theme: str | None = None) -> int:
    from acp_tui.cli.tui import load_config_if_any, prepare_to_run, setup_logging
    from acp_tui.ui.app import make_app
    from acp_tui.ui.preferences import UiSettings

    setup_logging(load_config_if_any()[0])
    with tempfile.TemporaryDirectory(prefix="acp-tui-replay-") as data:
        settings = replay_settings(recording, speed=speed, data_dir=Path(data))
        app = make_app(settings, ui=UiSettings(theme=theme))
        prepare_to_run(app)
        result = app.run()
    return result or 0
