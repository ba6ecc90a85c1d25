"""Review before the write lands, in the TUI with the demo agent (issue 40): Ctrl+P → Review
writes turns it on (the header says so); the demo agent's /rewrite opens the review, armed
like every dialog (typing goes to the prompt); a hunk left out with the keys (move to the
hunks, down, Space) and "y" writes exactly the kept hunks; Escape rejects the whole write;
the transcript and the agent say what happened."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Label

from acp_tui.store.entries import AgentMessage, Notice
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.rewind import ReviewDialog
from acp_tui.ui.widgets.change_review import ChangeReview
from tests.ui.chat_helpers import (
    armed_dialog,
    demo_app,
    run_palette_command,
    send,
    wait_for,
    wait_for_session,
)

pytestmark = pytest.mark.anyio

LINES = "".join(f"line {number}\n" for number in range(1, 31))


def chat_of(app):
    """The chat screen, under whatever dialog is on top."""
    return next(s for s in app.screen_stack if isinstance(s, ChatScreen))


def agent_said(app) -> str:
    screen = chat_of(app)
    state = screen.store.get(screen.session_id)
    return "".join(e.text for e in state.transcript if isinstance(e, AgentMessage))


def notices_text(app) -> str:
    screen = chat_of(app)
    state = screen.store.get(screen.session_id)
    return "\n".join(e.title for e in state.transcript if isinstance(e, Notice))


async def review_on(pilot) -> None:
    await wait_for_session(pilot)
    header = pilot.app.screen.query_one("#reviews", Label)
    assert not header.has_class("-on")
    await run_palette_command(pilot, "Review writes: off")
    await wait_for(pilot, lambda: header.has_class("-on"), "the header's mark")


async def test_a_hunk_left_out_is_not_written_and_the_agent_is_told(tmp_path: Path) -> None:
    target = tmp_path / "review.txt"
    target.write_text(LINES)
    app = demo_app(tmp_path, tmp_path / "demo-state")
    async with app.run_test(size=(120, 40)) as pilot:
        await review_on(pilot)
        await send(pilot, "/rewrite review.txt")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewDialog), "the review")
        dialog = app.screen
        await pilot.press("x")  # typing (armed or not): for the prompt, not the review
        await armed_dialog(pilot)
        assert chat_of(app).widgets.prompt.text == "x"
        review = dialog.query_one(ChangeReview)
        assert review.choices() == [None]  # all kept to begin with
        await pilot.press("enter", "down")  # to the hunks, the second one
        await pilot.press("space")
        await wait_for(pilot, lambda: review.choices() == [frozenset({0, 2})], "hunk 2 out")
        await pilot.press("y")
        await wait_for(pilot, lambda: "rejected hunks 2 of 3" in agent_said(app), "the answer")
        text = target.read_text()
        assert "line 1 (revised" in text and "line 21 (revised" in text
        assert "line 11 (revised" not in text
        assert "Write kept in part (2 of 3 hunks): review.txt" in notices_text(app)


async def test_escape_rejects_the_whole_write(tmp_path: Path) -> None:
    target = tmp_path / "review.txt"
    target.write_text(LINES)
    app = demo_app(tmp_path, tmp_path / "demo-state")
    async with app.run_test(size=(80, 24)) as pilot:
        await review_on(pilot)
        await send(pilot, "/rewrite review.txt")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewDialog), "the review")
        await pilot.press("escape")
        await wait_for(pilot, lambda: "The user rejected this write" in agent_said(app), "no")
        assert target.read_text() == LINES
        # Off again: the next write lands at once.
        await run_palette_command(pilot, "Review writes: on")
        await send(pilot, "/rewrite review.txt")
        await wait_for(pilot, lambda: "as I sent it" in agent_said(app), "the write")
        assert "revised by the demo agent" in target.read_text()


async def test_writes_queue_k_of_n_and_cancelling_the_turn_rejects_them(tmp_path: Path) -> None:
    import asyncio

    from textual.containers import Vertical

    from acp_tui.services.hunks import FileChange
    from acp_tui.session.asking.write_reviews import PendingWrite

    target = tmp_path / "review.txt"
    target.write_text(LINES)
    app = demo_app(tmp_path, tmp_path / "demo-state")
    async with app.run_test(size=(120, 40)) as pilot:
        await review_on(pilot)
        await send(pilot, "/rewrite review.txt")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewDialog), "the review")
        dialog = app.screen
        screen = chat_of(app)
        session_id = screen.session_id
        # A second write of the same turn, waiting behind the first.
        other = PendingWrite(
            session_id,
            str(tmp_path / "other.txt"),
            "other.txt",
            FileChange.compute("a\n", "b\n"),
        )
        waiting = asyncio.create_task(screen.parts.write_reviews.review(other))
        frame = dialog.query_one("ReviewDialog > Vertical", Vertical)
        await wait_for(pilot, lambda: frame.border_subtitle == "1 of 2", "1 of 2")
        screen.model.cancel_turn_of(session_id)
        await wait_for(pilot, lambda: waiting.done(), "the second rejected")
        assert waiting.result() == frozenset()
        await wait_for(pilot, lambda: "The user rejected this write" in agent_said(app), "no")
        assert target.read_text() == LINES
        assert not isinstance(app.screen, ReviewDialog)


def test_snapshot_write_review(snap_compare) -> None:
    """The review of a write at 80x24: the origin line, the sentence saying what is asked
    (whole, on one line),
    the file list ("■ M notes.txt +2 -2"), the diff with each hunk's "■ kept" header (the
    second "□ left out", struck through and dimmed), Cancel and Write, and the hint (Space
    keep/reject · → hunks · e edit hunk · a all · n none · y write · Esc reject)."""
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    from acp_tui.services.hunks import FileChange
    from acp_tui.session.asking.write_reviews import PendingWrite
    from acp_tui.ui.screens.armed import DialogOrigin
    from acp_tui.ui.screens.chat.write_review import WriteReviewDialog

    old = "".join(f"line {n}\n" for n in range(1, 21))
    new = old.replace("line 2\n", "line two\n").replace("line 15\n", "line fifteen\n")
    change = FileChange.compute(old, new)

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("the chat would be here")

        def on_mount(self) -> None:
            self.theme = "textual-dark"
            self.push_screen(
                WriteReviewDialog(
                    PendingWrite("s", "/p/notes.txt", "notes.txt", change),
                    "Keep or reject each change (2 hunks): only what you keep is written",
                    DialogOrigin("demo agent", "Fix the notes"),
                    arm_delay=0,
                )
            )

    async def left_out(pilot) -> None:
        await pilot.pause()
        pilot.app.screen.query_one(ChangeReview).toggle_hunk(0, 1)
        await pilot.pause()

    assert snap_compare(Host(), terminal_size=(80, 24), run_before=left_out)


async def test_a_hunk_edited_is_written_as_edited_and_the_agent_is_told(tmp_path: Path) -> None:
    target = tmp_path / "review.txt"
    target.write_text(LINES)
    app = demo_app(tmp_path, tmp_path / "demo-state")
    async with app.run_test(size=(120, 40)) as pilot:
        await review_on(pilot)
        await send(pilot, "/rewrite review.txt")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewDialog), "the review")
        dialog = app.screen
        dialog.edit_text = lambda text: text.replace(
            "line 11 (revised by the demo agent)", "line eleven, by me"
        )
        await armed_dialog(pilot)
        await pilot.press("enter", "down")  # the second hunk
        await pilot.press("e")
        await wait_for(pilot, lambda: dialog.edited, "the edit")
        await pilot.press("y")
        await wait_for(pilot, lambda: "The user edited this write" in agent_said(app), "told")
        text = target.read_text()
        assert "line eleven, by me\n" in text
        assert "line 1 (revised" in text and "line 21 (revised" in text
        assert "+line eleven, by me" in agent_said(app)


async def test_a_write_of_a_session_not_on_screen_waits_for_it(tmp_path: Path) -> None:
    """Like a permission request: the review shows over its own session only, and does once
    the person goes there."""
    from tests.ui.test_parallel_sessions import new_session_beside

    target = tmp_path / "review.txt"
    target.write_text(LINES)
    app = demo_app(tmp_path, tmp_path / "demo-state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        screen.parts.write_reviews.mode = "ask"  # as review_writes = "ask" does
        first = screen.session_id
        assert first is not None
        # Long enough to still run once the switch is done on a loaded machine (3 s did not).
        await send(pilot, "/slow 30")
        await wait_for(pilot, lambda: screen.busy, "the slow turn")
        await new_session_beside(pilot, screen, first)
        await send(pilot, "/rewrite review.txt")  # in session 2: shown at once
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewDialog), "its review")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ReviewDialog), "closed")
        # A write of session 1, behind: it waits.
        import asyncio

        from acp_tui.services.hunks import FileChange
        from acp_tui.session.asking.write_reviews import PendingWrite

        waiting = asyncio.create_task(
            screen.parts.write_reviews.review(
                PendingWrite(first, str(target), "review.txt", FileChange.compute("a\n", "b\n"))
            )
        )
        await pilot.pause(0.5)
        assert not isinstance(app.screen, ReviewDialog) and not waiting.done()
        screen.open_session(first)
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewDialog), "shown there")
        await pilot.press("escape")
        await wait_for(pilot, lambda: waiting.done(), "answered")
