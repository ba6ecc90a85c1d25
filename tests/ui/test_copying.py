"""Copying out of the transcript gives what the agent sent (issue 38): Ctrl+Y the last reply
(the prompt's text area took it as its redo), a click on a code block (or Alt+Y for the last
one) its code, and a mouse selection the reply's text, not its wrapped drawing with the bars
of a quote."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.store.entries import AgentMessage
from acp_tui.ui.keymap import _binding_owners
from acp_tui.ui.widgets.markdown_lines import MarkdownLines
from acp_tui.ui.widgets.transcript_views import AgentMessageView
from tests.ui.chat_helpers import (
    chat,
    demo_app,
    record_notifications,
    send,
    settle,
    wait_for,
    wait_for_session,
)

pytestmark = pytest.mark.anyio

SIZE = (80, 24)
LONG_WORDS = " ".join(f"word{n:02d}" for n in range(40))
LONG_LINE = "x" * 30 + "-" + "y" * 70


def last_reply(app) -> str:  # type: ignore[no-untyped-def]
    state = chat(app).store.get(chat(app).session_id or "")
    assert state is not None
    return next(e.text for e in reversed(state.transcript) if isinstance(e, AgentMessage))


async def turn(pilot, text: str) -> str:  # type: ignore[no-untyped-def]
    screen = chat(pilot.app)
    before = len(screen.store.get(screen.session_id or "").transcript)  # type: ignore[union-attr]
    await send(pilot, text)
    await wait_for(
        pilot,
        lambda: (
            (s := screen.store.get(screen.session_id or "")) is not None
            and len(s.transcript) > before
            and s.stop_reason is not None
            and not screen.busy
        ),
        "the reply",
    )
    await settle(pilot)
    return last_reply(pilot.app)


def reply_lines(app) -> MarkdownLines:  # type: ignore[no-untyped-def]
    return list(chat(app).query(AgentMessageView))[-1].query_one(MarkdownLines)


def rows_of(lines: MarkdownLines) -> list[str]:
    return [lines.render_line(y).text for y in range(lines.size.height)]


async def test_ctrl_y_copies_the_last_reply_from_the_prompt(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_session(pilot)
        reply = await turn(pilot, "hello there")
        prompt = chat(app).query_one("#prompt")
        area = prompt._area  # type: ignore[attr-defined]
        area.focus()
        await pilot.press(*"draft")
        await pilot.press("ctrl+z")  # something for the text area to redo
        typed = area.text
        toasts = record_notifications(app)
        await pilot.press("ctrl+y")
        await wait_for(pilot, lambda: app.clipboard == reply, "the reply on the clipboard")
        assert area.text == typed  # not redone
        assert any("Copied the last reply" in toast for toast in toasts), toasts


async def test_a_selection_over_a_wrapped_quote_is_the_text_sent(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_session(pilot)
        reply = await turn(pilot, LONG_WORDS)
        lines = reply_lines(app)
        rows = rows_of(lines)
        quoted = [y for y, row in enumerate(rows) if row.startswith("▌")]
        assert len(quoted) > 1, f"the quote must wrap for this test: {rows}"
        chat(app).query_one("#transcript").scroll_to_widget(lines, animate=False)
        await pilot.pause()
        last = quoted[-1]
        await pilot.mouse_down(lines, offset=(0, quoted[0]))
        await pilot.hover(lines, offset=(len(rows[last].rstrip()), last))
        await pilot.mouse_up(lines, offset=(len(rows[last].rstrip()), last))
        await pilot.pause()
        selected = app.screen.get_selected_text()
        assert selected == f"> {LONG_WORDS}"
        assert selected in reply
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: app.clipboard == selected, "the selection copied")


async def test_a_click_on_a_code_block_copies_its_code(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state", permission_policy="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_session(pilot)
        await turn(pilot, f"/run echo {LONG_LINE}")
        lines = reply_lines(app)
        rows = rows_of(lines)
        code_rows = [y for y, row in enumerate(rows) if "xxxx" in row or "yyyy" in row]
        assert len(code_rows) > 1, f"the code line must wrap for this test: {rows}"
        chat(app).query_one("#transcript").scroll_to_widget(lines, animate=False)
        await pilot.pause()
        toasts = record_notifications(app)
        await pilot.click(lines, offset=(3, code_rows[-1]))
        await wait_for(pilot, lambda: app.clipboard == LONG_LINE, "the code copied")
        assert any("Copied the code block (1 line)" in toast for toast in toasts), toasts
        # The key copies the last code block as well.
        app.copy_to_clipboard("something else")
        await pilot.press("alt+y")
        await wait_for(pilot, lambda: app.clipboard == LONG_LINE, "the code copied by key")
        # A click on its text is no copy.
        app.copy_to_clipboard("unchanged")
        text_row = next(y for y, row in enumerate(rows) if "printed" in row or "echo" in row)
        await pilot.click(lines, offset=(2, text_row))
        await pilot.pause()
        assert app.clipboard == "unchanged"


def test_no_class_of_the_ui_loses_textuals_copy_of_a_selection() -> None:
    """A key bound in a class replaces every binding of that key it inherits: a Ctrl+C bound
    on a screen (or a text field) without Textual's copy bound again leaves a selection
    uncopyable. Every class of the UI still copies on the keys its Textual base copies on."""
    copies = {"copy_text", "copy"}

    def actions(cls: type, key: str) -> set[str]:
        bindings = cls._merged_bindings.key_to_bindings.get(key, [])  # type: ignore[attr-defined]
        return {binding.action.removeprefix("screen.") for binding in bindings}

    checked = 0
    for cls in _binding_owners():
        textual_base = next(base for base in cls.__mro__ if base.__module__.startswith("textual."))
        for key in textual_base._merged_bindings.key_to_bindings:  # type: ignore[attr-defined]
            wanted = actions(textual_base, key) & copies
            if wanted:
                checked += 1
                assert wanted <= actions(cls, key), f"{cls.__qualname__}: {key} no longer copies"
    assert checked > 0
