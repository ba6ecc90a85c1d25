"""What a newcomer trips over in the first hour (issue 38, items 4, 5, 6, 7, 9 and 11), in the
real app on the demo agent: the welcome, acp-tui's own commands, the key sheet, the queue in
Tab's reach and a focus that shows, Ctrl+B by what is seen, a sidebar that gives way, one toast
for the config's problems, and archiving the session on screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.color import Color
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.store.entries import AgentMessage, UserMessage
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.help import HelpScreen
from acp_tui.ui.screens.inspector import TextLogScreen
from acp_tui.ui.widgets.prompt import PromptEditor
from acp_tui.ui.widgets.sidebar import SessionsSidebar
from acp_tui.ui.widgets.welcome import Welcome
from tests.ui.chat_helpers import (
    demo_app,
    record_notifications,
    run_palette_command,
    send,
    settle,
    wait_for,
    wait_for_ready,
    wait_for_session,
)

pytestmark = pytest.mark.anyio


def prompt_of(screen: ChatScreen) -> PromptEditor:
    return screen.query_one(PromptEditor)


def options_shown(editor: PromptEditor) -> list[str]:
    lst = editor._list
    return [str(lst.get_option_at_index(i).prompt) for i in range(lst.option_count)]


def user_texts(screen: ChatScreen) -> list[str]:
    state = screen.model.state()
    return [e.text for e in state.transcript if isinstance(e, UserMessage)] if state else []


async def type_text(pilot: Pilot[None], text: str) -> None:
    names = {"/": "slash", " ": "space", "?": "question_mark"}
    await pilot.press(*(names.get(char, char) for char in text))
    await pilot.pause()


# -- item 4: the first screen --------------------------------------------------------------


async def test_the_first_screen_welcomes_and_gives_way_to_the_conversation(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_ready(pilot)
        welcome = screen.query_one(Welcome)
        await wait_for(pilot, lambda: welcome.has_class("-visible"), "the welcome")
        said = welcome.text().plain
        assert "demo agent" in said and tmp_path.name in said
        assert said.count("•") == 3 and "F1 or ?" in said
        # The / list at once, before any session: acp-tui's own commands.
        editor = prompt_of(screen)
        editor.focus()
        await type_text(pilot, "/")
        await wait_for(pilot, lambda: editor.completion_open, "the / list")
        assert any(row.startswith("/new") and "acp-tui" in row for row in options_shown(editor))
        await pilot.press("escape", "backspace")
        await send(pilot, "hello")
        await wait_for(pilot, lambda: not welcome.has_class("-visible"), "the welcome to go")
        # A new session has nothing to show: welcomed again.
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: welcome.has_class("-visible"), "the welcome again")


async def test_the_agents_commands_remembered_show_before_its_first_session(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await wait_for(pilot, lambda: len(prompt_of(screen).commands) > 5, "the agent's commands")
        await settle(pilot)
    again = demo_app(tmp_path, tmp_path / "state")
    async with again.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_ready(pilot)
        # Before any message (the demo agent's session may have opened early by now: the
        # remembered commands show until it has; an agent that cannot close a session is
        # shown them until its first message, see test_lifecycle).
        shown = screen.store.get(screen.session_id) if screen.session_id else None
        assert shown is None or shown.draft
        editor = prompt_of(screen)
        editor.focus()
        await type_text(pilot, "/pla")
        await wait_for(pilot, lambda: editor.completion_open, "the / list")
        assert options_shown(editor)[0].startswith("/plan")


# -- item 5: acp-tui's own commands ------------------------------------------------------------


async def test_client_commands_run_here_and_the_agents_win_their_names(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_ready(pilot)
        await send(pilot, "/new")  # acp-tui's: a new session, nothing sent
        await wait_for(pilot, lambda: screen.session_id is not None, "the new session")
        session_id = screen.session_id
        await wait_for(pilot, lambda: len(prompt_of(screen).commands) > 5, "the agent's commands")
        assert user_texts(screen) == []
        # The demo agent has a /help of its own: /help is its, //help acp-tui's.
        editor = prompt_of(screen)
        editor.focus()
        await type_text(pilot, "/hel")
        await wait_for(pilot, lambda: editor.completion_open, "the / list")
        rows = options_shown(editor)
        assert rows[0].startswith("/help ") and "acp-tui" not in rows[0]
        assert any(row.startswith("//help") and "acp-tui" in row for row in rows)
        editor.set_draft("")
        await send(pilot, "//help")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "acp-tui's help")
        assert "/model" in app.screen.text() and "/plan" in app.screen.text()
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "the help to close")
        await send(pilot, "/help")
        await wait_for(pilot, lambda: user_texts(screen) == ["/help"], "the agent's /help sent")
        assert screen.session_id == session_id


async def test_model_and_mode_by_name_and_an_unknown_command_kept(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        toasts = record_notifications(app)
        option = next(o for o in screen.options.current() if o.category == "mode")
        other = next(c for c in option.choices if c.value != option.current)
        await send(pilot, f"/mode {other.name}")
        await wait_for(
            pilot,
            lambda: (
                next(o for o in screen.options.current() if o.key == option.key).current
                == other.value
            ),
            "the mode chosen",
        )
        await send(pilot, "//nosuch thing")
        await wait_for(pilot, lambda: any("no command //nosuch" in t for t in toasts), "said")
        assert prompt_of(screen).text == "//nosuch thing"  # kept, to be changed
        assert user_texts(screen) == []


# -- item 6: the key sheet ---------------------------------------------------------------------


async def test_f1_question_mark_and_the_palette_open_acp_tuis_key_sheet(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state", keymap={"new-session": "ctrl+k"})
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_ready(pilot)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the sheet")
        text = app.screen.text()
        assert "Ctrl+K" in text and "remapped; default Ctrl+N" in text
        assert text.index("Everywhere") < text.index("Sessions sidebar")
        await pilot.press("f1")
        await wait_for(pilot, lambda: app.screen is screen, "F1 closes it")
        # "?" on an empty prompt; a character typed next is a message after all.
        prompt_of(screen).focus()
        await type_text(pilot, "?")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the sheet by ?")
        await type_text(pilot, "x")
        await wait_for(pilot, lambda: app.screen is screen, "the sheet to close")
        assert prompt_of(screen).text == "?x"
        # Not on a prompt with text: "?" is typed.
        await type_text(pilot, "?")
        assert prompt_of(screen).text == "?x?" and app.screen is screen
        # The palette offers ours, not Textual's thirty editing keys.
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        palette = app.screen
        await type_text(pilot, "keys")
        commands = palette.query_one(CommandList)

        def titles() -> list[str]:
            return [
                str(commands.get_option_at_index(i).prompt).split("\n")[0]
                for i in range(commands.option_count)
            ]

        await wait_for(pilot, lambda: "Keys and commands" in titles(), "ours offered")
        assert "Keys" not in titles()
        await pilot.press("escape")


# -- item 7: the queue in reach, the focus plain to see ----------------------------------------


def luminance(color: Color) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(a: Color, b: Color) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def drawn_background(widget: Widget) -> Color:
    """The background the widget's own cells are drawn on (its select's current value for a
    select)."""
    inner = widget.query("SelectCurrent")
    target = inner.first() if inner else widget
    return target.background_colors[1]


async def test_tab_reaches_the_queue_first_and_the_focus_shows_in_every_theme(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/slow 600")
        await wait_for(pilot, lambda: screen.busy, "the slow turn")
        await send(pilot, "queued one")
        await wait_for(pilot, lambda: len(screen.query("QueuedItem")) == 1, "the queued item")
        prompt_of(screen).focus()
        await pilot.pause()
        await pilot.press("tab")
        row = screen.query_one("QueuedItem")
        assert screen.focused is row  # one Tab, not eight: Enter edits it there
        await pilot.press("tab")
        under = screen.focused
        assert under is not None and screen.widgets.bar in under.ancestors
        await pilot.press("shift+tab")
        assert screen.focused is row
        await pilot.press("shift+tab")
        assert screen.focused is prompt_of(screen).text_area
        # What has the focus is drawn unlike its neighbours, in every theme.
        # (A queued row shows its focus on its text.)
        drawn = {row: row.query_one(Static)}
        controls = [row, *(w for w in screen.widgets.bar.children if w.focusable)]
        # (The ANSI themes draw in the terminal's own colours, which cannot be measured.)
        for theme in sorted(t for t in app.available_themes if not t.startswith("ansi")):
            app.theme = theme
            await pilot.pause()
            for control in controls:
                control.focus()
                await pilot.pause()
                focused = drawn_background(drawn.get(control, control))
                control.blur()
                await pilot.pause()
                blurred = drawn_background(drawn.get(control, control))
                assert contrast(focused, blurred) >= 1.8, (theme, control)
        await pilot.press("escape")


# -- item 9: Ctrl+B, the width, the config's problems ------------------------------------------


async def test_ctrl_b_goes_to_a_shown_sidebar_and_hides_only_one_it_is_in(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_ready(pilot)
        sidebar = screen.query_one(SessionsSidebar)
        assert sidebar.display and not sidebar.has_focus_within
        await pilot.press("ctrl+b")
        assert sidebar.display and sidebar.session_list.has_focus  # went there, not hidden
        await pilot.pause()
        header = sidebar.query_one("#sidebar-header")
        assert contrast(header.background_colors[1], sidebar.background_colors[1]) >= 1.8
        await pilot.press("ctrl+b")
        assert not sidebar.display and prompt_of(screen).text_area.has_focus
        await pilot.press("ctrl+b")
        assert sidebar.display and sidebar.session_list.has_focus


async def test_the_sidebar_gives_way_under_its_width_and_comes_back(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_ready(pilot)
        sidebar = screen.query_one(SessionsSidebar)
        assert sidebar.display
        sidebar.session_list.focus()
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: not sidebar.display, "the sidebar to give way")
        assert prompt_of(screen).text_area.has_focus
        await pilot.resize_terminal(120, 40)
        await wait_for(pilot, lambda: bool(sidebar.display), "the sidebar back")
        # Hidden by the person: it stays hidden, whatever the width.
        await pilot.press("ctrl+b", "ctrl+b")
        await pilot.resize_terminal(80, 24)
        await pilot.resize_terminal(130, 40)
        await settle(pilot)
        assert not sidebar.display


async def test_the_configs_problems_are_one_short_toast(tmp_path: Path) -> None:
    problems = [
        f"config.toml: keys.nope{i}: unknown action; see the README's list" for i in range(7)
    ]
    from acp_tui.ui.app import make_app
    from tests.ui.chat_helpers import app_settings

    settings, ui = app_settings(None, tmp_path)
    app = make_app(settings, ui=ui, choices=[], problems=problems)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        toasts = list(app._notifications)
        assert len(toasts) == 1
        assert "7 problems" in toasts[0].message and "Configuration problems" in toasts[0].message
        assert toasts[0].timeout <= 8
        await run_palette_command(pilot, "Configuration problems")
        await wait_for(pilot, lambda: isinstance(app.screen, TextLogScreen), "the whole list")


# -- item 11: archiving the session on screen --------------------------------------------------


async def test_archiving_the_only_session_listed_leaves_a_new_session(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "the only one")
        await wait_for(
            pilot,
            lambda: any(isinstance(e, AgentMessage) for e in screen.model.state().transcript),  # type: ignore[union-attr]
            "the reply",
        )
        sidebar = screen.query_one(SessionsSidebar)
        await wait_for(pilot, lambda: len(sidebar.rows) == 1, "its row")
        toasts = record_notifications(app)
        await pilot.press("ctrl+b", "x")
        await wait_for(pilot, lambda: screen.session_id is None, "the new session")
        await wait_for(pilot, lambda: any("This is a new session" in t for t in toasts), "said")


def test_the_problems_toast_says_the_problem_not_the_folders() -> None:
    """A config file deep in a long path: the toast's line names the key and what is wrong
    (the path was 70 characters of the line and the problem fell off its end)."""
    from acp_tui.ui.toasts import problems_toast

    deep = "/home/someone/" + "a-long-folder-name/" * 6 + "config.toml"
    for problems in ([f"{deep}: keys.new-sesion: unknown action"] * 2, [f"{deep}: x " * 30]):
        toast = problems_toast(problems, "Ctrl+P")
        assert toast.startswith("config.toml: "), toast
        assert "a-long-folder-name" not in toast
    assert "keys.new-sesion: unknown action" in problems_toast(
        [f"{deep}: keys.new-sesion: unknown action"] * 2, "Ctrl+P"
    )
