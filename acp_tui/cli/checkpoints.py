"""``acp-tui checkpoints`` and ``acp-tui rewind``: the checkpoints of a session's files,
headless (no agent is started: the checkpoints are acp-tui's own).

``acp-tui checkpoints [--session ID] [--json]`` lists each checkpointed turn (and rewind)
with the files it changed: one session's, or those of every session of the current
directory, the most recent first.

``acp-tui rewind --session ID --turn N --code [--force]`` puts the session's files back as
they were before turn N (through the same plan as the TUI's rewind: inside the session's
directories, never through a link, a checkpoint taken first so it can be undone). A file the
person changed after one of the turns being undone is a conflict: nothing is written and
the conflicts are listed, unless ``--force``.

Exit codes: 0 done (or nothing to do); 1 no such session or turn, or the checkpoints cannot
be read; 2 a usage error; 3 conflicts (nothing written; ``--force`` to rewind anyway); 4
some files could not be put back (each said on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

from acp_tui.cli.say import InertArgumentParser, say
from acp_tui.services.checkpoints.journal import SessionJournal, TurnRecord
from acp_tui.session.checkpoints.book import Checkpoints
from acp_tui.session.checkpoints.rewind import RewindError, apply_rewind, plan_rewind
from acp_tui.session.checkpoints.settings import CheckpointSettings, checkpoint_store
from acp_tui.text.safety import escaped_line

__all__ = [
    "EXIT_CONFLICTS",
    "EXIT_LEFT",
    "EXIT_NOT_FOUND",
    "build_checkpoints_parser",
    "build_rewind_parser",
    "main_checkpoints",
    "main_rewind",
]

EXIT_NOT_FOUND = 1
EXIT_CONFLICTS = 3
EXIT_LEFT = 4


def build_checkpoints_parser() -> argparse.ArgumentParser:
    parser = InertArgumentParser(
        prog="acp-tui checkpoints",
        description="List the checkpointed turns of a session (or of every session of the "
        "current directory) with the files each changed.",
    )
    parser.add_argument("--session", metavar="ID", help="this session only")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    return parser


def build_rewind_parser() -> argparse.ArgumentParser:
    parser = InertArgumentParser(
        prog="acp-tui rewind",
        description="Put a session's files back as they were before a turn. Exit codes: 0 "
        "done, 1 no such session or turn, 2 usage, 3 conflicts (nothing written), 4 some "
        "files could not be put back.",
    )
    parser.add_argument("--session", metavar="ID", required=True, help="the session")
    parser.add_argument(
        "--turn", metavar="N", type=int, required=True, help="rewind to before this turn"
    )
    parser.add_argument(
        "--code",
        action="store_true",
        required=True,
        help="rewind the files (the only kind "
        "a headless rewind does: the conversation needs the agent, in the TUI)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="put back also the files changed by you after the turn (conflicts)",
    )
    return parser


def _book() -> Checkpoints:
    """The checkpoints as the config keeps them (only their place and bounds matter here)."""
    from acp_tui.config.load import load_config

    try:
        config, _problems = load_config()
        section = config.checkpoints
        settings = CheckpointSettings(
            store=checkpoint_store(),
            enabled=True,
            max_file_bytes=section.max_file_kb * 1024,
            max_files=section.max_files,
            keep_per_session=section.keep_per_session,
            keep_total=section.keep_total,
        )
    except Exception:  # a broken config file still lets the checkpoints be read
        settings = CheckpointSettings(store=checkpoint_store(), enabled=True)
    return Checkpoints(settings)


def _iso(moment: float | None) -> str | None:
    if moment is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(moment))


def _turn_json(record: TurnRecord) -> dict[str, Any]:
    return {
        "turn": record.number,
        "kind": record.kind,
        "prompt": record.first_line(),
        "started": _iso(record.started),
        "ended": _iso(record.ended),
        "files": [{"path": f.path, "change": f.change} for f in record.files],
        "skipped": list(record.skipped),
        "writes": [{"path": w.path, "toolCallId": w.tool_call_id} for w in record.writes],
        "rewoundTo": record.target,
    }


def _session_json(journal: SessionJournal) -> dict[str, Any]:
    return {
        "sessionId": journal.session_id,
        "title": journal.title,
        "cwd": journal.cwd,
        "roots": list(journal.roots),
        "agent": journal.agent,
        "engine": journal.engine,
        "turns": [_turn_json(record) for record in journal.turns],
    }


def _in_directory(journal: SessionJournal, cwd: str) -> bool:
    real = os.path.realpath(cwd)
    return any(os.path.realpath(root) == real for root in [journal.cwd, *journal.roots])


def main_checkpoints(args: Sequence[str]) -> int:
    options = build_checkpoints_parser().parse_args(list(args))
    book = _book()
    if options.session:
        journal = book.journal(options.session)
        if journal is None:
            say(
                f"acp-tui checkpoints: no checkpoints for session "
                f"{escaped_line(options.session, 200)}",
                file=sys.stderr,
            )
            return EXIT_NOT_FOUND
        journals = [journal]
    else:
        journals = [j for j in book.journals.all() if _in_directory(j, os.getcwd())]
    if options.json:
        text = json.dumps({"sessions": [_session_json(j) for j in journals]}, ensure_ascii=True)
        sys.stdout.write(text + "\n")
        return 0
    if not journals:
        say("No checkpoints for this directory's sessions.", file=sys.stderr)
        return 0
    for index, journal in enumerate(journals):
        if index:
            say("")
        title = escaped_line(journal.title or "(untitled)", 80)
        say(f"{escaped_line(journal.session_id, 80)}  {title}  ({escaped_line(journal.cwd, 200)})")
        for record in journal.turns:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(record.started))
            files = len(record.files)
            what = (
                f"rewind (to before turn {record.target})"
                if record.kind == "rewind"
                else escaped_line(record.first_line() or "(no text)", 60)
            )
            say(
                f"  {record.number:>4}  {when}  {files:>3} file{'s' if files != 1 else ' '}  {what}"
            )
            for item in record.files:
                mark = {"created": "A", "deleted": "D"}.get(item.change, "M")
                say(f"          {mark} {escaped_line(_relative(item.path, journal.cwd), 200)}")
    return 0


def _relative(path: str, cwd: str) -> str:
    relative = os.path.relpath(path, cwd)
    return path if relative.startswith("..") else relative


def main_rewind(args: Sequence[str]) -> int:
    options = build_rewind_parser().parse_args(list(args))
    book = _book()
    try:
        plan = plan_rewind(book, options.session, options.turn)
    except RewindError as error:
        say(f"acp-tui rewind: {error}", file=sys.stderr)
        return EXIT_NOT_FOUND
    for line in plan.left:
        say(f"acp-tui rewind: left as it is: {line}", file=sys.stderr)
    if plan.conflicts and not options.force:
        say(
            "acp-tui rewind: changed by you after that turn (nothing was written; --force "
            "puts them back too):",
            file=sys.stderr,
        )
        for planned in plan.conflicts:
            say(f"  {escaped_line(planned.display, 400)}", file=sys.stderr)
        return EXIT_CONFLICTS
    result = apply_rewind(book, plan, {planned.path: None for planned in plan.files})
    words = {"restore": "restored", "create": "made again", "delete": "deleted"}
    actions = {planned.display: planned.action for planned in plan.files}
    for name in result.done:
        say(f"{words.get(actions.get(name, ''), 'put back')}: {escaped_line(name, 400)}")
    for line in result.left:
        say(f"acp-tui rewind: not put back: {line}", file=sys.stderr)
    if not plan.files:
        say("Nothing to do: the files are as they were before that turn.")
    if result.record is not None:
        say(f"(undo it: acp-tui rewind --session {options.session} --turn {result.record} --code)")
    return EXIT_LEFT if result.left else 0
