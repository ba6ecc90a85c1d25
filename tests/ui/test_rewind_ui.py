"""Rewind in the TUI, with the demo agent: Esc Esc, the picker, the review (files and hunks,
conflicts left out), confirmation, the conversation rewound by an exact fork (the demo agent
forks at a message) or, where the agent does not, as a labelled reconstruction, an earlier
message edited, and "Changes of this turn"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.session.checkpoints.settings import CheckpointSettings
from acp_tui.store.entries import UserMessage
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.rewind import ReviewDialog, RewindPicker
from acp_tui.ui.widgets.change_review import ChangeReview
from acp_tui.ui.widgets.transcript_views import UserMessageView
from tests.checkpoints.helpers import git_state, make_project, tree_bytes
from tests.ui.chat_helpers import (
    agent_app,
    armed_dialog,
    chat,
    run_palette_command,
    send,
    settle,
    wait_for,
    wait_for_session,
)

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("git") is None, reason="git is needed"),
]


def project_app(tmp_path: Path, *, whole_forks_only: bool = False):
    """The demo agent in a project; ``whole_forks_only``: it does not fork at a message."""
    project = make_project(tmp_path / "project")
    (project / "notes.txt").write_text("my notes\n")
    (project / "delete-me.txt").write_text("keep me\n")
    argv = demo_agent_argv(
        state_dir=str(tmp_path / "demo-state"), chunk_delay=0, whole_forks_only=whole_forks_only
    )
    app = agent_app(
        argv,
        project,
        checkpoints=CheckpointSettings(store=tmp_path / "store", enabled=True),
        data_dir=tmp_path / "data",  # not in the project: only the agent changes it
    )
    return project, app


async def change_turn(pilot, text: str = "/change") -> None:
    screen = chat(pilot.app)
    await send(pilot, text)

    def ended() -> bool:
        journal = screen.controller.checkpoints.book.journal(screen.session_id)
        return bool(journal and journal.turns and journal.turns[-1].ended is not None)

    await wait_for(pilot, ended, "the turn's end checkpoint")
    await settle(pilot)


async def pick(pilot, scope_index: int) -> None:
    """In the open picker: Enter on the highlighted turn, then the scope'th choice."""
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, RewindPicker), "the picker")
    await pilot.press("enter")
    await pilot.pause()
    for _ in range(scope_index):
        await pilot.press("down")
    await pilot.press("enter")


async def test_esc_esc_rewinds_the_files_after_review_and_confirmation(tmp_path):
    project, app = project_app(tmp_path)
    before = tree_bytes(project)
    state = git_state(project)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_session(pilot)
        await change_turn(pilot)
        assert (project / "created.txt").exists() and not (project / "delete-me.txt").exists()
        chat(pilot.app).focus_prompt()
        await pilot.press("escape", "escape")
        await pick(pilot, 1)  # code only
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReviewDialog), "the review")
        review = pilot.app.screen.query_one(ChangeReview)
        assert {f.display for f in review.files} == {"notes.txt", "created.txt", "delete-me.txt"}
        # Nothing written before the confirmation.
        assert (project / "created.txt").exists()
        await armed_dialog(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: not (project / "created.txt").exists(), "the files put back")
        await settle(pilot)
        texts = [
            str(e.title)
            for e in chat(pilot.app).store.get(chat(pilot.app).session_id).transcript
            if hasattr(e, "severity")
        ]
        assert any("Rewind files to before turn 1" in t for t in texts)
    assert tree_bytes(project) == before
    assert git_state(project) == state


async def test_a_conflict_starts_left_out_and_is_kept_as_the_person_made_it(tmp_path):
    project, app = project_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_session(pilot)
        await change_turn(pilot)
        (project / "notes.txt").write_text("the person's own edit\n")
        await run_palette_command(pilot, "Rewind")
        await pick(pilot, 1)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReviewDialog), "the review")
        review = pilot.app.screen.query_one(ChangeReview)
        choices = dict(zip([f.display for f in review.files], review.choices(), strict=True))
        assert choices["notes.txt"] is False
        assert choices["created.txt"] is None
        await armed_dialog(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: not (project / "created.txt").exists(), "the rewind")
    assert (project / "notes.txt").read_text() == "the person's own edit\n"
    assert (project / "delete-me.txt").read_text() == "keep me\n"


async def test_both_rewinds_the_conversation_into_a_labelled_reconstruction(tmp_path):
    project, app = project_app(tmp_path, whole_forks_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        first = screen.session_id
        await change_turn(pilot, "hello there")
        await change_turn(pilot)
        await run_palette_command(pilot, "Rewind")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, RewindPicker), "the picker")
        await pilot.press("enter")  # the last turn (/change), both
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReviewDialog), "the review")
        await armed_dialog(pilot)
        await pilot.press("y")
        await wait_for(
            pilot,
            lambda: (
                isinstance(pilot.app.screen, ChatScreen)
                and chat(pilot.app).session_id not in (None, first)
            ),
            "the new session",
        )
        await settle(pilot)
        screen = chat(pilot.app)
        new = screen.store.get(screen.session_id)
        assert new.display_title.endswith("(rewound to turn 2)")
        notes = [
            e
            for e in new.transcript
            if getattr(e, "title", "") == "Rewound conversation (a reconstruction)"
        ]
        assert notes
        assert screen.store.get(first) is not None  # the old session is kept
        # The next message carries the conversation up to turn 2.
        await send(pilot, "and now?")
        await wait_for(
            pilot,
            lambda: (
                screen.controller.is_busy(screen.session_id) is False
                and any(e.__class__.__name__ == "AgentMessage" for e in new.transcript)
            ),
            "the reply",
        )
        sent = [
            m
            for m in screen.controller.client.connection.traffic
            if m.direction == "out" and "session/prompt" in (m.text or "")
        ]
        assert "hello there" in sent[-1].text and "and now?" in sent[-1].text
        assert "/change" not in sent[-1].text.split("and now?")[0].split("hello there")[1]
    assert not (project / "created.txt").exists()


@pytest.mark.parametrize(("scope", "index"), [("both", 0), ("conversation", 2)])
async def test_the_conversation_is_rewound_by_an_exact_fork_where_the_agent_forks(
    tmp_path, scope, index
):
    project, app = project_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        first = screen.session_id
        await change_turn(pilot, "hello there")
        await change_turn(pilot)
        await run_palette_command(pilot, "Rewind")
        await pick(pilot, index)  # the last turn (/change)
        if scope == "both":
            await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReviewDialog), "review")
            await armed_dialog(pilot)
            await pilot.press("y")
        await wait_for(
            pilot,
            lambda: (
                isinstance(pilot.app.screen, ChatScreen)
                and chat(pilot.app).session_id not in (None, first)
            ),
            "the new session",
        )
        await settle(pilot)
        screen = chat(pilot.app)
        new = screen.store.get(screen.session_id)
        assert new.display_title.endswith("(rewound to turn 2)")
        titles = [getattr(e, "title", "") for e in new.transcript]
        assert "Rewound conversation (an exact fork)" in titles
        assert "Rewound conversation (a reconstruction)" not in titles
        assert [e.text for e in new.transcript if isinstance(e, UserMessage)] == ["hello there"]
        assert screen.store.get(first) is not None  # the old session is kept
        traffic = screen.controller.client.connection.traffic
        forks = [m.text for m in traffic if m.direction == "out" and "session/fork" in m.text]
        assert len(forks) == 1 and '"messageId"' in forks[0]
        # The agent lives on from turn 1: the next message is its turn 2, with no context.
        await send(pilot, "and now?")
        await wait_for(
            pilot,
            lambda: (
                screen.controller.is_busy(screen.session_id) is False
                and any("turn 2 of this session" in getattr(e, "text", "") for e in new.transcript)
            ),
            "the reply as turn 2",
        )
        sent = [m.text for m in traffic if m.direction == "out" and "session/prompt" in m.text]
        assert "hello there" not in sent[-1]
    assert (project / "created.txt").exists() is (scope == "conversation")


async def test_editing_an_earlier_message_puts_its_text_in_the_prompt(tmp_path):
    _project, app = project_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_session(pilot)
        await change_turn(pilot, "first message to edit")
        await change_turn(pilot, "second")
        chat(pilot.app).focus_prompt()
        await pilot.press("alt+up", "alt+up")
        assert isinstance(pilot.app.focused, UserMessageView)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, RewindPicker), "the picker")
        await pilot.pause()
        for _ in range(3):
            await pilot.press("down")
        await pilot.press("enter")  # edit this message
        await wait_for(
            pilot,
            lambda: (
                isinstance(pilot.app.screen, ChatScreen)
                and chat(pilot.app).query_one("#prompt").text == "first message to edit"
            ),
            "the message's text in the prompt",
        )
        title = chat(pilot.app).store.get(chat(pilot.app).session_id).display_title
        assert title.endswith("(rewound to turn 1)")


async def test_changes_of_this_turn_take_back_only_what_is_kept(tmp_path):
    project, app = project_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_session(pilot)
        await change_turn(pilot)
        await run_palette_command(pilot, "Changes of this turn")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReviewDialog), "the review")
        review = pilot.app.screen.query_one(ChangeReview)
        assert all(choice is False for choice in review.choices())
        await armed_dialog(pilot)
        # The list starts on the first file (created.txt, in path order): keep only it.
        names = [f.display for f in review.files]
        await pilot.press("space")
        await pilot.pause()
        kept = [n for n, c in zip(names, review.choices(), strict=True) if c is not False]
        assert kept == [names[0]]
        await pilot.press("y")
        await wait_for(pilot, lambda: not isinstance(pilot.app.screen, ReviewDialog), "applied")
        await settle(pilot)
    assert names[0] == "created.txt"
    assert not (project / "created.txt").exists()
    assert not (project / "delete-me.txt").exists()
    assert "changed by the demo agent" in (project / "notes.txt").read_text()


async def test_one_tool_calls_writes_are_undone_from_the_palette(tmp_path):
    project, app = project_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_session(pilot)
        await change_turn(pilot, "/change notes.txt made-1.txt")
        await change_turn(pilot, "/change other.txt made-2.txt")
        await run_palette_command(pilot, "Undo tool call: Write notes.txt")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReviewDialog), "the review")
        review = pilot.app.screen.query_one(ChangeReview)
        assert [f.display for f in review.files] == ["notes.txt"]
        await armed_dialog(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: not isinstance(pilot.app.screen, ReviewDialog), "applied")
        await wait_for(
            pilot, lambda: (project / "notes.txt").read_text() == "my notes\n", "notes.txt back"
        )
        await settle(pilot)
    # Only that tool call's write: the later tool call's file and the files made on disk stay.
    assert "changed by the demo agent" in (project / "other.txt").read_text()
    assert (project / "made-1.txt").exists() and (project / "made-2.txt").exists()


async def test_an_earlier_turns_own_changes_are_reviewed_from_the_picker(tmp_path):
    project, app = project_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_session(pilot)
        await change_turn(pilot)  # turn 1: notes.txt, created.txt, delete-me.txt
        await change_turn(pilot, "/change other.txt made-2.txt")  # turn 2
        chat(pilot.app).focus_prompt()
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, RewindPicker), "the picker")
        await pilot.press("up")  # turn 1 (the newest, turn 2, is highlighted first)
        await pick(pilot, 5)  # changes of this turn
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReviewDialog), "the review")
        review = pilot.app.screen.query_one(ChangeReview)
        # Turn 1's own changes only: not turn 2's files.
        assert {f.display for f in review.files} == {"notes.txt", "created.txt", "delete-me.txt"}
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(pilot.app.screen, ReviewDialog), "closed")
    assert (project / "created.txt").exists() and (project / "other.txt").exists()
