"""The checkpoints of an agent's sessions: a snapshot before each prompt goes out and one
when the turn ends, the client's writes recorded, old turns pruned (no Textual).

:class:`Checkpoints` is what the controller calls (in a worker thread: everything here
blocks on git and the disk):

- :meth:`Checkpoints.begin_turn` before ``session/prompt`` is sent: the session's roots are
  snapshotted (the shadow repositories of :mod:`acp_tui.services.checkpoints.shadow`), so
  whatever the turn changes, through the client or by the agent's own tools and commands, can
  be put back;
- :meth:`Checkpoints.end_turn` when the turn ended: a second snapshot, the files the turn
  changed, and the base for telling the person's later edits (conflicts) from the agent's;
- :meth:`Checkpoints.warm` as an agent starts or a session opens (in the background): the
  first snapshot of a project reads every file; afterwards only what changed is read;
- :meth:`Checkpoints.record_write` for each ``fs/write_text_file`` the client serves: its
  path, tool call and content before, so one tool call can be undone, and, where git is
  missing, so the client's own writes can still be taken back (the person is told once that
  the agent's direct writes are not covered then).

Checkpoints are off, said once per session, in a folder that is not a project (the home
folder, the temporary folder, the file system's root) and in one too big to snapshot at every
turn (:class:`~acp_tui.services.checkpoints.shadow.TooBig`): a turn is never held up by them.

Rewinds are planned and applied by :mod:`acp_tui.session.checkpoints.rewind`, over
:meth:`Checkpoints.journal` and the snapshots here.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from acp_tui.services.checkpoints.journal import (
    BlobFiles,
    FileRecord,
    JournalStore,
    SessionJournal,
    TurnRecord,
    WriteRecord,
)
from acp_tui.services.checkpoints.shadow import (
    ShadowError,
    ShadowRepo,
    TooBig,
    TreeChange,
    find_git,
    work_tree_of,
)
from acp_tui.session.checkpoints.settings import CheckpointSettings

__all__ = ["Checkpoints", "Roots", "TurnRef"]

log = logging.getLogger(__name__)

#: Said once, where git is missing.
NO_GIT_NOTICE = (
    "git was not found: only the files the agent writes through acp-tui can be rewound; "
    "what it changes with its own tools or commands is not covered"
)

#: Tells the person something about one session: (session id, title, description, severity).
Notify = Callable[[str, str, str, str], None]


@dataclass(frozen=True, slots=True)
class Roots:
    """A session's directories: its cwd first, then the additional ones (absolute)."""

    cwd: str
    extra: tuple[str, ...] = ()

    def all(self) -> tuple[Path, ...]:
        seen: list[Path] = []
        for root in (self.cwd, *self.extra):
            path = Path(os.path.realpath(root))
            if path not in seen:
                seen.append(path)
        return tuple(seen)


@dataclass(frozen=True, slots=True)
class TurnRef:
    """A turn as the controller knows it: the session, and the journal's number for it."""

    session_id: str
    number: int


def not_a_project(tree: Path) -> str | None:
    """Why ``tree`` is no project to snapshot (the home folder, the temporary folder, the
    file system's root: thousands of unrelated files), or None."""
    places = {
        Path(os.path.realpath(Path.home())): "your home folder",
        Path(os.path.realpath(tempfile.gettempdir())): "the temporary folder",
        Path(os.path.realpath("/tmp")): "the temporary folder",
    }
    tree = Path(os.path.realpath(tree))
    if tree == Path(tree.anchor):
        return "the file system's root"
    return places.get(tree)


def _ref_prefix(session_id: str) -> str:
    return (
        "refs/acp/" + hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    )


class Checkpoints:
    """Checkpoints of the sessions of one agent (see the module docstring)."""

    def __init__(
        self, settings: CheckpointSettings, *, agent: str = "", notify: Notify | None = None
    ) -> None:
        self.settings = settings
        self.agent = agent
        self.notify = notify
        self.journals = JournalStore(settings.store)
        self.blobs = BlobFiles(settings.store)
        self.git = find_git() if settings.enabled else None
        self._repos: dict[Path, ShadowRepo] = {}
        self._lock = threading.RLock()
        self._open: dict[str, SessionJournal] = {}
        self._told_no_git: set[str] = set()
        #: Work trees that take no checkpoints, with why (not a project; too big).
        self.off: dict[Path, str] = {}
        self._told_off: set[tuple[str, Path]] = set()

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    @property
    def engine(self) -> str:
        return "git" if self.git else "writes"

    # ------------------------------------------------------------------ journals

    def journal(self, session_id: str) -> SessionJournal | None:
        """The session's journal (this run's, else the one on disk), or None."""
        with self._lock:
            journal = self._open.get(session_id)
            if journal is None:
                journal = self.journals.load(session_id)
                if journal is not None:
                    self._open[session_id] = journal
            return journal

    def _journal_for(self, session_id: str, roots: Roots, title: str | None) -> SessionJournal:
        journal = self.journal(session_id)
        if journal is None:
            journal = SessionJournal(
                session_id=session_id,
                cwd=roots.cwd,
                roots=[str(root) for root in roots.all()],
                engine="git" if self.git else "writes",
                agent=self.agent,
            )
            self._open[session_id] = journal
        else:
            for root in roots.all():
                if str(root) not in journal.roots:
                    journal.roots.append(str(root))
        if title:
            journal.title = title
        return journal

    def save(self, journal: SessionJournal) -> None:
        with self._lock:
            try:
                self.journals.save(journal)
            except OSError as error:
                log.warning("checkpoint journal not saved: %s", error)

    # ------------------------------------------------------------------ snapshots

    def repos_of(self, roots: Sequence[Path]) -> dict[Path, tuple[ShadowRepo, list[str]]]:
        """The shadow repository of each work tree the roots are in, with the roots as
        pathspecs relative to it."""
        found: dict[Path, tuple[ShadowRepo, list[str]]] = {}
        for root in roots:
            tree = work_tree_of(root)
            repo = self._repos.get(tree)
            if repo is None:
                repo = self._repos[tree] = ShadowRepo(
                    self.settings.store,
                    tree,
                    max_file_bytes=self.settings.max_file_bytes,
                    max_files=self.settings.max_files,
                    git=self.git,
                )
            spec = os.path.relpath(root, tree)
            found.setdefault(tree, (repo, []))[1].append("." if spec == "." else spec)
        return found

    def snapshot(self, roots: Sequence[Path], message: str) -> tuple[dict[str, str], list[str]]:
        """Snapshot every root now: the commit of each work tree, and the files left out
        (absolute paths). Empty without git; a work tree that takes no checkpoints
        (:attr:`off`, found out here) has no commit."""
        commits: dict[str, str] = {}
        skipped: list[str] = []
        if not self.git:
            return commits, skipped
        for root in roots:
            tree = work_tree_of(root)
            if tree not in self.off and (why := not_a_project(tree)) is not None:
                self.off[tree] = f"{why} is not a project"
        for tree, (repo, specs) in self.repos_of(roots).items():
            if tree in self.off:
                continue
            try:
                shot = repo.snapshot(specs, message)
            except TooBig as error:
                self.off[tree] = f"it is too big to snapshot at every turn: {error}"
                continue
            commits[str(tree)] = shot.commit
            skipped += [str(tree / name) for name in shot.skipped]
        return commits, skipped

    def warm(self, roots: Sequence[Path], session_id: str | None = None) -> None:
        """The first snapshot of the roots' work trees, taken ahead of the first turn (the
        shadow index keeps the files' stat data: a turn's snapshot then reads only what
        changed). With a ``session_id``, what takes no checkpoints is said to it."""
        if not self.enabled:
            return
        # Not under the book's lock: a client's write is never held up by a warm-up.
        self.snapshot(roots, "warm-up")
        if session_id is not None:
            self.tell_off(session_id, roots)

    def tell_off(self, session_id: str, roots: Sequence[Path]) -> bool:
        """Say (once per session and folder) which of the roots take no checkpoints, and
        why. True when none of them takes any."""
        trees = {work_tree_of(root) for root in roots}
        for tree in sorted(trees & set(self.off)):
            if (session_id, tree) in self._told_off:
                continue
            self._told_off.add((session_id, tree))
            why = self.off[tree]
            hint = (
                "raise [checkpoints] max_files, or start acp-tui in a smaller folder, to have them"
                if why.startswith("it is too big")
                else "start acp-tui in a project folder to have them"
            )
            self._say(
                session_id,
                "Checkpoints are off here",
                f"{tree}: {why}. Nothing is snapshotted there, so a rewind cannot put its "
                f"files back; {hint}.",
                "warning",
            )
        return bool(trees) and trees <= set(self.off)

    def begin_turn(
        self, session_id: str, roots: Roots, prompt: str, *, title: str | None = None
    ) -> TurnRef | None:
        """Before the prompt goes out: the snapshot this turn can be rewound to. None when
        checkpoints are off or the snapshot failed (said to the person)."""
        if not self.enabled:
            return None
        with self._lock:
            journal = self._journal_for(session_id, roots, title)
            record = TurnRecord(number=journal.next_number(), prompt=prompt, started=time.time())
            try:
                record.before, record.skipped = self.snapshot(
                    roots.all(), f"before turn {record.number}"
                )
            except (ShadowError, OSError) as error:
                self._say(session_id, "No checkpoint for this turn", str(error), "warning")
                return None
            if self.tell_off(session_id, roots.all()) and self.git:
                return None
            if not self.git and session_id not in self._told_no_git:
                self._told_no_git.add(session_id)
                self._say(session_id, "Checkpoints without git", NO_GIT_NOTICE, "warning")
            if record.skipped:
                names = ", ".join(_short(path, roots.cwd) for path in record.skipped[:5])
                more = len(record.skipped) - 5
                self._say(
                    session_id,
                    "Not in the checkpoint (over the size cap)",
                    names
                    + (f" and {more} more" if more > 0 else "")
                    + f": files over {self.settings.max_file_bytes // 1024} KiB are left as "
                    "they are by a rewind",
                    "info",
                )
            journal.turns.append(record)
            # Only this session's bound here (the refs and the bound in total are kept after
            # the turn and at start: not on the way to the prompt).
            self._drop_oldest(journal, len(journal.turns) - self.settings.keep_per_session)
            self.save(journal)
            return TurnRef(session_id, record.number)

    def end_turn(self, ref: TurnRef, roots: Roots) -> TurnRecord | None:
        """The turn ended: its second snapshot and the files it changed."""
        with self._lock:
            journal = self.journal(ref.session_id)
            record = journal.turn(ref.number) if journal else None
            if journal is None or record is None:
                return None
            try:
                record.after, skipped = self.snapshot(roots.all(), f"after turn {record.number}")
            except (ShadowError, OSError) as error:
                log.warning("no end-of-turn checkpoint: %s", error)
                record.after = None
                skipped = []
            record.ended = time.time()
            record.skipped = sorted(set(record.skipped) | set(skipped))
            record.files = self.files_of(record, roots)
            self.keep_record(journal, record)
            self.save(journal)
            return record

    def files_of(self, record: TurnRecord, roots: Roots) -> list[FileRecord]:
        if self.git and record.after is not None:
            files: list[FileRecord] = []
            for change in self.tree_changes(record.before, record.after, roots.all()):
                files.append(FileRecord(change[0], change[1].status))
            return files
        seen: dict[str, FileRecord] = {}
        for write in record.writes:
            if write.path not in seen:
                seen[write.path] = FileRecord(
                    write.path, "created" if write.before is None else "modified"
                )
        return list(seen.values())

    def tree_changes(
        self, old: dict[str, str], new: dict[str, str], roots: Sequence[Path]
    ) -> list[tuple[str, TreeChange]]:
        """(absolute path, change) for every file that differs between two checkpoints."""
        found: list[tuple[str, TreeChange]] = []
        for tree, (repo, specs) in self.repos_of(roots).items():
            a, b = old.get(str(tree)), new.get(str(tree))
            if a is None or b is None:
                continue
            for change in repo.changes(a, b, specs):
                found.append((str(tree / change.path), change))
        return found

    def keep_record(self, journal: SessionJournal, record: TurnRecord) -> None:
        """Refs that keep the record's commits alive."""
        if not self.git:
            return
        prefix = _ref_prefix(journal.session_id)
        by_tree: dict[str, dict[str, str]] = {}
        for side, commits in (("before", record.before), ("after", record.after or {})):
            for tree, commit in commits.items():
                by_tree.setdefault(tree, {})[f"{prefix}/{record.number}/{side}"] = commit
        for write_number, write in enumerate(record.writes):
            tree = str(self.repo_of_file(Path(write.path)).work_tree)
            refs = by_tree.setdefault(tree, {})
            if write.before is not None:
                refs[f"{prefix}/{record.number}/w{write_number}b"] = write.before
            refs[f"{prefix}/{record.number}/w{write_number}a"] = write.after
        for tree, refs in by_tree.items():
            repo = self._repo_for_tree(Path(tree))
            with contextlib.suppress(ShadowError, OSError):
                repo.keep(refs)

    def _repo_for_tree(self, tree: Path) -> ShadowRepo:
        return self.repos_of([tree])[tree][0]

    def repo_of_file(self, path: Path) -> ShadowRepo:
        """The shadow repository that holds ``path`` (a file under one of the work trees)."""
        for tree, repo in self._repos.items():
            if path.is_relative_to(tree):
                return repo
        return self._repo_for_tree(work_tree_of(path.parent))

    # ------------------------------------------------------------------ client writes

    def record_write(
        self,
        session_id: str,
        path: Path,
        before: bytes | None,
        after: bytes,
        tool_call_id: str | None,
    ) -> None:
        """The client wrote ``path`` for the agent (``fs/write_text_file``): kept with the
        running turn of the session (none running: nothing is recorded)."""
        if not self.enabled:
            return
        with self._lock:
            journal = self.journal(session_id)
            if journal is None or not journal.turns or journal.turns[-1].ended is not None:
                return
            record = journal.turns[-1]
            try:
                if self.git:
                    repo = self.repo_of_file(path)
                    before_id = repo.store_blob(before) if before is not None else None
                    after_id = repo.store_blob(after)
                else:
                    before_id = self.blobs.put(before) if before is not None else None
                    after_id = self.blobs.put(after)
            except (ShadowError, OSError, ValueError) as error:
                log.warning("write not recorded: %s", error)
                return
            record.writes.append(
                WriteRecord(str(path), before_id, after_id, tool_call_id, time.time())
            )
            if not self.git:
                record.files = self.files_of(record, Roots(journal.cwd))
            self.keep_record(journal, record)
            self.save(journal)

    def read_blob(self, path: str, blob: str) -> bytes:
        """A kept content (a write's before or after; a snapshot's file)."""
        if self.git:
            return self.repo_of_file(Path(path)).read_blobs([blob])[blob]
        return self.blobs.get(blob)

    # ------------------------------------------------------------------ pruning

    def prune_and_collect(self) -> int:
        """The bound in total, then the objects no ref keeps freed when anything went (in
        the background, as an agent starts)."""
        dropped = self.prune()
        if dropped:
            self.collect()
        return dropped

    def prune(self, journal: SessionJournal | None = None) -> int:
        """Drop the oldest turns beyond the bounds: ``keep_per_session`` of ``journal`` (when
        given), and ``keep_total`` across every journal. How many turns went."""
        dropped = 0
        with self._lock:
            if journal is not None:
                dropped += self._drop_oldest(
                    journal, len(journal.turns) - self.settings.keep_per_session
                )
            journals = self.journals.all()
            if journal is not None:
                journals = [j for j in journals if j.session_id != journal.session_id] + [journal]
            total = sum(len(j.turns) for j in journals)
            over = total - self.settings.keep_total
            if over > 0:
                turns = sorted(
                    ((record.started, j) for j in journals for record in j.turns),
                    key=lambda pair: pair[0],
                )
                counts: dict[str, int] = {}
                for _started, owner in turns[:over]:
                    counts[owner.session_id] = counts.get(owner.session_id, 0) + 1
                for owner in journals:
                    if counts.get(owner.session_id):
                        dropped += self._drop_oldest(owner, counts[owner.session_id])
                        if owner is not journal:
                            self.save(owner)
        return dropped

    def _drop_oldest(self, journal: SessionJournal, count: int) -> int:
        if count <= 0:
            return 0
        gone, journal.turns = journal.turns[:count], journal.turns[count:]
        prefix = _ref_prefix(journal.session_id)
        if self.git:
            trees = {tree for record in gone for tree in record.before}
            for tree in trees:
                repo = self._repo_for_tree(Path(tree))
                for record in gone:
                    with contextlib.suppress(ShadowError, OSError):
                        repo.drop(f"{prefix}/{record.number}/")
        else:
            kept = {
                blob
                for record in journal.turns
                for write in record.writes
                for blob in (write.before, write.after)
                if blob
            }
            old = {
                blob
                for record in gone
                for write in record.writes
                for blob in (write.before, write.after)
                if blob
            }
            self.blobs.drop(old - kept)
        return len(gone)

    def collect(self) -> None:
        """Free what pruning left unreferenced in the shadow repositories (slow: in the
        background, now and then)."""
        for repo in list(self._repos.values()):
            with contextlib.suppress(ShadowError, OSError):
                repo.collect()

    # ------------------------------------------------------------------ telling

    def _say(self, session_id: str, title: str, description: str, severity: str) -> None:
        if self.notify is not None:
            self.notify(session_id, title, description, severity)
        log.info("%s: %s: %s", session_id, title, description)


def _short(path: str, cwd: str) -> str:
    try:
        return os.path.relpath(path, cwd)
    except ValueError:
        return path
