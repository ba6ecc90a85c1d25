"""A checkpoint never holds a turn up: the first snapshot of a project is taken in the
background as the agent starts (a prompt waits for it at most ``WARM_WAIT``, then goes
without a checkpoint and says so), and a folder that is no project (the home folder, the
temporary folder, the root) or that is too big to snapshot at every turn takes none, said
plainly in the transcript, without a stall."""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from pathlib import Path

import anyio
import pytest

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.services.checkpoints import shadow
from acp_tui.session.agent import checkpointing
from acp_tui.session.checkpoints.book import Checkpoints, Roots
from acp_tui.session.checkpoints.settings import CheckpointSettings
from acp_tui.session.launch import factory
from acp_tui.session.launch.factory import AgentParts
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.store.entries import AgentMessage, Notice
from tests.checkpoints.helpers import git_state, make_project

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is needed")


def heard_book(store: Path, **settings: int) -> tuple[Checkpoints, list[tuple[str, str]]]:
    heard: list[tuple[str, str]] = []
    book = Checkpoints(
        CheckpointSettings(store=store, enabled=True, **settings),
        notify=lambda _sid, title, text, _severity: heard.append((title, text)),
    )
    return book, heard


def files_in(folder: Path, count: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        (folder / f"f{n}.txt").write_text(f"{n}\n")
    return folder


@pytest.mark.parametrize("place", ["home", "temporary", "root"])
def test_a_folder_that_is_no_project_takes_no_checkpoint_and_says_so(tmp_path, monkeypatch, place):
    folder = files_in(tmp_path / "place", 30)
    if place == "home":
        monkeypatch.setenv("HOME", str(folder))
    elif place == "temporary":
        monkeypatch.setattr(tempfile, "tempdir", str(folder))
    else:
        folder = Path("/")
    book, heard = heard_book(tmp_path / "store")
    started = time.monotonic()
    book.warm(Roots(str(folder)).all(), "s1")
    assert book.begin_turn("s1", Roots(str(folder)), "hello") is None
    assert time.monotonic() - started < 1.0  # nothing was walked
    assert not (tmp_path / "store" / "repos").exists()
    assert [title for title, _ in heard] == ["Checkpoints are off here"]  # said once
    assert "is not a project" in heard[0][1]


def test_a_folder_with_too_many_files_takes_none_and_a_small_one_does(tmp_path):
    big = files_in(tmp_path / "big", 60)
    small = files_in(tmp_path / "small", 10)
    book, heard = heard_book(tmp_path / "store", max_files=50)
    book.warm(Roots(str(big), (str(small),)).all(), "s1")
    assert heard and "over 50 files" in heard[0][1] and str(big) in heard[0][1]
    ref = book.begin_turn("s1", Roots(str(big), (str(small),)), "hello")
    assert ref is not None  # the small folder is still checkpointed
    record = book.journal("s1").turn(ref.number)
    assert list(record.before) == [str(small)]
    assert len(heard) == 1
    assert book.begin_turn("s2", Roots(str(big)), "hello") is None


def test_a_listing_that_takes_too_long_turns_checkpoints_off(tmp_path, monkeypatch):
    monkeypatch.setattr(shadow, "LIST_TIMEOUT", 1e-6)
    folder = files_in(tmp_path / "slow", 5)
    book, heard = heard_book(tmp_path / "store")
    assert book.begin_turn("s1", Roots(str(folder)), "hello") is None
    assert "listing its files took over" in heard[0][1]


def test_a_warm_up_makes_the_first_turns_snapshot_read_only_what_changed(tmp_path):
    project = make_project(tmp_path / "project")
    book, heard = heard_book(tmp_path / "store")
    book.warm(Roots(str(project)).all())
    (project / "src" / "new.py").write_text("new\n")
    state = git_state(project)
    repo = next(iter(book._repos.values()))
    assert repo._changed(["."]) == ["src/new.py"]
    assert book.begin_turn("s1", Roots(str(project)), "hi") is not None
    assert heard == [] and git_state(project) == state


class SlowBook(Checkpoints):
    """A first snapshot that takes as long as the test says (a huge folder's walk)."""

    release = threading.Event()

    def warm(self, roots, session_id=None):  # type: ignore[no-untyped-def]
        SlowBook.release.wait(60)
        super().warm(roots, session_id)


@pytest.mark.anyio
async def test_a_prompt_is_never_held_up_by_a_slow_first_snapshot(tmp_path, monkeypatch):
    monkeypatch.setattr(factory, "Checkpoints", SlowBook)
    monkeypatch.setattr(checkpointing, "WARM_WAIT", 0.3)
    SlowBook.release.clear()
    project = make_project(tmp_path / "project")
    spec = AgentSpec(
        tuple(demo_agent_argv()),
        cwd=str(project),
        checkpoints=CheckpointSettings(store=tmp_path / "store", enabled=True),
    )
    controller = AgentParts(spec, policy="yolo").controller()
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(controller.run)
            with anyio.fail_after(30):
                while controller.current_session_id is None:
                    await anyio.sleep(0.02)
            session_id = controller.current_session_id
            controller.send_prompt(session_id, "hello")
            # The reply comes while the warm-up is still walking (it is never released
            # before the reply): the prompt did not wait for it.
            with anyio.fail_after(20):
                while not any(
                    isinstance(entry, AgentMessage)
                    for entry in controller.state.store.get(session_id).transcript
                ):
                    await anyio.sleep(0.02)
            notices = [
                entry.title
                for entry in controller.state.store.get(session_id).transcript
                if isinstance(entry, Notice)
            ]
            assert "No checkpoint for this turn" in notices
            assert await controller.checkpoints.turns(session_id) == []
            SlowBook.release.set()
            # Once warm, the next turn has its checkpoint.
            with anyio.fail_after(30):
                while not all(done.is_set() for done in controller.checkpoints._warming.values()):
                    await anyio.sleep(0.02)
                while controller.state.store.get(session_id).turn_started is not None:
                    await anyio.sleep(0.02)
            controller.send_prompt(session_id, "again")
            with anyio.fail_after(30):
                while not await controller.checkpoints.turns(session_id):
                    await anyio.sleep(0.05)
            controller.request_stop()
    finally:
        SlowBook.release.set()


class SlowEnd(Checkpoints):
    """An end-of-turn snapshot that takes as long as the test says (a turn that made
    thousands of files)."""

    release = threading.Event()

    def end_turn(self, ref, roots):  # type: ignore[no-untyped-def]
        SlowEnd.release.wait(60)
        return super().end_turn(ref, roots)


@pytest.mark.anyio
async def test_a_prompt_is_never_held_up_by_the_last_turns_slow_end_snapshot(tmp_path, monkeypatch):
    monkeypatch.setattr(factory, "Checkpoints", SlowEnd)
    monkeypatch.setattr(checkpointing, "WARM_WAIT", 0.3)
    SlowEnd.release.clear()
    project = make_project(tmp_path / "project")
    spec = AgentSpec(
        tuple(demo_agent_argv()),
        cwd=str(project),
        checkpoints=CheckpointSettings(store=tmp_path / "store", enabled=True),
    )
    controller = AgentParts(spec, policy="yolo").controller()

    def replies(session_id: str) -> int:
        transcript = controller.state.store.get(session_id).transcript
        return sum(isinstance(entry, AgentMessage) for entry in transcript)

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(controller.run)
            with anyio.fail_after(30):
                while controller.current_session_id is None:
                    await anyio.sleep(0.02)
                session_id = controller.current_session_id
                while not all(done.is_set() for done in controller.checkpoints._warming.values()):
                    await anyio.sleep(0.02)
            controller.send_prompt(session_id, "one")
            with anyio.fail_after(20):
                while (
                    replies(session_id) < 1
                    or controller.state.store.get(session_id).turn_started is not None
                ):
                    await anyio.sleep(0.02)
            # The first turn's end snapshot is still running: the second prompt goes anyway.
            controller.send_prompt(session_id, "two")
            with anyio.fail_after(20):
                while replies(session_id) < 2:
                    await anyio.sleep(0.02)
            notices = [
                entry.description or ""
                for entry in controller.state.store.get(session_id).transcript
                if isinstance(entry, Notice)
            ]
            assert any("last turn's checkpoint is still being taken" in n for n in notices)
            assert [t.number for t in await controller.checkpoints.turns(session_id)] == [1]
            SlowEnd.release.set()
            controller.request_stop()
    finally:
        SlowEnd.release.set()
