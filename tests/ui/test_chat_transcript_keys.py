"""The transcript from the keyboard, with the focus in the prompt: PgUp/PgDn, Ctrl+Home/End,
jump to the bottom on send, the "new output" marker, and the latest thought / tool output
expanded and collapsed by key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Collapsible

from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.widgets.prompt import PromptTextArea
from acp_tui.ui.widgets.status_line import NewOutputMarker, StatusLine
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from acp_tui.ui.widgets.transcript import Transcript
from acp_tui.ui.widgets.transcript_views import ThoughtView
from tests.ui.chat_helpers import demo_app, send, wait_for, wait_for_session

pytestmark = pytest.mark.anyio

ELAPSED = re.compile(r"working… (\d+) s \(Esc to cancel\)")
SIZE = (100, 30)


def demo(tmp_path: Path, **overrides: object) -> AcpTuiApp:
    return demo_app(tmp_path, tmp_path / "state", permission_policy="yolo", **overrides)


async def long_transcript(pilot: Pilot[int]) -> tuple[ChatScreen, Transcript]:
    """A session with many screens of output, the prompt focused."""
    screen = await wait_for_session(pilot)
    transcript = screen.query_one(Transcript)
    await send(pilot, "/flood 150")
    await wait_for(pilot, lambda: not screen.busy, "the flood to end", limit=20)
    await wait_for(
        pilot, lambda: transcript.max_scroll_y > 3 * transcript.size.height, "a long transcript"
    )
    await wait_for(pilot, lambda: transcript.scroll_y == transcript.max_scroll_y, "the bottom")
    assert isinstance(screen.focused, PromptTextArea)
    return screen, transcript


async def test_page_keys_from_the_prompt_scroll_the_transcript(tmp_path: Path) -> None:
    app = demo(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen, transcript = await long_transcript(pilot)
        bottom = transcript.max_scroll_y
        await pilot.press("pageup")
        first = transcript.scroll_y
        assert first < bottom
        await pilot.press("pageup")
        assert transcript.scroll_y < first
        assert not transcript.following
        await pilot.press("pagedown")
        assert transcript.scroll_y == first
        await pilot.press("ctrl+home")
        assert transcript.scroll_y == 0
        await pilot.press("ctrl+end")
        await wait_for(pilot, lambda: transcript.scroll_y == transcript.max_scroll_y, "bottom")
        assert transcript.following
        # All the while, the prompt kept the focus and its text.
        assert isinstance(screen.focused, PromptTextArea)


async def test_sending_jumps_to_the_bottom(tmp_path: Path) -> None:
    app = demo(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen, transcript = await long_transcript(pilot)
        await pilot.press("ctrl+home")
        assert not transcript.following
        await send(pilot, "are you there?")
        await wait_for(pilot, lambda: not screen.busy, "the reply")
        await wait_for(pilot, lambda: transcript.scroll_y == transcript.max_scroll_y, "bottom")
        assert transcript.following


async def test_new_output_below_shows_a_marker_that_jumps_down(tmp_path: Path) -> None:
    app = demo(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen, transcript = await long_transcript(pilot)
        status = screen.query_one(StatusLine)
        marker = screen.query_one(NewOutputMarker)
        await send(pilot, "/slow 20")
        await wait_for(pilot, lambda: "working…" in str(status.query_one("#status").render()), "")
        assert not status.new_output_shown  # following: nothing is missed
        await pilot.press("pageup")
        await wait_for(pilot, lambda: status.new_output_shown, "the new-output marker")
        assert marker.region.height == 1 and "new output" in str(marker.render())
        # A click on it jumps down, and it goes.
        await pilot.click(marker)
        await wait_for(pilot, lambda: transcript.following, "following the bottom again")
        await wait_for(pilot, lambda: not status.new_output_shown, "the marker to go")
        # Again, with Ctrl+End.
        await pilot.press("pageup")
        await wait_for(pilot, lambda: status.new_output_shown, "the marker again")
        await pilot.press("ctrl+end")
        await wait_for(pilot, lambda: not status.new_output_shown, "the marker to go again")
        assert transcript.following
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, "the cancel")


async def test_the_running_turn_shows_its_elapsed_time(tmp_path: Path) -> None:
    app = demo(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        status = screen.query_one("#status")
        await send(pilot, "/slow 20")
        await wait_for(
            pilot, lambda: ELAPSED.search(str(status.render())) is not None, "working… N s"
        )
        # It counts up while the turn runs (a loaded machine may skip a second between ticks).
        await wait_for(
            pilot,
            lambda: (
                (found := ELAPSED.search(str(status.render()))) is not None
                and int(found.group(1)) >= 2
            ),
            "two seconds or more on the status line",
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, "the cancel")


async def test_ctrl_t_expands_and_collapses_the_latest_thought(tmp_path: Path) -> None:
    app = demo(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        for _ in range(2):
            await send(pilot, "/think")
            await wait_for(pilot, lambda: not screen.busy, "the turn")
        await wait_for(pilot, lambda: len(screen.query(ThoughtView)) == 2, "two thoughts")
        first, latest = screen.query(ThoughtView)
        assert not latest.expanded
        await pilot.press("ctrl+t")
        assert latest.expanded and not first.expanded
        assert latest.query_one(Collapsible).collapsed is False
        await pilot.press("ctrl+t")
        assert not latest.expanded
        # Hidden thoughts (palette: Toggle thoughts) come back when one is asked for.
        screen.action_toggle_thoughts()
        await pilot.pause()
        assert latest.display is False
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert latest.display is True and latest.expanded


async def test_ctrl_o_expands_and_collapses_the_latest_tool_output(tmp_path: Path) -> None:
    app = demo(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/run seq 1 40")
        await wait_for(pilot, lambda: not screen.busy and screen.query(ToolCallView), "the call")
        view = screen.query(ToolCallView).last()
        terminal = view.query_one(".terminal")
        await wait_for(pilot, lambda: "40" in str(terminal.render()), "the command's output")
        folded_height = terminal.region.height
        assert folded_height <= 20  # long output is cut to a window
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: terminal.region.height > folded_height, "all the output")
        assert view.expanded and view.query_one(Collapsible).collapsed is False
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: terminal.region.height == folded_height, "folded again")
        assert not view.expanded


@pytest.mark.parametrize(
    ("focus_transcript", "keys"),
    [
        (False, ["pagedown"]),
        (True, ["pagedown"]),
        (True, ["down"]),
        (True, ["end", "pagedown", "down"]),
    ],
    ids=["pgdn-from-the-prompt", "pgdn-in-the-transcript", "down", "end-then-more"],
)
async def test_a_key_down_at_the_bottom_keeps_following_the_output(
    tmp_path: Path, focus_transcript: bool, keys: list[str]
) -> None:
    """Textual's scroll_to lets go of the bottom, and takes it again only when the position
    changes to the end: PgDn pressed once the end was reached (paging down in a hurry) stopped
    the view following, and the output that came next went by under a "new output" marker."""
    app = demo(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen, transcript = await long_transcript(pilot)
        status = screen.query_one(StatusLine)
        await send(pilot, "/slow 3")  # output for a few seconds
        if focus_transcript:
            transcript.focus()
            await pilot.pause()
        # Up a page, then down past the end: following again, whatever the keys did.
        await pilot.press("pageup")
        assert not transcript.following
        await pilot.press("pagedown", "pagedown", *keys)
        assert transcript.following
        # At the end already: the keys again; the output still coming is followed.
        await pilot.press(*keys)
        assert transcript.following
        await wait_for(pilot, lambda: not screen.busy, "the reply", limit=20)
        await wait_for(pilot, lambda: transcript.scroll_y == transcript.max_scroll_y, "the end")
        assert transcript.following
        assert not status.new_output_shown
