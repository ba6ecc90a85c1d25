"""Checkpoints and rewind of files (acp_tui/session/checkpoints): snapshots, conflicts,
pruning, the size cap, ignores, links, the no-git fallback, and the project's own git
state left exactly as it was."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from acp_tui.session.checkpoints.book import NO_GIT_NOTICE, Checkpoints, Roots, _ref_prefix
from acp_tui.session.checkpoints.rewind import (
    RewindError,
    apply_rewind,
    plan_rewind,
    plan_tool_call_revert,
    plan_turn_revert,
)
from acp_tui.session.checkpoints.settings import CheckpointSettings
from tests.checkpoints.helpers import git_state, make_project, tree_bytes

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is needed")


def book_for(tmp_path: Path, **kwargs: object) -> tuple[Checkpoints, list[tuple[str, ...]]]:
    told: list[tuple[str, ...]] = []
    kwargs.setdefault("enabled", True)
    settings = CheckpointSettings(store=tmp_path / "store", **kwargs)  # type: ignore[arg-type]
    book = Checkpoints(settings, agent="test", notify=lambda *args: told.append(args))
    return book, told


def agent_turn(project: Path) -> None:
    """What an agent's turn does: edits, creates (in a new folder) and deletes files."""
    (project / "keep.txt").write_text("one\nTWO\nthree\n")
    (project / "crlf.txt").write_bytes(b"a\r\nchanged\r\n")
    (project / "bin.dat").write_bytes(b"\x00\xff" * 10)
    (project / "new" / "deep").mkdir(parents=True)
    (project / "new" / "deep" / "made.txt").write_text("made\n")
    (project / "src" / "app.py").unlink()
    (project / "ignored.log").write_text("rewritten noise\n")


def choose_all(plan):
    return {planned.path: None for planned in plan.files}


def test_a_rewind_puts_every_file_back_byte_for_byte_and_leaves_git_alone(tmp_path):
    project = make_project(tmp_path / "project")
    state = git_state(project)
    before = tree_bytes(project)
    book, _told = book_for(tmp_path)
    roots = Roots(str(project))
    ref = book.begin_turn("s1", roots, "change things\nsecond line")
    assert ref is not None and ref.number == 1
    agent_turn(project)
    record = book.end_turn(ref, roots)
    assert record is not None
    assert {(Path(f.path).name, f.change) for f in record.files} == {
        ("keep.txt", "modified"),
        ("crlf.txt", "modified"),
        ("bin.dat", "modified"),
        ("made.txt", "created"),
        ("app.py", "deleted"),
    }
    plan = plan_rewind(book, "s1", 1)
    actions = {p.display: p.action for p in plan.files}
    assert actions == {
        "bin.dat": "restore",
        "crlf.txt": "restore",
        "keep.txt": "restore",
        os.path.join("new", "deep", "made.txt"): "delete",
        os.path.join("src", "app.py"): "create",
    }
    assert not plan.conflicts
    assert next(p for p in plan.files if p.display == "bin.dat").binary
    result = apply_rewind(book, plan, choose_all(plan))
    assert not result.left
    after = tree_bytes(project)
    # Ignored files are not the checkpoint's business: left as the turn made them.
    before["ignored.log"] = b"rewritten noise\n"
    assert after == before
    assert git_state(project) == state
    assert git_state(project)["status"].count("staged.txt") == 1


def test_a_rewind_can_be_undone(tmp_path):
    project = make_project(tmp_path / "project")
    book, _ = book_for(tmp_path)
    roots = Roots(str(project))
    ref = book.begin_turn("s1", roots, "edit")
    agent_turn(project)
    book.end_turn(ref, roots)
    turned = tree_bytes(project)
    plan = plan_rewind(book, "s1", 1)
    result = apply_rewind(book, plan, choose_all(plan))
    assert result.record == 2
    journal = book.journal("s1")
    assert journal.turns[-1].kind == "rewind" and journal.turns[-1].target == 1
    undo = plan_rewind(book, "s1", result.record)
    apply_rewind(book, undo, choose_all(undo))
    assert tree_bytes(project) == turned


def test_a_file_the_person_changed_after_the_turn_is_a_conflict(tmp_path):
    project = make_project(tmp_path / "project")
    book, _ = book_for(tmp_path)
    roots = Roots(str(project))
    ref = book.begin_turn("s1", roots, "first")
    (project / "keep.txt").write_text("agent\n")
    (project / "src" / "app.py").write_text("agent too\n")
    book.end_turn(ref, roots)
    # The person edits between the turns, and after the last one.
    (project / "keep.txt").write_text("agent\nand the person\n")
    ref2 = book.begin_turn("s1", roots, "second")
    (project / "crlf.txt").write_text("agent, turn 2\n")
    book.end_turn(ref2, roots)
    (project / "bin.dat").write_bytes(b"person after")
    plan = plan_rewind(book, "s1", 1)
    conflicts = {p.display for p in plan.conflicts}
    assert conflicts == {"keep.txt", "bin.dat"}
    # Rewinding only to turn 2 leaves turn 1's files, and only the later edit conflicts.
    assert {p.display for p in plan_rewind(book, "s1", 2).conflicts} == {"bin.dat"}
    # Keeping the conflicts (not chosen) leaves them as the person made them.
    chosen = {p.path: None for p in plan.files if not p.conflict}
    apply_rewind(book, plan, chosen)
    assert (project / "keep.txt").read_text() == "agent\nand the person\n"
    assert (project / "bin.dat").read_bytes() == b"person after"
    assert (project / "src" / "app.py").read_text() == "print('hi')\n"


def test_hunks_are_chosen_one_by_one(tmp_path):
    project = tmp_path / "plain"
    project.mkdir()
    lines = [f"line {n}\n" for n in range(40)]
    (project / "long.txt").write_text("".join(lines))
    book, _ = book_for(tmp_path)
    roots = Roots(str(project))
    ref = book.begin_turn("s", roots, "two edits")
    changed = list(lines)
    changed[2] = "agent 2\n"
    changed[30] = "agent 30\n"
    (project / "long.txt").write_text("".join(changed))
    book.end_turn(ref, roots)
    plan = plan_turn_revert(book, "s", 1)
    (planned,) = plan.files
    assert len(planned.change.hunks) == 2
    apply_rewind(book, plan, {planned.path: frozenset({1})})
    expected = list(changed)
    expected[30] = "line 30\n"
    assert (project / "long.txt").read_text() == "".join(expected)


def test_the_size_cap_leaves_big_files_out_and_says_so(tmp_path):
    project = tmp_path / "plain"
    project.mkdir()
    (project / "big.bin").write_bytes(b"x" * 5000)
    (project / "small.txt").write_text("small\n")
    book, told = book_for(tmp_path, max_file_bytes=1000)
    roots = Roots(str(project))
    ref = book.begin_turn("s", roots, "go")
    assert any("size cap" in title and "big.bin" in text for _s, title, text, _sev in told)
    (project / "big.bin").write_bytes(b"y" * 6000)
    (project / "small.txt").write_text("changed\n")
    book.end_turn(ref, roots)
    plan = plan_rewind(book, "s", 1)
    assert [p.display for p in plan.files] == ["small.txt"]
    assert any("big.bin" in line and "size cap" in line for line in plan.left)
    apply_rewind(book, plan, choose_all(plan))
    assert (project / "big.bin").read_bytes() == b"y" * 6000


def test_a_link_is_never_written_through(tmp_path):
    project = tmp_path / "plain"
    project.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("outside\n")
    (project / "f.txt").write_text("before\n")
    book, _ = book_for(tmp_path)
    roots = Roots(str(project))
    ref = book.begin_turn("s", roots, "go")
    (project / "f.txt").unlink()
    (project / "f.txt").symlink_to(outside)
    book.end_turn(ref, roots)
    plan = plan_rewind(book, "s", 1)
    apply_rewind(book, plan, choose_all(plan))
    assert outside.read_text() == "outside\n"
    assert (project / "f.txt").is_symlink()


def test_pruning_keeps_the_newest_turns_per_session_and_in_all(tmp_path):
    project = tmp_path / "plain"
    project.mkdir()
    book, _ = book_for(tmp_path, keep_per_session=3, keep_total=5)
    roots = Roots(str(project))
    for n in range(5):
        (project / "f.txt").write_text(f"{n}\n")
        book.end_turn(book.begin_turn("a", roots, f"a{n}"), roots)
    assert [t.number for t in book.journal("a").turns] == [3, 4, 5]
    for n in range(3):
        book.end_turn(book.begin_turn("b", roots, f"b{n}"), roots)
    # The bound in total is kept as an agent starts (in the background).
    assert book.prune_and_collect() == 1
    fresh = Checkpoints(book.settings)
    counts = {j.session_id: len(j.turns) for j in fresh.journals.all()}
    assert sum(counts.values()) <= 5 and counts["b"] == 3
    # The dropped turns' commits are no longer kept by any ref.
    repo = book.repo_of_file(project / "f.txt")
    prefix = _ref_prefix("a")
    kept = {ref.removeprefix(prefix).split("/")[1] for ref in repo.refs(prefix)}
    assert kept == {str(t.number) for t in fresh.journal("a").turns}
    with pytest.raises(RewindError):
        plan_rewind(book, "a", 1)


def test_without_git_the_clients_writes_are_taken_back_and_said_once(tmp_path, monkeypatch):
    monkeypatch.setattr("acp_tui.session.checkpoints.book.find_git", lambda: None)
    project = tmp_path / "plain"
    project.mkdir()
    (project / "a.txt").write_text("a before\n")
    book, told = book_for(tmp_path)
    assert book.engine == "writes"
    roots = Roots(str(project))
    ref = book.begin_turn("s", roots, "write")
    book.begin_turn("s", roots, "again")  # a second turn says nothing more
    assert next(t for t in told if t[1] == "Checkpoints without git")[2] == NO_GIT_NOTICE
    assert sum(1 for t in told if t[1] == "Checkpoints without git") == 1
    book.journal("s").turns.pop()  # keep one turn running
    (project / "a.txt").write_text("a after\n")
    book.record_write("s", project / "a.txt", b"a before\n", b"a after\n", "call-1")
    (project / "b.txt").write_text("made\n")
    book.record_write("s", project / "b.txt", None, b"made\n", "call-2")
    book.end_turn(ref, roots)
    plan = plan_rewind(book, "s", 1)
    assert {p.display: p.action for p in plan.files} == {"a.txt": "restore", "b.txt": "delete"}
    apply_rewind(book, plan, choose_all(plan))
    assert (project / "a.txt").read_text() == "a before\n"
    assert not (project / "b.txt").exists()
    assert any("only the files written through acp-tui" in line for line in plan.left)


def test_checkpoints_off_take_nothing(tmp_path):
    project = tmp_path / "plain"
    project.mkdir()
    book, _ = book_for(tmp_path, enabled=False)
    assert book.begin_turn("s", Roots(str(project)), "x") is None
    assert not (tmp_path / "store").exists()


def test_the_journal_is_read_back_by_another_process(tmp_path):
    project = make_project(tmp_path / "project")
    book, _ = book_for(tmp_path)
    roots = Roots(str(project))
    ref = book.begin_turn("s1", roots, "first line\nmore")
    agent_turn(project)
    book.end_turn(ref, roots)
    fresh = Checkpoints(book.settings)
    journal = fresh.journal("s1")
    assert journal is not None and journal.turns[0].first_line() == "first line"
    plan = plan_rewind(fresh, "s1", 1)
    assert len(plan.files) == 5


def test_one_tool_calls_writes_are_taken_back_and_a_later_change_is_a_conflict(tmp_path):
    project = make_project(tmp_path / "project")
    book, _told = book_for(tmp_path)
    roots = Roots(str(project))
    one, two = project / "one.txt", project / "keep.txt"
    before_two = two.read_bytes()
    ref = book.begin_turn("s", roots, "go")
    for path, call in ((one, "call-1"), (two, "call-2"), (one, "call-1")):
        old = path.read_bytes() if path.exists() else None
        new = (old or b"") + f"{call}\n".encode()
        path.write_bytes(new)
        book.record_write("s", path, old, new, call)
    book.end_turn(ref, roots)
    state = git_state(project)
    plan = plan_tool_call_revert(book, "s", "call-1", roots)
    assert [(f.display, f.action, f.conflict) for f in plan.files] == [("one.txt", "delete", False)]
    # The person changes the other tool call's file afterwards: a conflict, left unchosen.
    two.write_bytes(b"mine\n")
    plan2 = plan_tool_call_revert(book, "s", "call-2", roots)
    assert [(f.display, f.conflict) for f in plan2.files] == [("keep.txt", True)]
    apply_rewind(book, plan, choose_all(plan), roots=roots)
    assert not one.exists() and two.read_bytes() == b"mine\n"
    apply_rewind(book, plan2, choose_all(plan2), roots=roots)
    assert two.read_bytes() == before_two
    assert git_state(project)["stash"] == state["stash"]
    assert git_state(project)["index"] == state["index"]
    with pytest.raises(RewindError):
        plan_tool_call_revert(book, "s", "no-such-call", roots)
