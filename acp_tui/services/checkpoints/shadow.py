"""The shadow repository: snapshots of a project's files in git, outside the project.

A :class:`ShadowRepo` is a bare git repository in acp-tui's data directory, one per work tree
(the project's git top level when the session's directory is inside a git repository, so its
``.gitignore`` files all apply; else the directory itself). Every command runs with
``GIT_DIR`` (the shadow), ``GIT_WORK_TREE`` (the project) and ``GIT_INDEX_FILE`` (the
shadow's own index): the project's ``.git``, index, stash, branches and config are never read
for writing, never written. Only the project's ``info/exclude`` is read (as
``core.excludesFile``), so what the project ignores is not snapshotted.

Isolation: the person's global and system git config are not read (no hooks, no filters, no
``autocrlf``), and the shadow's ``info/attributes`` turns off every conversion
(``* -text -ident -filter``), so a snapshot holds the bytes on disk, exactly.

A snapshot (:meth:`ShadowRepo.snapshot`) is ``git add -A`` over the session's directories
(``pathspecs``, relative to the work tree) into the shadow index, ``write-tree`` and
``commit-tree``; the index keeps the files' stat data, so after the first snapshot only
changed files are read again. A file larger than ``max_file_bytes`` is left out and named in
:attr:`Snapshot.skipped`. Commits are kept alive by refs (:meth:`ShadowRepo.keep`) and dropped
by :meth:`ShadowRepo.drop` (then :meth:`ShadowRepo.collect` frees their objects). A work
tree with more than ``max_files`` files to read in one snapshot, or whose listing takes over
:data:`LIST_TIMEOUT`, is :class:`TooBig`: nothing is read.

Synchronous and blocking (run it in a worker thread); one lock per shadow directory in this
process; git's own ``index.lock`` between processes (retried briefly).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from acp_tui.services import children

__all__ = [
    "GitMissing",
    "ShadowError",
    "ShadowRepo",
    "Snapshot",
    "TooBig",
    "TreeChange",
    "find_git",
    "work_tree_of",
]

#: What a shadow's info/attributes says: no conversion of any kind, bytes as they are.
_ATTRIBUTES = "* -text -ident -filter !working-tree-encoding\n"
_IDENTITY = {
    "GIT_AUTHOR_NAME": "acp-tui",
    "GIT_AUTHOR_EMAIL": "checkpoints@acp-tui.invalid",
    "GIT_COMMITTER_NAME": "acp-tui",
    "GIT_COMMITTER_EMAIL": "checkpoints@acp-tui.invalid",
}
#: The shadow's own config: fast for many files, no automatic gc (pruning is ours).
_CONFIG = (
    ("core.autocrlf", "false"),
    ("core.safecrlf", "false"),
    ("core.untrackedCache", "true"),
    ("core.quotePath", "false"),
    ("index.version", "4"),
    ("gc.auto", "0"),
    ("commit.gpgSign", "false"),
)
_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()
#: Attempts when another process holds the shadow's index lock.
_LOCK_TRIES = 20
#: Up to this many changed files are named to ``git add``; more, and the roots are given.
_NAMED = 200
#: Seconds a listing of the work tree's files may take before it is too big to snapshot.
LIST_TIMEOUT = 20.0


class ShadowError(Exception):
    """A git command of the shadow repository failed; ``str()`` says which and why."""


class GitMissing(ShadowError):
    """No ``git`` program: snapshots cannot be taken (the caller falls back)."""


class TooBig(ShadowError):
    """The work tree has too many files to snapshot at every turn, or listing them took
    too long; ``str()`` says which, for the person."""


def find_git() -> str | None:
    """The ``git`` program to run, or None when there is none."""
    return shutil.which("git")


def work_tree_of(root: Path) -> Path:
    """The work tree a shadow snapshots for ``root``: the top of the git repository it is
    in (a folder holding ``.git``), else ``root`` itself."""
    for folder in (root, *root.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return root


def _project_exclude(work_tree: Path) -> Path | None:
    """The project's own ``info/exclude`` (read only), when it has one."""
    dot_git = work_tree / ".git"
    git_dir: Path | None = None
    if dot_git.is_dir():
        git_dir = dot_git
    elif dot_git.is_file():
        with contextlib.suppress(OSError, UnicodeDecodeError):
            first = dot_git.read_text("utf-8").splitlines()[0]
            if first.startswith("gitdir:"):
                git_dir = (work_tree / first.removeprefix("gitdir:").strip()).resolve()
                common = git_dir / "commondir"
                if common.is_file():
                    git_dir = (git_dir / common.read_text("utf-8").strip()).resolve()
    if git_dir is None:
        return None
    exclude = git_dir / "info" / "exclude"
    return exclude if exclude.is_file() else None


def _key(work_tree: Path) -> str:
    digest = hashlib.sha256(os.fsencode(work_tree)).hexdigest()[:20]
    name = re.sub(r"[^A-Za-z0-9._-]", "_", work_tree.name)[:40] or "root"
    return f"{name}-{digest}"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One snapshot: its commit, and the files left out of it (over the size cap)."""

    commit: str
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TreeChange:
    """One file that differs between two snapshots (paths relative to the work tree; a blob
    is None on the side where the file is not)."""

    path: str
    old_blob: str | None
    new_blob: str | None
    old_mode: str
    new_mode: str

    @property
    def status(self) -> Literal["created", "deleted", "modified"]:
        """``created``, ``deleted`` or ``modified``."""
        if self.old_blob is None:
            return "created"
        if self.new_blob is None:
            return "deleted"
        return "modified"


_NULL = "0" * 40


class ShadowRepo:
    """The shadow repository of one work tree (see the module docstring)."""

    def __init__(
        self,
        store: Path,
        work_tree: Path,
        *,
        max_file_bytes: int = 1024 * 1024,
        max_files: int = 50_000,
        git: str | None = None,
    ) -> None:
        git = git or find_git()
        if git is None:
            raise GitMissing("git is not installed")
        self.git = git
        self.work_tree = work_tree
        self.git_dir = store / "repos" / _key(work_tree)
        self.index = self.git_dir / "acp-tui.index"
        self.max_file_bytes = max_file_bytes
        self.max_files = max_files
        with _LOCKS_GUARD:
            self._lock = _LOCKS.setdefault(self.git_dir, threading.Lock())
        exclude = _project_exclude(work_tree)
        self._config_args = ["-c", f"core.excludesFile={exclude or os.devnull}"]
        self._env = self._environment()
        #: The last snapshot's (tree, commit): an unchanged tree is the same commit.
        self._last = ("", "")

    def _environment(self) -> dict[str, str]:
        env = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
        env.update(_IDENTITY)
        env.update(
            GIT_DIR=str(self.git_dir),
            GIT_WORK_TREE=str(self.work_tree),
            GIT_INDEX_FILE=str(self.index),
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_TERMINAL_PROMPT="0",
            GIT_OPTIONAL_LOCKS="0",
            LC_ALL="C",
        )
        return env

    # ------------------------------------------------------------------ running git

    def _run(
        self,
        *args: str,
        data: bytes | None = None,
        check: bool = True,
        timeout: float | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        for attempt in range(_LOCK_TRIES):
            done = children.run(
                [self.git, *self._config_args, *args],
                input=data,
                capture_output=True,
                cwd=self.work_tree,
                env=self._env,
                check=False,
                timeout=timeout,
            )
            if done.returncode == 0:
                return done
            error = done.stderr.decode("utf-8", "replace").strip()
            if "index.lock" in error and attempt < _LOCK_TRIES - 1:
                time.sleep(0.05)  # another acp-tui snapshots this project: its turn first
                continue
            if not check:
                return done
            raise ShadowError(f"git {_command(args)} failed: {error or done.returncode}")
        raise ShadowError(f"git {_command(args)} failed")  # pragma: no cover (loop returns)

    def ensure(self) -> None:
        """Make the shadow repository if it is not there yet (mode 0700)."""
        if (self.git_dir / "HEAD").is_file():
            return
        self.git_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.git_dir, 0o700)
        env = {k: v for k, v in self._env.items() if k not in ("GIT_DIR", "GIT_WORK_TREE")}
        children.run(
            [self.git, "init", "--bare", "--quiet", str(self.git_dir)],
            capture_output=True,
            env=env,
            check=True,
        )
        for name, value in _CONFIG:
            self._run("config", name, value)
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        (info / "attributes").write_text(_ATTRIBUTES, "utf-8")

    # ------------------------------------------------------------------ snapshots

    def snapshot(self, pathspecs: Sequence[str], message: str) -> Snapshot:
        """Snapshot the files under ``pathspecs`` (relative to the work tree; ``"."`` is all
        of it) as they are now: a commit in the shadow. Only what changed since the last
        snapshot is read (new files, and those whose stat data changed); files over the size
        cap are left out (and dropped from the shadow's index if they were in it)."""
        with self._lock:
            self.ensure()
            specs = [spec or "." for spec in pathspecs] or ["."]
            changed = self._changed(specs)
            skipped = [name for name in changed if self._oversized(name)]
            if skipped:
                self._run(
                    "rm",
                    "--cached",
                    "--quiet",
                    "--ignore-unmatch",
                    "--pathspec-from-file=-",
                    "--pathspec-file-nul",
                    data=_nul(f":(literal){path}" for path in skipped),
                )
            big = set(skipped)
            take = [name for name in changed if name not in big]
            many: list[str] = []
            if len(take) > _NAMED:
                # Git matches each file against every pathspec: many are slow, so the
                # roots are given (the index's stat data still spares the unchanged); and
                # thousands of loose objects are slow to write: one pack instead.
                pathspecs = [f":(literal){spec}" for spec in specs] + [
                    f":(exclude,literal){name}" for name in skipped
                ]
                many = ["-c", "core.bigFileThreshold=1"]
            else:
                pathspecs = [f":(literal){name}" for name in take]
            if take:
                self._run(
                    *many,
                    "add",
                    "--all",
                    "--ignore-errors",
                    "--pathspec-from-file=-",
                    "--pathspec-file-nul",
                    data=_nul(pathspecs),
                    check=False,
                )
            tree = self._run("write-tree").stdout.decode().strip()
            if tree == self._last[0]:
                return Snapshot(self._last[1], tuple(skipped))
            commit = (
                self._run("commit-tree", tree, "-m", message or "checkpoint")
                .stdout.decode()
                .strip()
            )
            self._last = (tree, commit)
            return Snapshot(commit, tuple(skipped))

    def _changed(self, specs: Sequence[str]) -> list[str]:
        """Files under ``specs`` a snapshot must read: new ones (not ignored) and those whose
        stat data changed since the last snapshot (deleted ones included). :class:`TooBig`
        when there are more than ``max_files`` or listing them takes over
        :data:`LIST_TIMEOUT` (nothing is read then)."""
        literal = [f":(literal){spec}" for spec in specs]
        started = time.monotonic()
        try:
            found = self._run(
                "ls-files",
                "-z",
                "--others",
                "--exclude-standard",
                "--",
                *literal,
                timeout=LIST_TIMEOUT,
            ).stdout
            left = max(1.0, LIST_TIMEOUT - (time.monotonic() - started))
            changed = self._run(
                "diff-files", "-z", "--name-only", "--", *literal, timeout=left
            ).stdout
        except subprocess.TimeoutExpired:
            raise TooBig(f"listing its files took over {LIST_TIMEOUT:.0f} s") from None
        names = set((found + changed).decode("utf-8", "surrogateescape").split("\0"))
        names.discard("")
        if len(names) > self.max_files:
            raise TooBig(f"over {self.max_files:,} files (not counting ignored ones)")
        return sorted(names)

    def _oversized(self, name: str) -> bool:
        try:
            info = os.lstat(self.work_tree / name)
        except OSError:
            return False
        return stat.S_ISREG(info.st_mode) and info.st_size > self.max_file_bytes

    # ------------------------------------------------------------------ reading

    def changes(self, old: str, new: str, pathspecs: Sequence[str] = ()) -> list[TreeChange]:
        """The files that differ between two snapshots, in path order (renames are a
        deletion and a creation)."""
        with self._lock:
            raw = self._run(
                "diff-tree",
                "-r",
                "-z",
                "--no-renames",
                "--raw",
                old,
                new,
                "--",
                *(f":(literal){spec}" for spec in pathspecs if spec and spec != "."),
            ).stdout
        return _parse_raw(raw)

    def read_blobs(self, blobs: Iterable[str]) -> dict[str, bytes]:
        """The content of each blob (one ``cat-file --batch``)."""
        wanted = list(dict.fromkeys(blobs))
        if not wanted:
            return {}
        with self._lock:
            out = self._run("cat-file", "--batch", data=_lines(wanted)).stdout
        result: dict[str, bytes] = {}
        position = 0
        for blob in wanted:
            end = out.index(b"\n", position)
            header = out[position:end].split()
            if len(header) < 3 or header[1] == b"missing":
                raise ShadowError(f"the shadow repository lost {blob}")
            size = int(header[2])
            start = end + 1
            result[blob] = out[start : start + size]
            position = start + size + 1
        return result

    def blob_of(self, commit: str, path: str) -> str | None:
        """The blob of ``path`` in ``commit``, or None when the snapshot has no such file."""
        with self._lock:
            done = self._run("rev-parse", "--verify", "--quiet", f"{commit}:{path}", check=False)
        if done.returncode != 0:
            return None
        return done.stdout.decode().strip() or None

    def store_blob(self, data: bytes) -> str:
        """Keep ``data`` in the shadow (a client-served write's before-content): its id."""
        with self._lock:
            self.ensure()
            return self._run("hash-object", "-w", "--stdin", data=data).stdout.decode().strip()

    # ------------------------------------------------------------------ keeping

    def keep(self, refs: Mapping[str, str]) -> None:
        """Keep each commit (or blob) alive under its ref name (``refs/acp/...``)."""
        if not refs:
            return
        with self._lock:
            self.ensure()
            self._run(
                "update-ref",
                "--stdin",
                "-z",
                data=b"".join(
                    f"update {ref}\0{target}\0\0".encode() for ref, target in refs.items()
                ),
            )

    def drop(self, prefix: str) -> int:
        """Forget every ref under ``prefix`` (e.g. one session's); how many went."""
        with self._lock:
            if not (self.git_dir / "HEAD").is_file():
                return 0
            listed = self._run("for-each-ref", "--format=%(refname)", prefix).stdout.decode()
            refs = [line for line in listed.splitlines() if line]
            if refs:
                self._run(
                    "update-ref",
                    "--stdin",
                    "-z",
                    data=b"".join(f"delete {ref}\0\0".encode() for ref in refs),
                )
        return len(refs)

    def refs(self, prefix: str = "refs/acp/") -> list[str]:
        with self._lock:
            if not (self.git_dir / "HEAD").is_file():
                return []
            listed = self._run("for-each-ref", "--format=%(refname)", prefix).stdout.decode()
        return [line for line in listed.splitlines() if line]

    def collect(self) -> None:
        """Free the objects no ref keeps (after :meth:`drop`)."""
        # Not under the lock: a turn's snapshot never waits for a collection (git's own
        # locks keep them apart; objects younger than the grace below are kept).
        if (self.git_dir / "HEAD").is_file():
            self._run("reflog", "expire", "--expire=now", "--all", check=False)
            # Not "now": a snapshot being taken has no ref yet.
            self._run("gc", "--prune=1.hour.ago", "--quiet", check=False)


def _command(args: Sequence[str]) -> str:
    """The git command of ``args`` (after any ``-c name=value``)."""
    return next((arg for arg in args if not arg.startswith("-") and "=" not in arg), "")


def _nul(items: Iterable[str]) -> bytes:
    return b"".join(os.fsencode(item) + b"\0" for item in items)


def _lines(items: Iterable[str]) -> bytes:
    return b"".join(item.encode() + b"\n" for item in items)


def _parse_raw(raw: bytes) -> list[TreeChange]:
    """``diff-tree --raw -z``: ``:oldmode newmode oldsha newsha status\\0path\\0`` each."""
    parts = raw.split(b"\0")
    changes: list[TreeChange] = []
    index = 0
    while index + 1 < len(parts):
        head = parts[index].decode()
        if not head.startswith(":"):
            index += 1
            continue
        old_mode, new_mode, old_sha, new_sha, _status = head[1:].split(" ")
        path = os.fsdecode(parts[index + 1])
        changes.append(
            TreeChange(
                path,
                None if old_sha == _NULL else old_sha,
                None if new_sha == _NULL else new_sha,
                old_mode,
                new_mode,
            )
        )
        index += 2
    return changes
