"""``acp-tui checkpoints`` and ``acp-tui rewind`` as a script runs them (the installed
command, a real process): the list (text and JSON), the rewind, its exit codes (conflict
refused, --force, no such turn, usage), and the project's own git state untouched."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tui.session.checkpoints.book import Checkpoints, Roots
from acp_tui.session.checkpoints.settings import CheckpointSettings
from tests.checkpoints.helpers import git_state, make_project, tree_bytes

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is needed")


def acp_tui(*args: str, cwd: Path, data: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(data)}
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def a_session_with_a_turn(tmp_path: Path) -> tuple[Path, Path, dict[str, bytes]]:
    """A project, and the checkpoints of one turn that edited, made and deleted files, kept
    where the command line finds them (the data folder's ``acp-tui/checkpoints``)."""
    project = make_project(tmp_path / "project")
    data = tmp_path / "data"
    store = data / "acp-tui" / "checkpoints"
    book = Checkpoints(CheckpointSettings(store=store, enabled=True), agent="demo")
    before = tree_bytes(project)
    (tmp_path / "git-state.json").write_text(json.dumps(git_state(project)))
    roots = Roots(str(project))
    ref = book.begin_turn("sess-1", roots, "make changes\nplease", title="A title")
    (project / "keep.txt").write_text("changed\n")
    (project / "made.txt").write_text("made\n")
    (project / "src" / "app.py").unlink()
    book.end_turn(ref, roots)
    return project, data, before


def test_checkpoints_lists_the_turns_and_their_files(tmp_path):
    project, data, _before = a_session_with_a_turn(tmp_path)
    listed = acp_tui("checkpoints", cwd=project, data=data)
    assert listed.returncode == 0, listed.stderr
    assert "sess-1" in listed.stdout and "make changes" in listed.stdout
    assert "A made.txt" in listed.stdout and "D src/app.py" in listed.stdout
    as_json = acp_tui("checkpoints", "--session", "sess-1", "--json", cwd=tmp_path, data=data)
    assert as_json.returncode == 0
    (session,) = json.loads(as_json.stdout)["sessions"]
    (turn,) = session["turns"]
    assert turn["turn"] == 1 and turn["prompt"] == "make changes"
    assert {Path(f["path"]).name: f["change"] for f in turn["files"]} == {
        "keep.txt": "modified",
        "made.txt": "created",
        "app.py": "deleted",
    }
    missing = acp_tui("checkpoints", "--session", "nope", cwd=project, data=data)
    assert missing.returncode == 1 and "no checkpoints" in missing.stderr


def test_rewind_puts_the_files_back_and_leaves_git_alone(tmp_path):
    project, data, before = a_session_with_a_turn(tmp_path)
    state = json.loads((tmp_path / "git-state.json").read_text())
    done = acp_tui(
        "rewind", "--session", "sess-1", "--turn", "1", "--code", cwd=tmp_path, data=data
    )
    assert done.returncode == 0, done.stderr
    assert "deleted: made.txt" in done.stdout
    assert tree_bytes(project) == before
    assert git_state(project) == state
    # It can be undone: rewinding to the rewind's own checkpoint brings the turn back.
    undo = acp_tui(
        "rewind", "--session", "sess-1", "--turn", "2", "--code", cwd=tmp_path, data=data
    )
    assert undo.returncode == 0, undo.stderr
    assert (project / "made.txt").read_text() == "made\n"


def test_a_conflict_is_refused_unless_forced(tmp_path):
    project, data, before = a_session_with_a_turn(tmp_path)
    (project / "keep.txt").write_text("the person's edit\n")
    refused = acp_tui(
        "rewind", "--session", "sess-1", "--turn", "1", "--code", cwd=project, data=data
    )
    assert refused.returncode == 3
    assert "keep.txt" in refused.stderr
    assert (project / "made.txt").exists()  # nothing written
    forced = acp_tui(
        "rewind", "--session", "sess-1", "--turn", "1", "--code", "--force", cwd=project, data=data
    )
    assert forced.returncode == 0, forced.stderr
    assert tree_bytes(project) == before


def test_exit_codes_for_no_such_turn_and_usage(tmp_path):
    project, data, _before = a_session_with_a_turn(tmp_path)
    no_turn = acp_tui(
        "rewind", "--session", "sess-1", "--turn", "9", "--code", cwd=project, data=data
    )
    assert no_turn.returncode == 1 and "turn 9" in no_turn.stderr
    usage = acp_tui("rewind", "--session", "sess-1", cwd=project, data=data)
    assert usage.returncode == 2
