"""Agent text is data (issue 17, item 2), through the real app on the hostile agent.

The agent puts markup that would kill the TUI (``[/]``), act (``[@click=app.quit]``) or link,
escape sequences, a bidi override and a zero-width space into every field the protocol carries:
its name, title and version, auth methods, modes, model options, session title, commands, tool
calls (title, kind, status, locations, content, diff, raw output), the plan, a thought, usage
cost currency, an unknown update, a permission request, a terminal's output, its error messages
and the stop reason. Every surface (header, selects, command palette, toasts, sidebar,
transcript, permission dialog, prompt completions, gauge, exported Markdown) shows it as
written, nothing crashes, and clicking it does nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.widgets import OptionList, Select
from textual.widgets._select import SelectOverlay
from textual.widgets._toast import Toast

from acp_tui.store.entries import Notice
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.screens.auth import AuthScreen
from acp_tui.ui.screens.chat import ChatHeader, ChatScreen
from acp_tui.ui.screens.permission import PermissionOptions, PermissionScreen
from acp_tui.ui.widgets.gauge import ContextGauge
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from acp_tui.ui.widgets.transcript_views import UnknownView
from tests.agents import hostile_agent as hostile
from tests.ui.chat_helpers import (
    answer_permission,
    chat,
    closed_line,
    send,
    wait_for,
    wait_for_session,
)
from tests.ui.test_resilience import assert_inert, hostile_app, screen_text

pytestmark = pytest.mark.anyio

SIZE = (120, 40)


def literal(tag: str) -> str:
    """The start of a hostile field as it must read: its markup shown, not applied."""
    return f"{tag}[/][@click=app.quit]Q"


def rendered(widget: Any) -> str:
    return str(widget.render())


async def click_every_action_text(pilot: Any) -> None:
    """Click wherever the screen shows an action span's text: nothing may happen."""
    app = pilot.app
    rows = screen_text(app).split("\n")
    for y, row in enumerate(rows):
        x = row.find("[@click")
        if x >= 0:
            await pilot.click(offset=(x + 3, y))
            await pilot.pause()
            assert app.is_running, f"clicking row {y} acted: {row!r}"


async def test_names_at_session_start_are_literal_in_header_selects_palette_and_toasts(
    tmp_path: Path,
) -> None:
    app = hostile_app(tmp_path, "--hostile-text")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await wait_for_session(pilot)
        mode_select = screen.query_one("#mode-select", Select)
        model_select = screen.query_one("#model-select", Select)
        await wait_for(pilot, lambda: mode_select.display and model_select.display, "the selects")
        # The header: the agent's title and version.
        agent = rendered(screen.query_one(ChatHeader).query_one("#agent"))
        assert agent.startswith(literal("title")) and " v[/][@cl" in agent
        # The selects: the current label and every option, as written ("GPT-5 [beta]" whole).
        # (The closed select holds the whole name and draws as much as its width allows.)
        for select, tag in ((mode_select, "mode1"), (model_select, "model1")):
            closed = select.query_one("SelectCurrent")
            assert literal(tag) in str(closed.label)  # type: ignore[attr-defined]
            assert closed_line(select).startswith(literal(tag)[:12])
        for select in (mode_select, model_select):  # opened as a person does: the list shows
            select.focus()
            await pilot.press("enter")
            await wait_for(pilot, lambda s=select: s.expanded, "the open list")  # type: ignore[misc]
            await pilot.press("escape")
            await wait_for(pilot, lambda s=select: not s.expanded, "the list closed")  # type: ignore[misc]
        modes = mode_select.query_one(SelectOverlay)
        models = model_select.query_one(SelectOverlay)
        mode_prompts = [str(modes.get_option_at_index(i).prompt) for i in range(modes.option_count)]
        model_prompts = [
            str(models.get_option_at_index(i).prompt) for i in range(models.option_count)
        ]
        assert any(p.startswith(literal("mode2")) for p in mode_prompts)
        assert "GPT-5 [beta]" in model_prompts
        assert_inert(app)
        # The palette: mode names and descriptions, and the model names.
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await pilot.press(*"mode")
        await wait_for(pilot, lambda: "Mode: mode2[/]" in screen_text(app), "the mode entry")
        text = screen_text(app)
        assert "Mode: " + literal("mode2") in text
        assert literal("modedesc2") in text
        assert_inert(app)  # (a click here would choose the entry: that is what it is for)
        for _ in "mode":
            await pilot.press("backspace")
        await pilot.press(*"beta")
        await wait_for(pilot, lambda: "Model: GPT-5 [beta]" in screen_text(app), "the model entry")
        for _ in "beta":
            await pilot.press("backspace")
        await pilot.press(*"mode2")
        await wait_for(pilot, lambda: "Mode: mode2[/]" in screen_text(app), "the mode entry")
        # Choosing it: the agent refuses with a hostile error, shown literally in a toast.
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen), "the palette to close")
        await wait_for(pilot, lambda: len(app.screen.query(Toast)) > 0, "the error toast")
        await wait_for(pilot, lambda: literal("error") in screen_text(app), "the error text")
        assert_inert(app)
        await click_every_action_text(pilot)
        for toast in app.screen.query(Toast):
            await pilot.click(toast)
        await pilot.pause()
        assert app.is_running


async def test_every_field_of_a_turn_is_literal_on_every_surface(tmp_path: Path) -> None:
    app = hostile_app(tmp_path, "--hostile-text")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "every-field")
        # The permission request: title, option names, the agent's own option kind, command.
        await wait_for(
            pilot, lambda: isinstance(app.screen, PermissionScreen), "the permission dialog"
        )
        dialog = app.screen
        assert isinstance(dialog, PermissionScreen)
        assert rendered(dialog.query_one("#title")).startswith(literal("permtitle"))
        assert literal("command") in rendered(dialog.query_one("#command"))
        options = dialog.query_one(PermissionOptions)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(2)]
        assert literal("opt1") in prompts[0] and literal("opt2") in prompts[1]
        assert "optkind[/]" in prompts[1]
        assert_inert(app)  # (a click on an option is an answer: that is what it is for)
        await answer_permission(pilot, "1")
        await wait_for(pilot, lambda: not screen.busy, "the turn to end", 20)
        await wait_for(
            pilot, lambda: "done with every field" in screen_text(app), "the last message"
        )
        text = screen_text(app)
        # Header and sidebar: the session title.
        assert rendered(screen.query_one(ChatHeader).query_one("#title")).startswith(
            literal("sessiontitle")
        )
        assert "sessiontitle[/][@click" in text  # the sidebar row
        # The tool call: one header line (its newlines folded), status, location, content, diff.
        tool = screen.query(ToolCallView).first()
        header = rendered(tool.query_one(".header"))
        assert "\n" not in header
        assert literal("tooltitle") in header and "second line third" in header
        assert "[status[/][@click" in header
        assert literal("location") in rendered(tool.query_one(".locations"))
        for tag in ("toolcontent", "diffpath", "old", "new", "plan", "termtitle", "message"):
            assert literal(tag) in text, tag
        assert "term[/][@click=app.quit]Q[/][link=https://evil.example]L[/link]red" in text
        # The unknown update's title (a Collapsible, which reads a str as markup).
        unknown = screen.query_one(UnknownView)
        assert literal("variant") in screen_text(app) or literal("variant") in str(
            unknown.query_one("CollapsibleTitle").render()
        )
        # The stop reason, the cost currency.
        assert "stopped: " + literal("stop") in text
        gauge = screen.query_one(ContextGauge)
        assert "cur[/][@click" in gauge.gauge_line()
        assert "cur[/][@click" in gauge.details_text()
        assert_inert(app)
        await click_every_action_text(pilot)
        # The prompt's command completions: the command name and its description.
        editor = screen.query_one("#prompt")
        editor.focus()
        await pilot.press("/")
        await wait_for(pilot, lambda: "cmd[/][@click" in screen_text(app), "the completions")
        completion = str(editor.query_one(OptionList).get_option_at_index(0).prompt)
        assert literal("cmddesc") in completion and "<cmdhint[/][@click" in completion
        assert_inert(app)
        await pilot.press("escape", "backspace")
        # The export: agent strings cannot become links, images or HTML.
        screen.tools.export_transcript()
        folder = tmp_path / ".data" / "exports"
        await wait_for(
            pilot,
            lambda: not [w for w in app.workers if w.group == "export" and not w.is_finished],
            "the export written",
        )
        exported = next(folder.glob("acp-tui-*.md")).read_text()
        escaped = "\\[/\\]\\[@click=app.quit\\]Q\\[/\\]\\[link=https\\://evil.example\\]"
        lines = exported.splitlines()
        assert lines[0] == "# sessiontitle" + escaped + "L\\[/link\\]\\[b\\]Rz!"
        assert any(line.startswith("**Tool** kind" + escaped[:24]) for line in lines)
        for start in ("- [ ] plan", "_unknown update: variant"):
            assert any(line.startswith(start + escaped) for line in lines), start
        assert any(line.startswith("**Tool** execute: termtitle" + escaped) for line in lines)
        # Every code block is closed where it should be (none broken out of).
        assert sum(1 for line in lines if line.startswith("```")) % 2 == 0
        assert "\x1b" not in exported and "\u202e" not in exported
        assert app.is_running


async def test_an_error_message_from_a_failing_turn_is_literal(tmp_path: Path) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "fail-turn")
        state = screen.store.get(screen.session_id)
        await wait_for(
            pilot,
            lambda: any(isinstance(e, Notice) for e in state.transcript) and not screen.busy,
            "the error notice",
        )
        await wait_for(pilot, lambda: literal("turnerror") in screen_text(app), "the error")
        assert_inert(app)
        await click_every_action_text(pilot)
        assert app.is_running


async def test_auth_method_names_are_literal(tmp_path: Path) -> None:
    app = hostile_app(tmp_path, "--hostile-text", "--auth-required")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        # The session, and so the sign-in, comes with the first message (or Ctrl+N).
        await wait_for(pilot, lambda: chat(app).agent_alive, "the agent")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: isinstance(app.screen, AuthScreen), "the auth picker")
        await pilot.pause()
        text = screen_text(app)
        assert literal("title") in text  # "<agent> needs you to sign in"
        assert literal("auth") in text and literal("authdesc") in text
        assert_inert(app)  # (a click on a method chooses it: that is what it is for)


def test_a_toast_never_reads_its_message_as_markup(monkeypatch: pytest.MonkeyPatch) -> None:
    """AcpTuiApp.notify: whatever a caller passes, the message is literal text."""
    from textual.app import App

    from acp_tui.session.launch.settings import AppSettings

    shown: list[dict[str, Any]] = []
    monkeypatch.setattr(
        App, "notify", lambda self, message, **kw: shown.append({"m": message, **kw})
    )
    app = AcpTuiApp(AppSettings())
    app.notify(hostile.hostile("toast"), title="t[/]\nx", markup=True)
    (toast,) = shown
    assert toast["markup"] is False
    assert toast["m"].startswith(literal("toast"))
    assert "\x1b" not in toast["m"] and "\u202e" not in toast["m"]
    assert toast["title"] == "t[/] x"


async def test_ctrl_c_says_how_to_quit_in_plain_words(tmp_path: Path) -> None:
    """Textual's own hint is markup ("[b]ctrl+q[/b]"); toasts here are literal, so ours is
    plain words."""
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for_session(pilot)
        app.action_help_quit()
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert messages == ["Press ctrl+q to quit the app"]


async def test_the_help_line_of_an_agent_worded_palette_entry_is_drawn_as_textuals_help(
    tmp_path: Path,
) -> None:
    """A mode's description under its name in the palette is muted and not bold, as the help
    of Textual's own commands is (it once inherited the entry's bold, in the text colour)."""
    from textual.command import CommandList

    from tests.ui.chat_helpers import demo_app

    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_session(pilot)
        await pilot.press("ctrl+p", *"mode: ask")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        commands = app.screen.query_one(CommandList)
        await wait_for(pilot, lambda: commands.option_count > 0, "the entries")
        await pilot.pause(0.2)

        def styles_of(words: str) -> list[Any]:
            found = []
            for y in range(commands.size.height):
                for segment in commands.render_line(y):
                    if words in segment.text and segment.style is not None:
                        found.append(segment.style)
            return found

        helps = styles_of("changes still need")
        assert helps
        assert not any(style.bold for style in helps)
