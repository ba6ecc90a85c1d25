"""MarkdownLines: block splitting, drawing, and that streaming redraws only the open block."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from acp_tui.store.entries import AgentMessage
from acp_tui.ui.widgets.markdown_lines import FENCE_PIECE_LINES, MarkdownLines, markdown_blocks
from acp_tui.ui.widgets.transcript import Transcript
from acp_tui.ui.widgets.transcript_views import AgentMessageView

pytestmark = pytest.mark.anyio


def test_blocks_split_at_blank_lines_outside_fences() -> None:
    text = "# Title\n\nA paragraph\nthat wraps.\n\n```python\nx = 1\n\ny = 2\n```\n\n- a\n- b\n"
    assert markdown_blocks(text) == [
        "# Title",
        "A paragraph\nthat wraps.",
        "```python\nx = 1\n\ny = 2\n```",
        "- a\n- b",
    ]


def test_indented_continuation_stays_with_its_item() -> None:
    text = "1. first\n\n   more of the first\n\n2. second"
    assert markdown_blocks(text) == ["1. first\n\n   more of the first", "2. second"]


def test_unclosed_fence_runs_to_the_end_and_blank_text_has_no_blocks() -> None:
    assert markdown_blocks("intro\n\n```\ncode\n\nstill code") == [
        "intro",
        "```\ncode\n\nstill code",
    ]
    assert markdown_blocks("\n\n  \n") == []


def test_long_fence_comes_in_fenced_pieces() -> None:
    body = [f"line {n}" for n in range(FENCE_PIECE_LINES * 2 + 5)]
    blocks = markdown_blocks("~~~rust\n" + "\n".join(body) + "\n~~~")
    assert len(blocks) == 3
    for block in blocks:
        assert block.startswith("~~~rust\n") and block.endswith("~~~")
    inside = [line for block in blocks for line in block.split("\n")[1:-1]]
    assert inside == body


LINES = st.sampled_from(["", "  ", "word", "# head", "- item", "  indented", "| a | b |", "> q"])


@given(st.lists(LINES, max_size=40))
def test_blocks_keep_every_line_in_order(lines: list[str]) -> None:
    text = "\n".join(lines)
    blocks = markdown_blocks(text)
    assert all(block.strip() for block in blocks)
    joined = "\n".join(blocks)
    assert [line for line in joined.split("\n") if line.strip()] == [
        line for line in lines if line.strip()
    ]


class LinesApp(App[None]):
    def compose(self) -> ComposeResult:
        yield MarkdownLines("# Hello\n\nSome **bold** text.", classes="md")


async def show(
    pilot: Pilot[None], widget: MarkdownLines, text: str, streamed: bool, *, piece: int
) -> None:
    """``text`` in ``widget``: at once, or streamed ``piece`` characters a frame."""
    if streamed:
        widget.update("")
        for start in range(0, len(text), piece):
            widget.append(text[start : start + piece])
            await pilot.pause()
    else:
        widget.update(text)
    await pilot.pause()


def screen_lines(widget: MarkdownLines) -> list[str]:
    return [widget.render_line(y).text.rstrip() for y in range(widget.size.height)]


async def test_draws_blocks_and_streams_only_the_open_block() -> None:
    app = LinesApp()
    async with app.run_test(size=(60, 20)) as pilot:
        widget = app.query_one(MarkdownLines)
        await pilot.pause()
        assert screen_lines(widget)[:3] == ["Hello", "", "Some bold text."]
        first = widget._document.line(0)
        widget.append(" More")
        await pilot.pause()
        assert screen_lines(widget)[2] == "Some bold text. More"
        # The heading block was not drawn again: the very same line object is reused.
        assert widget._document.line(0) is first
        widget.append("\n\n```python\nprint('hi')\n```")
        await pilot.pause()
        assert widget.size.height == 5
        assert "print('hi')" in screen_lines(widget)[4]
        assert widget.is_drawn


async def test_width_change_rewraps_and_replaced_text_frees_old_blocks() -> None:
    app = LinesApp()
    async with app.run_test(size=(60, 20)) as pilot:
        widget = app.query_one(MarkdownLines)
        widget.update("word " * 30)
        await pilot.pause()
        wide = widget.size.height
        await pilot.resize_terminal(30, 20)
        await pilot.pause()
        assert widget.size.height > wide
        assert all(len(line) <= 30 for line in screen_lines(widget))
        widget.update("only this")
        await pilot.pause()
        assert screen_lines(widget) == ["only this"]
        assert widget._document.blocks == ["only this"]


async def test_theme_change_redraws_with_the_new_colours() -> None:
    app = LinesApp()
    async with app.run_test(size=(60, 20)) as pilot:
        widget = app.query_one(MarkdownLines)
        await pilot.pause()
        before = widget.render_line(0)
        app.theme = "textual-light"
        await pilot.pause()
        after = widget.render_line(0)
        assert before.text == after.text
        assert [s.style for s in before] != [s.style for s in after]


class ReplyApp(App[None]):
    def __init__(self, entry: AgentMessage) -> None:
        super().__init__()
        self.entry = entry

    def compose(self) -> ComposeResult:
        yield Transcript()

    async def on_mount(self) -> None:
        await self.query_one(Transcript).show_session("s", [self.entry])


def reply_text(n_sections: int) -> str:
    return "".join(
        f"## Section {n}\n\nSome text of section {n}, with `code`.\n\n- a\n- b\n\n"
        for n in range(n_sections)
    )


async def test_a_burst_is_all_readable_and_only_what_is_seen_is_drawn() -> None:
    """A long reply arriving at once is not folded: its first section is on screen after
    scrolling to the top, its last at the bottom; the view's height holds every block, and
    only the blocks looked at (not thousands) were drawn."""
    entry = AgentMessage(1)
    entry.append_text(reply_text(2_000))
    app = ReplyApp(entry)
    async with app.run_test(size=(80, 30)) as pilot:
        transcript = app.query_one(Transcript)
        view = app.query_one(AgentMessageView)
        live = view.query_one(".live", MarkdownLines)
        await pilot.pause()
        assert live.source == entry.text and live.is_drawn
        document = live._document
        assert len(document.blocks) == 6_000
        assert live.size.height >= 6_000 * 2  # every block has rows, with a blank between
        assert len(document._drawn) < 100
        assert any("Section 1999" in line for line in visible_text(app))
        transcript.to_top()
        await pilot.pause()
        await pilot.pause()
        assert any("Section 0" in line for line in visible_text(app))
        assert not app.query(".fold")
        # More text: drawn as it comes, still nothing folded.
        entry.append_text(reply_text(3))
        entry.version += 1
        await view.sync(entry)
        assert live.source == entry.text


def visible_text(app: App[None]) -> list[str]:
    """The rows of the screen as a person sees them."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def test_replaced_reply_starts_over_and_escape_codes_never_reach_the_screen() -> None:
    entry = AgentMessage(1)
    entry.append_text("first \x1b]52;c;ZXZpbA==\x07version")
    app = ReplyApp(entry)
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(AgentMessageView)
        live = view.query_one(".live", MarkdownLines)
        await pilot.pause()
        assert live.source == "first version"
        replaced = AgentMessage(1)
        replaced.append_text("second \x1b[2Jversion")
        replaced.version = 2
        await view.sync(replaced)
        await pilot.pause()
        assert live.source == "second version"
        assert [live.render_line(0).text.rstrip()] == ["second version"]


async def test_a_mouse_drag_selects_reply_text_and_highlights_it() -> None:
    """Dragging over a reply selects its text as drawn (no Markdown markers), highlighted."""
    app = LinesApp()
    async with app.run_test(size=(60, 20)) as pilot:
        widget = app.query_one(MarkdownLines)
        await pilot.pause()
        assert screen_lines(widget)[2] == "Some bold text."
        await pilot.mouse_down(widget, offset=(5, 2))
        await pilot.hover(widget, offset=(8, 2))
        await pilot.mouse_up(widget, offset=(8, 2))
        await pilot.pause()
        assert app.screen.get_selected_text() == "bold"
        highlight = app.screen.get_component_rich_style("screen--selection")
        chosen = widget.render_line(2).divide([5, 9])[1]
        assert all(
            segment.style and highlight.bgcolor == segment.style.bgcolor for segment in chosen
        )


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_a_long_code_block_reads_as_one_block(streamed: bool) -> None:
    """It is drawn in pieces of FENCE_PIECE_LINES lines (only the last one is drawn again as
    it grows), but one under the other: no blank row after every 40th line (fast-agent's
    `seq 1 127` showed one after 40, 80 and 120). Blocks around it keep their blank row."""
    count = FENCE_PIECE_LINES * 3 + 7
    text = "Before.\n\n```\n" + "\n".join(str(n) for n in range(1, count + 1)) + "\n```\n\nAfter."
    app = LinesApp()
    async with app.run_test(size=(40, 20)) as pilot:
        widget = app.query_one(MarkdownLines)
        await show(pilot, widget, text, streamed, piece=97)
        document = widget._document
        rows = [document.line(y).text.strip() for y in range(document.height)]
        assert rows[:2] == ["Before.", ""]
        assert rows[2 : 2 + count] == [str(n) for n in range(1, count + 1)]
        assert rows[2 + count :] == ["", "After."]
        # Heights were estimated where not drawn yet; every block is drawn now (above).
        widget.refresh(layout=True)
        await pilot.pause()
        assert widget.size.height == document.height == count + 4


HTML_REPLY = (
    "In Java use List<String> or <b>bold</b> and Map<K, V>; also a<br>b\n\n"
    "<div>\nsecret words here\n<ROLE>\n\n"
    "* a bullet with <kbd>Ctrl</kbd>"
)


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_html_in_a_reply_is_shown_as_written(streamed: bool) -> None:
    """Rich draws no HTML token: ``List<String>`` read "List", ``a<br>b`` "ab", and a block
    that starts with a tag vanished whole (OpenHands' replies, its ``<ROLE>`` sections)."""
    app = LinesApp()
    async with app.run_test(size=(100, 20)) as pilot:
        widget = app.query_one(MarkdownLines)
        await show(pilot, widget, HTML_REPLY, streamed, piece=3)
        shown = "\n".join(screen_lines(widget))
        assert "In Java use List<String> or <b>bold</b> and Map<K, V>; also a<br>b" in shown
        assert "<div>" in shown and "secret words here" in shown and "<ROLE>" in shown
        assert "a bullet with <kbd>Ctrl</kbd>" in shown
