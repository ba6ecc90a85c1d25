"""Helpers for the checkpoint tests: a project with its own git repository, and a record of
the project's git state that every test compares before and after."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

GIT_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    # `git status` would refresh the index (a write) when files were touched: reading only.
    "GIT_OPTIONAL_LOCKS": "0",
}


def git(project: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=project, env=GIT_ENV, capture_output=True, check=True, text=True
    ).stdout


def make_project(path: Path) -> Path:
    """A git project with a commit, a stash, a branch, an ignored file and a staged change."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    (path / ".gitignore").write_text("ignored.log\nbuild/\n")
    (path / "keep.txt").write_text("one\ntwo\nthree\n")
    (path / "crlf.txt").write_bytes(b"a\r\nb\r\n")
    (path / "bin.dat").write_bytes(bytes(range(256)))
    (path / "src").mkdir()
    (path / "src" / "app.py").write_text("print('hi')\n")
    git(path, "add", "-A")
    git(path, "commit", "-qm", "first")
    git(path, "branch", "feature")
    (path / "keep.txt").write_text("one\ntwo\nthree\nstashed\n")
    git(path, "stash", "-q")
    (path / "staged.txt").write_text("staged\n")
    git(path, "add", "staged.txt")
    (path / "ignored.log").write_text("noise\n")
    return path


def git_state(project: Path) -> dict[str, str]:
    """What the project's own git says of itself: status, stashes, branches, HEAD, the
    index's bytes and the config's."""
    dot = project / ".git"
    return {
        "status": git(project, "status", "--porcelain=v1", "--untracked-files=all"),
        "stash": git(project, "stash", "list"),
        "branches": git(project, "branch", "-a", "-v"),
        "head": git(project, "rev-parse", "HEAD"),
        "index": hashlib.sha256((dot / "index").read_bytes()).hexdigest(),
        "config": (dot / "config").read_text(),
        "refs": git(project, "for-each-ref"),
    }


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but ``.git``, by relative path, with its bytes."""
    found: dict[str, bytes] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            full = Path(folder) / name
            found[str(full.relative_to(root))] = full.read_bytes()
    return found
