"""A rewind of a session's files, planned, shown, then applied (no Textual).

:func:`plan_rewind` says what going back to before turn N would do to each file (restored,
created or deleted), as a :class:`~acp_tui.services.hunks.FileChange` from what the file is
now to what it was, and which files are **conflicts**: changed by the person after one of the
turns being undone (between a turn's end and the next prompt, or since the last turn ended).
Nothing is written by planning, except the checkpoint the rewind takes first (so the rewind
itself can be undone).

:func:`apply_rewind` writes what the person chose (per file, per hunk; a conflict only when
the person said so), through the path gate only (:mod:`acp_tui.services.checkpoints.files`):
inside the session's roots, never through a link. A file that changed since the plan was
made is left as it is and said. The rewind is recorded in the journal (``kind="rewind"``)
with the checkpoint taken before it, so it can be rewound in its turn.

:func:`plan_turn_revert` is the same for "Changes of this turn": a turn's own changes, to be
taken back file by file or hunk by hunk; :func:`plan_tool_call_revert` for one tool call's
writes through the client (each recorded with its tool call).

Without git, a plan covers the writes the client served (their before-contents).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from acp_tui.services.checkpoints.files import FileTarget, Refused, put_back, read_current
from acp_tui.services.checkpoints.journal import SessionJournal, TurnRecord
from acp_tui.services.checkpoints.shadow import ShadowError
from acp_tui.services.hunks import FileChange, decode_text
from acp_tui.session.checkpoints.book import Checkpoints, Roots

__all__ = [
    "PlannedFile",
    "RewindError",
    "RewindPlan",
    "RewindResult",
    "apply_rewind",
    "plan_rewind",
    "plan_tool_call_revert",
    "plan_turn_revert",
]

Action = Literal["restore", "create", "delete"]


class RewindError(Exception):
    """The rewind cannot be planned (no such turn, nothing kept); ``str()`` says why."""


@dataclass(slots=True)
class PlannedFile:
    """One file of a plan: what it is now (``current``) and what the rewind makes it
    (``target``; None: no file)."""

    path: Path
    #: The path for the person (relative to the session's cwd when inside it).
    display: str
    action: Action
    current: bytes | None
    target: bytes | None
    #: Changed by the person after a turn being undone: put back only if they say so.
    conflict: bool = False
    #: The text change from ``current`` to ``target`` (None: not text, changed whole); with
    #: ``reverse``, the change from ``target`` to ``current`` (a turn's own change, as it
    #: made it), whose chosen hunks are taken back.
    change: FileChange | None = None
    reverse: bool = False

    @property
    def binary(self) -> bool:
        return self.change is None

    def content_for(self, keep: frozenset[int] | None) -> bytes | None:
        """What to write for the hunks in ``keep`` chosen (None: all of them): taken from
        the target, or (``reverse``) taken back."""
        if keep is None or self.change is None:
            return self.target
        chosen = self.change.all_hunks() - keep if self.reverse else keep
        text = self.change.apply(chosen)
        return None if text is None else text.encode("utf-8")


@dataclass(slots=True)
class RewindPlan:
    """What a rewind would do; ``files`` in path order."""

    session_id: str
    #: The journal's number of the turn gone back to (its start).
    turn: int
    roots: tuple[Path, ...]
    files: list[PlannedFile]
    #: The checkpoint taken as the plan was made (work tree -> commit), the rewind's undo.
    checkpoint: dict[str, str] = field(default_factory=dict)
    #: Files the rewind leaves as they are, each with why (over the size cap, refused).
    left: list[str] = field(default_factory=list)
    #: "rewind" (to before a turn) or "revert" (a turn's own changes).
    kind: Literal["rewind", "revert"] = "rewind"
    #: What the journal calls it once applied (empty: said from ``kind`` and ``turn``).
    title: str = ""

    @property
    def conflicts(self) -> list[PlannedFile]:
        return [planned for planned in self.files if planned.conflict]


@dataclass(slots=True)
class RewindResult:
    """What was done: files written or deleted, and those left (with why)."""

    done: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    #: The journal's number of the rewind's own record (rewind to it to undo this).
    record: int | None = None


def _display(path: Path, cwd: str) -> str:
    try:
        relative = os.path.relpath(path, cwd)
    except ValueError:
        return str(path)
    return str(path) if relative.startswith("..") else relative


def _planned(path: Path, cwd: str, current: bytes | None, target: bytes | None) -> PlannedFile:
    action: Action = "delete" if target is None else "create" if current is None else "restore"
    old = None if current is None else decode_text(current)
    new = None if target is None else decode_text(target)
    change: FileChange | None = None
    if (current is None or old is not None) and (target is None or new is not None):
        change = FileChange.compute(old, new)
    return PlannedFile(path, _display(path, cwd), action, current, target, change=change)


def _require(book: Checkpoints, session_id: str, number: int) -> tuple[SessionJournal, TurnRecord]:
    journal = book.journal(session_id)
    if journal is None or not journal.turns:
        raise RewindError("this session has no checkpoints")
    record = journal.turn(number)
    if record is None:
        raise RewindError(f"no checkpoint for turn {number} (pruned, or never taken)")
    return journal, record


def _roots(journal: SessionJournal, roots: Roots | None) -> Roots:
    if roots is not None:
        return roots
    return Roots(journal.cwd, tuple(journal.roots))


def plan_rewind(
    book: Checkpoints, session_id: str, number: int, roots: Roots | None = None
) -> RewindPlan:
    """What rewinding the session's files to before turn ``number`` would do (see the module
    docstring). Takes the rewind's checkpoint (git); raises :class:`RewindError`."""
    journal, record = _require(book, session_id, number)
    roots = _roots(journal, roots)
    paths = roots.all()
    if journal.engine == "writes" or not record.before:
        return _plan_from_writes(book, journal, record, roots)
    try:
        now, skipped = book.snapshot(paths, f"before rewinding to turn {number}")
        changes = book.tree_changes(record.before, now, paths)
        person = _changed_by_person(book, journal, record, now, paths)
        blobs = [(path, change.old_blob) for path, change in changes if change.old_blob is not None]
        contents: dict[str, bytes] = {}
        for path, blob in blobs:
            contents[blob] = book.read_blob(path, blob)
    except (ShadowError, OSError) as error:
        raise RewindError(f"the checkpoint cannot be read: {error}") from None
    plan = RewindPlan(session_id, number, paths, [], checkpoint=now)
    for path, change in changes:
        target = contents[change.old_blob] if change.old_blob is not None else None
        try:
            current = read_current(Path(path), paths)
        except Refused as refused:
            plan.left.append(str(refused))
            continue
        if current == target:
            continue
        planned = _planned(Path(path), journal.cwd, current, target)
        planned.conflict = path in person
        plan.files.append(planned)
    plan.left += [
        f"{_display(Path(path), journal.cwd)}: over the size cap, not in the checkpoints"
        for path in sorted(set(skipped) | set(record.skipped))
    ]
    return plan


def _changed_by_person(
    book: Checkpoints,
    journal: SessionJournal,
    record: TurnRecord,
    now: dict[str, str],
    paths: tuple[Path, ...],
) -> set[str]:
    """The files changed outside the agent's turns since ``record``'s turn began: between
    each turn's end and the next one's start, and since the last one ended."""
    later = [turn for turn in journal.turns if turn.number >= record.number]
    found: set[str] = set()
    for index, turn in enumerate(later):
        if turn.after is None:
            continue
        following = later[index + 1].before if index + 1 < len(later) else now
        found.update(path for path, _change in book.tree_changes(turn.after, following, paths))
    return found


def _plan_from_writes(
    book: Checkpoints, journal: SessionJournal, record: TurnRecord, roots: Roots
) -> RewindPlan:
    """Without snapshots: each file the client wrote since the turn, back to its content
    before the first of those writes."""
    paths = roots.all()
    plan = RewindPlan(journal.session_id, record.number, paths, [])
    first: dict[str, str | None] = {}
    last: dict[str, str] = {}
    for turn in journal.turns:
        if turn.number < record.number:
            continue
        for write in turn.writes:
            first.setdefault(write.path, write.before)
            last[write.path] = write.after
    for path in sorted(first):
        try:
            current = read_current(Path(path), paths)
            before = first[path]
            target = None if before is None else book.read_blob(path, before)
        except (Refused, OSError, ValueError, ShadowError) as error:
            plan.left.append(str(error))
            continue
        if current == target:
            continue
        planned = _planned(Path(path), journal.cwd, current, target)
        planned.conflict = _digest_of(book, current) != last[path]
        plan.files.append(planned)
    plan.left.append(
        "only the files written through acp-tui are covered (git was not found when the "
        "checkpoints were taken)"
    )
    return plan


def _digest_of(book: Checkpoints, data: bytes | None) -> str | None:
    if data is None:
        return None
    if book.git:
        header = f"blob {len(data)}\0".encode()
        return hashlib.sha1(header + data, usedforsecurity=False).hexdigest()
    return hashlib.sha256(data).hexdigest()


def plan_turn_revert(
    book: Checkpoints, session_id: str, number: int, roots: Roots | None = None
) -> RewindPlan:
    """ "Changes of this turn": each file the turn changed, from what it is now back to what
    it was before the turn. A file changed since the turn ended is a conflict."""
    journal, record = _require(book, session_id, number)
    roots = _roots(journal, roots)
    paths = roots.all()
    if journal.engine == "writes" or not record.before or record.after is None:
        plan = _plan_from_writes(book, journal, record, roots)
        plan.kind = "revert"
        return plan
    plan = RewindPlan(session_id, number, paths, [], kind="revert")
    try:
        plan.checkpoint, _skipped = book.snapshot(paths, f"before reverting turn {number}")
        changes = book.tree_changes(record.before, record.after, paths)
        for path, change in changes:
            target = book.read_blob(path, change.old_blob) if change.old_blob else None
            after = book.read_blob(path, change.new_blob) if change.new_blob else None
            try:
                current = read_current(Path(path), paths)
            except Refused as refused:
                plan.left.append(str(refused))
                continue
            # The turn's own change, shown as it made it (before -> now), its chosen hunks
            # taken back from the file as it is now; changed since the turn: a conflict.
            planned = _planned(Path(path), journal.cwd, current, target)
            planned.conflict = current != after
            planned.reverse = True
            planned.change = _planned(Path(path), journal.cwd, target, current).change
            if planned.change is not None and target is None and current is None:
                continue
            plan.files.append(planned)
    except (ShadowError, OSError) as error:
        raise RewindError(f"the checkpoint cannot be read: {error}") from None
    return plan


def plan_tool_call_revert(
    book: Checkpoints, session_id: str, tool_call_id: str, roots: Roots | None = None
) -> RewindPlan:
    """One tool call's writes through the client taken back: each file it wrote, from what it
    is now back to what it was before the tool call's first write. A file changed since the
    tool call's last write (by you, or a later tool call) is a conflict."""
    journal = book.journal(session_id)
    record = next(
        (
            turn
            for turn in reversed(journal.turns if journal is not None else [])
            if any(write.tool_call_id == tool_call_id for write in turn.writes)
        ),
        None,
    )
    if journal is None or record is None:
        raise RewindError("no write of that tool call was recorded (pruned, or none)")
    roots = _roots(journal, roots)
    paths = roots.all()
    first: dict[str, str | None] = {}
    last: dict[str, str] = {}
    for write in record.writes:
        if write.tool_call_id == tool_call_id:
            first.setdefault(write.path, write.before)
            last[write.path] = write.after
    plan = RewindPlan(session_id, record.number, paths, [], kind="revert")
    plan.title = f"Undid a tool call of turn {record.number}"
    try:
        if book.git:
            plan.checkpoint, _skipped = book.snapshot(paths, f"before undoing {tool_call_id}")
        for path in sorted(first):
            before = first[path]
            target = None if before is None else book.read_blob(path, before)
            try:
                current = read_current(Path(path), paths)
            except Refused as refused:
                plan.left.append(str(refused))
                continue
            if current == target:
                continue
            planned = _planned(Path(path), journal.cwd, current, target)
            planned.conflict = _digest_of(book, current) != last[path]
            planned.reverse = True
            planned.change = _planned(Path(path), journal.cwd, target, current).change
            plan.files.append(planned)
    except (ShadowError, OSError, ValueError) as error:
        raise RewindError(f"the checkpoint cannot be read: {error}") from None
    return plan


def apply_rewind(
    book: Checkpoints,
    plan: RewindPlan,
    choices: Mapping[Path, frozenset[int] | None],
    *,
    roots: Roots | None = None,
) -> RewindResult:
    """Write what was chosen: ``choices`` maps each file to put back to the hunks taken (None:
    the whole file). A file not in ``choices`` (a conflict the person kept, a file they left
    out) is not touched. A file that changed since the plan is left as it is. The rewind is
    recorded (with the plan's checkpoint as its start) so it can be undone."""
    result = RewindResult()
    journal = book.journal(plan.session_id)
    for planned in plan.files:
        if planned.path not in choices:
            continue
        try:
            now = read_current(planned.path, plan.roots)
            if now != planned.current:
                result.left.append(f"{planned.display}: changed since the preview, left as it is")
                continue
            content = planned.content_for(choices[planned.path])
            put_back(FileTarget(planned.path, content), plan.roots)
        except (Refused, ValueError, IndexError) as error:
            result.left.append(f"{planned.display}: {error}")
            continue
        result.done.append(planned.display)
    if journal is not None and (result.done or plan.checkpoint):
        session_roots = _roots(journal, roots)
        record = TurnRecord(
            number=journal.next_number(),
            prompt=plan.title
            or (
                f"Rewound files to before turn {plan.turn}"
                if plan.kind == "rewind"
                else f"Reverted changes of turn {plan.turn}"
            ),
            started=time.time(),
            kind="rewind",
            before=dict(plan.checkpoint),
            target=plan.turn,
        )
        try:
            record.after, _skipped = book.snapshot(session_roots.all(), "after a rewind")
        except (ShadowError, OSError):
            record.after = None
        record.ended = time.time()
        if record.before and record.after is not None:
            record.files = book.files_of(record, session_roots)
        journal.turns.append(record)
        book.keep_record(journal, record)
        book.save(journal)
        result.record = record.number
    return result
