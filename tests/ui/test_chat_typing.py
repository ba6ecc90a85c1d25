"""Typing on the chat screen goes to the prompt wherever the focus was left: no keystroke is
lost on a widget that has no use for it. The sidebar keeps its own keys; clicks give the focus
back to the prompt; Tab from the prompt never walks into the sidebar."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Input

from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.screens.chat import ChatScreen, QueuedItem
from acp_tui.ui.widgets.prompt import PromptEditor, PromptTextArea
from acp_tui.ui.widgets.sidebar import SessionsSidebar
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from acp_tui.ui.widgets.transcript import Transcript
from acp_tui.ui.widgets.transcript_views import ThoughtView
from tests.ui.chat_helpers import (
    FIXTURE_AGENT,
    agent_app,
    demo_app,
    fixture_app,
    send,
    settle,
    wait_for,
    wait_for_session,
)

pytestmark = pytest.mark.anyio

SIZE = (120, 40)


def prompt_of(screen: ChatScreen) -> PromptEditor:
    return screen.query_one(PromptEditor)


def burst(app: AcpTuiApp, text: str) -> None:
    """Keys as a terminal delivers them: all at once, each to whatever has the focus then."""
    for char in text:
        key = "space" if char == " " else char
        app.post_message(events.Key(key, char))


async def typed_into_prompt(pilot: Pilot[int], screen: ChatScreen, text: str) -> None:
    prompt = prompt_of(screen)
    before = prompt.text
    burst(pilot.app, text)  # type: ignore[arg-type]
    await wait_for(pilot, lambda: prompt.text == before + text, f"{text!r} in the prompt")
    assert isinstance(screen.focused, PromptTextArea)


def demo(tmp_path: Path) -> AcpTuiApp:
    """The demo agent, allowed to run commands without asking (no dialog in these tests)."""
    return demo_app(tmp_path, tmp_path / "state", permission_policy="yolo")


async def conversation(pilot: Pilot[int]) -> ChatScreen:
    """A tool call (a command, with its raw output) and a thought on screen."""
    screen = await wait_for_session(pilot)
    await send(pilot, "/run echo hi")
    await wait_for(pilot, lambda: not screen.busy and screen.query(ToolCallView), "the tool call")
    await send(pilot, "/think")
    await wait_for(pilot, lambda: not screen.busy and screen.query(ThoughtView), "the thought")
    return screen


def focus_transcript(screen: ChatScreen) -> Widget:
    return screen.query_one(Transcript)


def focus_tool_block(screen: ChatScreen) -> Widget:
    # The raw-output toggle (a Collapsible title) is what takes the focus in a tool block.
    view = screen.query(ToolCallView).last()
    return next(w for w in view.query("*") if w.focusable)


def focus_thought(screen: ChatScreen) -> Widget:
    view = screen.query(ThoughtView).last()
    return next(w for w in view.query("*") if w.focusable)


def focus_gauge(screen: ChatScreen) -> Widget:
    return screen.query_one("#gauge")


FOCUS_TARGETS: dict[str, Callable[[ChatScreen], Widget]] = {
    "transcript": focus_transcript,
    "tool block": focus_tool_block,
    "thought": focus_thought,
    "gauge": focus_gauge,
}


@pytest.mark.parametrize("target", list(FOCUS_TARGETS))
async def test_keys_typed_where_they_have_no_use_go_to_the_prompt(
    tmp_path: Path, target: str
) -> None:
    app = demo(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await conversation(pilot)
        widget = FOCUS_TARGETS[target](screen)
        widget.focus()
        await wait_for(pilot, lambda: screen.focused is widget, f"the focus on the {target}")
        await typed_into_prompt(pilot, screen, "hello world")
        # A paste there goes to the prompt too.
        widget.focus()
        await wait_for(pilot, lambda: screen.focused is widget, f"the focus on the {target}")
        app.post_message(events.Paste(" pasted"))
        await wait_for(pilot, lambda: prompt_of(screen).text == "hello world pasted", "the paste")


async def test_keys_typed_with_nothing_focused_go_to_the_prompt(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        screen.set_focus(None)
        await pilot.pause()
        await typed_into_prompt(pilot, screen, "still here")


@pytest.mark.parametrize("target", ["transcript", "tool block", "thought"])
async def test_a_click_gives_the_focus_back_to_the_prompt(tmp_path: Path, target: str) -> None:
    app = demo(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await conversation(pilot)
        widget = FOCUS_TARGETS[target](screen)
        widget.scroll_visible(animate=False, immediate=True)
        await pilot.pause()
        await pilot.click(widget, offset=(2, 0))
        await wait_for(
            pilot, lambda: isinstance(screen.focused, PromptTextArea), "the prompt focused"
        )
        await typed_into_prompt(pilot, screen, "after the click")


@pytest.mark.parametrize("target", ["transcript", "tool block", "thought", "gauge"])
async def test_a_mouse_press_never_takes_the_focus_from_the_prompt(
    tmp_path: Path, target: str
) -> None:
    """Keys typed right after a click come before the mouse-up is handled on a busy machine:
    the press itself must leave the focus on the prompt, or they go to the widget clicked and
    reach the prompt out of order ("ater the tool blockf")."""
    app = demo(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await conversation(pilot)
        widget = FOCUS_TARGETS[target](screen)
        widget.scroll_visible(animate=False, immediate=True)
        prompt_of(screen).focus()
        await pilot.pause()
        await pilot.mouse_down(widget, offset=(2, 0))
        assert isinstance(screen.focused, PromptTextArea)
        await pilot.mouse_up(widget, offset=(2, 0))
        await typed_into_prompt(pilot, screen, "after the press")


async def test_typing_after_removing_a_queued_message_goes_to_the_prompt(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "hang")
        await wait_for(pilot, lambda: screen.busy, "the turn to run")
        await send(pilot, "queued one")
        await wait_for(pilot, lambda: screen.query(QueuedItem), "the queued message")
        remove = screen.query_one("QueuedItem .remove", Button)
        # Focused first, as Tab or an earlier click would leave it: the button then goes away.
        remove.focus()
        await pilot.pause()
        await pilot.click(remove)
        await wait_for(pilot, lambda: not screen.query(QueuedItem), "the message removed")
        await typed_into_prompt(pilot, screen, "typed after")


async def test_the_sidebar_keeps_its_own_keys(tmp_path: Path) -> None:
    app = fixture_app(tmp_path, show_sidebar=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        sidebar = screen.query_one(SessionsSidebar)
        await pilot.press("ctrl+b")
        assert sidebar.session_list.has_focus
        await pilot.press("a")  # the list's own key: all folders
        await wait_for(pilot, lambda: sidebar.scope == "all", "the scope to change")
        await pilot.press("slash")
        assert sidebar.filter_has_focus
        burst(app, "fix")
        await wait_for(pilot, lambda: sidebar.filter_text == "fix", "typing in the filter")
        assert prompt_of(screen).text == ""


async def test_tab_from_the_prompt_never_walks_into_the_sidebar(tmp_path: Path) -> None:
    app = fixture_app(tmp_path, show_sidebar=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        sidebar = screen.query_one(SessionsSidebar)
        assert isinstance(screen.focused, PromptTextArea)
        visited = []
        for _ in range(len(screen.focus_chain) + 2):
            await pilot.press("tab")
            visited.append(screen.focused)
        for _ in range(len(screen.focus_chain) + 2):
            await pilot.press("shift+tab")
            visited.append(screen.focused)
        assert any(isinstance(w, PromptTextArea) for w in visited)  # it cycles back
        inside = [w for w in visited if w is not None and sidebar in w.ancestors_with_self]
        assert inside == [], inside
        # Ctrl+B is the way in; from there Tab moves within as usual.
        await pilot.press("ctrl+b")
        assert sidebar.session_list.has_focus
        await pilot.press("shift+tab")
        assert isinstance(screen.focused, Input)


async def test_what_was_typed_before_the_first_session_opened_stays(tmp_path: Path) -> None:
    # The fixture agent, late: the prompt is there before the agent is.
    gate = tmp_path / "start-gate"  # the agent starts once the test opens it: slow, on any machine
    slow = ["sh", "-c", f'while [ ! -e "{gate}" ]; do sleep 0.05; done; exec "$0" "$@"']
    slow += FIXTURE_AGENT
    app = agent_app(slow, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        await wait_for(pilot, lambda: isinstance(screen.focused, PromptTextArea), "the prompt")
        assert screen.session_id is None and not screen.agent_alive
        burst(app, "early words")
        gate.touch()
        await wait_for(pilot, lambda: screen.agent_alive, "the agent")
        await wait_for(pilot, lambda: prompt_of(screen).text == "early words", "the draft")
        # The session the person asks for (Ctrl+N) takes the draft with it.
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: screen.session_id is not None, "the session")
        await settle(pilot)
        assert prompt_of(screen).text == "early words"


async def test_a_burst_through_ctrl_b_and_slash_lands_in_the_filter(tmp_path: Path) -> None:
    """Ctrl+B, "/" and a word, as fast as a terminal delivers them: each key goes where the
    previous one moved the focus (the sidebar, its filter), none to the prompt."""
    app = fixture_app(tmp_path, show_sidebar=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        sidebar = screen.query_one(SessionsSidebar)
        app.post_message(events.Key("ctrl+b", None))
        app.post_message(events.Key("slash", "/"))
        burst(app, "fix")
        await wait_for(pilot, lambda: sidebar.filter_text == "fix", "the filter")
        assert sidebar.filter_has_focus
        assert prompt_of(screen).text == ""


async def test_typing_in_the_sidebar_list_filters(tmp_path: Path) -> None:
    app = fixture_app(tmp_path, show_sidebar=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        sidebar = screen.query_one(SessionsSidebar)
        await pilot.press("ctrl+b")
        assert sidebar.session_list.has_focus
        burst(app, "fix")  # no binding in the list for these: type to filter
        await wait_for(pilot, lambda: sidebar.filter_text == "fix", "the filter")
        assert sidebar.filter_has_focus and prompt_of(screen).text == ""
        await pilot.press("escape", "escape")  # clear, then back to the list
        assert sidebar.session_list.has_focus
        app.post_message(events.Paste("pasted"))
        await wait_for(pilot, lambda: sidebar.filter_text == "pasted", "the paste filtered")


async def test_the_first_session_opening_does_not_pull_the_focus_from_the_filter(
    tmp_path: Path,
) -> None:
    """A message sent while the agent starts makes the first session when the agent is ready:
    that session opens by itself and must not take the focus from where the person went."""
    gate = tmp_path / "start-gate"  # the agent starts once the test opens it: slow, on any machine
    slow = ["sh", "-c", f'while [ ! -e "{gate}" ]; do sleep 0.05; done; exec "$0" "$@"']
    slow += FIXTURE_AGENT
    app = agent_app(slow, tmp_path, show_sidebar=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        sidebar = screen.query_one(SessionsSidebar)
        await wait_for(pilot, lambda: isinstance(screen.focused, PromptTextArea), "the prompt")
        burst(app, "hello")
        await pilot.press("enter")
        await pilot.press("ctrl+b", "slash")
        assert screen.session_id is None and sidebar.filter_has_focus
        burst(app, "untit")
        gate.touch()
        await wait_for(pilot, lambda: screen.session_id is not None, "the session")
        await settle(pilot)
        burst(app, "led")
        await wait_for(pilot, lambda: sidebar.filter_text == "untitled", "all of it filtered")
        assert sidebar.filter_has_focus and prompt_of(screen).text == ""


@pytest.mark.parametrize("switch_key", ["ctrl+n", "ctrl+l"])
async def test_enter_then_a_key_that_switches_the_session_sends_where_it_was_typed(
    tmp_path: Path, switch_key: str
) -> None:
    """Enter then a key that switches the session (Ctrl+N; Ctrl+L, which goes to a waiting
    session), as fast as a terminal delivers them: a key bound with priority runs as it
    arrives, but the message goes to the session it was typed in, not to the next one."""
    # Ctrl+L needs a permission that waits: the demo agent asks (not "yolo" here).
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        typed_in = screen.session_id
        assert typed_in is not None
        # Not an unused session any more (Ctrl+N in one stays there).
        await send(pilot, "hello")
        await wait_for(
            pilot, lambda: not screen.busy and not screen.prompts.items(typed_in), "the reply"
        )
        if switch_key == "ctrl+l":
            # Another session waits for the person: Ctrl+L goes there. Its edit is sent once
            # the second session is on screen, as a message queued in it would be: it asks
            # from behind, whatever the machine's speed.
            screen.action_new_session()
            await wait_for(
                pilot, lambda: screen.session_id not in (None, typed_in), "a second session"
            )
            await send(pilot, "here")
            await wait_for(pilot, lambda: not screen.busy, "its reply")
            screen.model.send("/edit waiting.txt", target=typed_in)
            waiting, typed_in = typed_in, screen.session_id
            await wait_for(
                pilot,
                lambda: screen.workspace.attention.oldest_waiting(besides=(None, None)) is not None,
                "the first session to wait",
            )
        burst(app, "for this one")
        app.post_message(events.Key("enter", "\r"))
        app.post_message(events.Key(switch_key, None))
        await wait_for(pilot, lambda: screen.session_id != typed_in, "the switch")

        def said_in(session_id: str | None) -> bool:
            state = screen.store.get(session_id or "")
            return state is not None and any(
                "for this one" in getattr(entry, "text", "") for entry in state.transcript
            )

        await wait_for(pilot, lambda: said_in(typed_in), "the message where it was typed")
        if switch_key == "ctrl+l":
            # There, its dialog opens.
            await wait_for(
                pilot, lambda: type(app.screen).__name__ == "PermissionScreen", "the dialog"
            )
            assert screen.session_id == waiting
        else:
            await settle(pilot)
        assert not said_in(screen.session_id)
        assert screen.prompts.items(screen.session_id) == []
        assert prompt_of(screen).text == ""


@pytest.mark.parametrize("control", ["config:model", "config:confirm_tools"])
async def test_a_message_typed_on_a_control_is_sent_by_its_enter(
    tmp_path: Path, control: str
) -> None:
    """Seen with claude-agent-acp: a model chosen (the focus stays on its selector), then a
    message typed at once and Enter. The characters went to the prompt; the Enter, read while
    the selector still had the focus, was lost (or sent the message before its characters)."""
    from acp_tui.store.entries import UserMessage
    from acp_tui.ui.widgets.chat_bar import ChatBar

    app = demo(tmp_path)
    async with app.run_test(size=(200, 40)) as pilot:
        screen = await wait_for_session(pilot)
        bar = screen.query_one(ChatBar)
        await wait_for(pilot, lambda: control in bar.controls, "the control")
        bar.controls[control].focus()
        await pilot.pause()
        burst(app, "hi there")
        app.post_message(events.Key("enter", "\r"))

        def sent() -> list[str]:
            state = screen.store.get(screen.session_id or "")
            return [e.text for e in state.transcript if isinstance(e, UserMessage)] if state else []

        await wait_for(pilot, lambda: sent() == ["hi there"], "the message sent whole")
        assert prompt_of(screen).text == ""
        assert isinstance(screen.focused, PromptTextArea)


async def test_a_filter_typed_in_the_sidebar_list_is_edited_there(tmp_path: Path) -> None:
    """OpenCode's tester: back in the list after opening a match, Backspace did nothing (the
    list stayed filtered) and a letter replaced the whole filter ("Tools" became "x"). Now
    Backspace edits the filter, and a letter goes on its end."""
    app = fixture_app(tmp_path, show_sidebar=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        sidebar = screen.query_one(SessionsSidebar)

        async def in_the_list(keys: list[tuple[str, str | None]], expected: str) -> None:
            screen.set_focus(sidebar.session_list)  # as after opening a match, then Ctrl+B
            await settle(pilot)
            for key, character in keys:
                app.post_message(events.Key(key, character))
            await wait_for(pilot, lambda: sidebar.filter_text == expected, repr(expected))
            assert sidebar.filter_has_focus and prompt_of(screen).text == ""

        await in_the_list([("f", "f"), ("i", "i"), ("x", "x")], "fix")
        await in_the_list([("backspace", None)], "fi")
        await in_the_list([("z", "z")], "fiz")
        await in_the_list([("backspace", None)] * 3, "")
