"""Big replies arriving fast are fully readable in the transcript: nothing folded, the first
words reachable by scrolling, the view still while rows above it are drawn."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from acp_tui.store.entries import AgentMessage
from acp_tui.ui.widgets.markdown_lines import MarkdownLines
from acp_tui.ui.widgets.transcript import Transcript
from tests.ui.chat_helpers import wait_for

pytestmark = pytest.mark.anyio

WORDS = "the agent reads the parser and finds two problems in the greeting code".split()


def paragraph(n: int) -> str:
    return " ".join(WORDS[(n + k) % len(WORDS)] for k in range(60)) + f" (paragraph {n})."


def reply(count: int) -> str:
    return (
        "FIRSTWORDS open it.\n\n"
        + "".join(paragraph(n) + "\n\n" for n in range(count))
        + "LASTWORDS"
    )


class TranscriptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()


def rows(app: App[None]) -> list[str]:
    """The screen as a person sees it, row by row."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def on_screen(app: App[None], word: str) -> bool:
    return any(word in row for row in rows(app))


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_a_burst_is_readable_from_its_first_word_with_the_keys(size: tuple[int, int]) -> None:
    entry = AgentMessage(1)
    entry.append_text(reply(2_000))
    app = TranscriptApp()
    async with app.run_test(size=size) as pilot:
        app.animation_level = "full"  # animations on, as a person has them
        transcript = app.query_one(Transcript)
        await transcript.show_session("s", [entry])
        await wait_for(pilot, lambda: on_screen(app, "LASTWORDS"), "the last words")
        assert not any("folded" in row for row in rows(app))
        transcript.focus()
        await pilot.press("home")
        await wait_for(pilot, lambda: on_screen(app, "FIRSTWORDS"), "the first words")
        assert not transcript.following
        await pilot.press("end")
        await wait_for(pilot, lambda: on_screen(app, "LASTWORDS"), "the last words again")
        assert transcript.following
        # A scroll animated on the way up (a scroll_to with animation) also ends at the top.
        transcript.scroll_home(animate=True, duration=0.3)
        await wait_for(pilot, lambda: on_screen(app, "FIRSTWORDS"), "the first words again")


async def test_home_in_a_huge_reply_is_at_once() -> None:
    """Home goes to the top at once (no second-long animation through megabytes of rows)."""
    entry = AgentMessage(1)
    entry.append_text(reply(4_000))
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        app.animation_level = "full"
        transcript = app.query_one(Transcript)
        await transcript.show_session("s", [entry])
        await wait_for(pilot, lambda: on_screen(app, "LASTWORDS"), "the last words")
        transcript.focus()
        await pilot.press("home")
        assert transcript.scroll_y == 0
        assert not app.animator.is_being_animated(transcript, "scroll_y")


async def test_paging_up_through_undrawn_rows_shows_the_reply_in_order() -> None:
    """Rows above the view are drawn (their heights exact) as they scroll in: what shows is
    the reply in order, and it stays put once drawn (no layout loop)."""
    entry = AgentMessage(1)
    entry.append_text(reply(2_000))
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        await transcript.show_session("s", [entry])
        await wait_for(pilot, lambda: on_screen(app, "LASTWORDS"), "the last words")
        for _ in range(6):
            transcript.page(-1)
            await pilot.pause()
        await pilot.pause()
        seen = rows(app)
        for _ in range(3):
            await pilot.pause()
        assert rows(app) == seen
        # What is shown is the reply as Rich draws it (estimates never show as text).
        live = app.query_one(MarkdownLines)
        numbers = [
            int(row.split("(paragraph ")[1].split(")")[0]) for row in seen if "(paragraph " in row
        ]
        assert numbers == sorted(numbers) and numbers and numbers[-1] < 2_000
        assert live.is_drawn


async def test_a_huge_reply_streamed_in_slices_draws_its_end_without_drawing_all() -> None:
    """One chunk of megabytes: taken in a slice at a time, laid out, and only the blocks on
    screen (and the last ones) drawn."""
    entry = AgentMessage(1)
    entry.append_text(reply(12_000))  # about 5 MB
    app = TranscriptApp()
    async with app.run_test(size=(120, 40)) as pilot:
        transcript = app.query_one(Transcript)
        await transcript.show_session("s", [entry])
        await wait_for(pilot, lambda: on_screen(app, "LASTWORDS"), "the last words")
        live = app.query_one(MarkdownLines)
        assert live.source == entry.text and live.is_drawn
        assert len(live._document._drawn) < 200
        transcript.to_top()
        await wait_for(pilot, lambda: on_screen(app, "FIRSTWORDS"), "the first words")


async def test_a_huge_reply_is_sanitised_slice_by_slice_like_the_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Sanitised a slice at a time (the known-plain start never scanned again): the result is
    the sanitiser's on the whole text, also with an escape sequence across a slice boundary,
    one arriving later, and a reply replaced by a shorter one.

    The slice is made small (the real one is 256,000 characters): the same boundaries with a
    few KB of text to draw instead of 800 KB (14 CPU s)."""
    from acp_tui.text.safety import sanitize_terminal_text
    from acp_tui.ui.widgets import transcript_views
    from acp_tui.ui.widgets.transcript_views import AgentMessageView

    slice_size = 1_000
    monkeypatch.setattr(transcript_views, "SANITIZE_SLICE", slice_size)
    first = "x" * (slice_size - 3) + "\x1b]52;c;ZXZpbA==\x07 after " + "y " * 100
    grown = first + "more \x1b[2J text " * 50 + "z" * (2 * slice_size)
    entry = AgentMessage(1)
    entry.append_text(first)
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        await transcript.show_session("s", [entry])
        await pilot.pause()
        view = app.query_one(AgentMessageView)
        live = view.query_one(".live", MarkdownLines)
        assert live.source == sanitize_terminal_text(first) and "\x1b" not in live.source
        # Joiners kept inside writing, one across a slice boundary (issue 36: invisible
        # characters go as in titles; a joiner between two non-ASCII characters stays).
        joined = "w" * (slice_size - 2) + "👨\u200d👩\u200d👧 f\u200bamily " + "ب\u200cی " * 600
        for text in (grown, "short \x9b31m reply", joined, joined + "\u200d👧 end"):
            replaced = AgentMessage(1)
            replaced.append_text(text)
            replaced.version = entry.version + 1
            entry = replaced
            await view.sync(entry)
            assert live.source == sanitize_terminal_text(text)
            assert not any(ch in live.source for ch in "\x1b\x9b\x07\u200b")
        assert "👨\u200d👩\u200d👧" in live.source and "ب\u200cی" in live.source
