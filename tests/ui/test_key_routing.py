"""A key reaches the bindings of the widget it was typed into, even when a key read with it
has moved the focus first (acp_tui/ui/textual_patches/key_order.py): Backspaces typed just before Ctrl+P
edit the prompt, not the palette."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.command import CommandPalette
from textual.dom import DOMNode
from textual.pilot import Pilot
from textual.widgets import Input, Static

from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.textual_patches import key_order
from acp_tui.ui.textual_patches.key_order import REMEMBERED_KEYS, KeyTargets, binding_chain
from acp_tui.ui.widgets.prompt import PromptEditor, PromptTextArea
from tests.ui.chat_helpers import fixture_app, wait_for, wait_for_session

pytestmark = pytest.mark.anyio

TEXT = "abcdefghijklmnopqrstuvwxyz"


def key(name: str) -> events.Key:
    return events.Key(name, name if len(name) == 1 else None)


def keys_read_together(app: object, *names: str) -> None:
    """As the terminal's reader hands over keys read in one go: all queued before any is
    acted on."""
    driver = app._driver  # type: ignore[attr-defined]
    for name in names:
        driver.send_message(key(name))


def chain_keys(chain: list[tuple[DOMNode, object]]) -> list[tuple[DOMNode, list[str]]]:
    return [(node, sorted(bindings.key_to_bindings)) for node, bindings in chain]  # type: ignore[attr-defined]


async def prompt_with_text(pilot: Pilot[int]) -> tuple[ChatScreen, PromptEditor]:
    """A session open, ``TEXT`` in the prompt, the prompt focused."""
    screen = await wait_for_session(pilot)
    prompt = screen.query_one(PromptEditor)
    prompt.set_draft(TEXT)
    prompt.focus()
    await pilot.pause()
    return screen, prompt


@pytest.mark.textual_patch("key-order")
@pytest.mark.parametrize("count", [1, 10])
async def test_backspaces_read_with_ctrl_p_edit_the_prompt_and_the_palette_opens_empty(
    tmp_path: Path, count: int
) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, prompt = await prompt_with_text(pilot)
        keys_read_together(app, *["backspace"] * count, "ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await wait_for(pilot, lambda: prompt.text == TEXT[:-count], "the Backspaces applied")
        assert app.screen.query_one(Input).value == ""
        # Letters read with Ctrl+P, after it, are the palette's.
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "the palette closed")
        keys_read_together(app, "left", "left", "ctrl+p", "t", "h")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await wait_for(pilot, lambda: app.screen.query_one(Input).value == "th", "typed there")
        assert prompt.text == TEXT[:-count]
        area = screen.query_one(PromptTextArea)
        assert area.cursor_location == (0, len(TEXT) - count - 2)  # the arrows moved it


@pytest.mark.textual_patch("key-order")
async def test_backspaces_read_with_ctrl_b_edit_the_prompt(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        _screen, prompt = await prompt_with_text(pilot)
        keys_read_together(app, "backspace", "backspace", "backspace", "ctrl+b")
        await wait_for(pilot, lambda: prompt.text == TEXT[:-3], "the Backspaces applied")


async def test_the_chain_is_textuals_own_for_the_focused_widget(tmp_path: Path) -> None:
    """Checked against the installed Textual: the chat screen's prompt, and the palette (a
    modal screen: the chain stops there)."""
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        prompt = screen.query_one(PromptEditor)
        prompt.focus()
        await pilot.pause()
        area = screen.query_one(PromptTextArea)
        assert screen.focused is area
        assert chain_keys(binding_chain(area)) == chain_keys(screen._modal_binding_chain)
        transcript = screen.query_one("#transcript")
        screen.set_focus(transcript)
        await pilot.pause()
        assert screen.focused is transcript
        assert chain_keys(binding_chain(transcript)) == chain_keys(screen._modal_binding_chain)
        screen.set_focus(None)
        await pilot.pause()
        assert screen.focused is None
        assert chain_keys(binding_chain(screen)) == chain_keys(screen._modal_binding_chain)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        palette = app.screen
        assert palette.focused is not None
        own = binding_chain(palette.focused)
        assert chain_keys(own) == chain_keys(palette._modal_binding_chain)
        assert app not in [node for node, _ in own]  # the modal screen ends it


@pytest.mark.textual_patch("key-order")
async def test_a_key_for_a_widget_gone_meanwhile_is_dropped_not_given_to_the_prompt(
    tmp_path: Path,
) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        _screen, prompt = await prompt_with_text(pilot)
        gone = Static("a closed dialog's field")
        event = key("backspace")
        order = key_order.of(app)
        assert order is not None
        order.targets.handed(event, gone)
        escape = key("escape")
        order.targets.handed(escape, gone)
        order.targets.acted_at_once(escape)  # it closed the dialog first
        await app.on_key(event)
        assert event._no_default_action  # Textual's own look-up (the prompt's) is not made
        await pilot.pause()
        assert prompt.text == TEXT


def test_a_key_is_given_back_once_if_a_later_key_overtook_it() -> None:
    targets = KeyTargets()
    node = DOMNode()
    first, second, at_once, third = key("a"), key("b"), key("ctrl+p"), key("c")
    targets.handed(first, node)
    targets.handed(second, node)
    assert targets.peek(first) is None  # nothing acted on out of turn
    targets.handed(at_once, node)
    targets.acted_at_once(at_once)  # a priority binding took it: never handed on
    assert targets.peek(at_once) is None
    targets.handed(third, node)
    assert targets.back(key("a")) is None  # another event, even of the same key
    assert targets.peek(first) is node
    assert targets.back(first) is node
    assert targets.back(first) is None
    assert targets.back(second) is node
    assert targets.back(third) is None  # read after the key acted on at once: in turn
    for _ in range(REMEMBERED_KEYS + 10):
        targets.handed(key("b"), node)
    assert len(targets) == REMEMBERED_KEYS


async def test_a_key_read_after_one_that_moves_the_focus_follows_the_focus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shift+Tab then Home, read together (the benchmarks' way to the transcript's top):
    Shift+Tab's focus move is acted on after Home was handed to the prompt, and Home is the
    transcript's, where the focus went, not the prompt's (its cursor stays put)."""
    monkeypatch.setenv("FIXTURE_AGENT_ONE_MODE", "1")  # Shift+Tab moves the focus, no mode
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, _prompt = await prompt_with_text(pilot)
        area = screen.query_one(PromptTextArea)
        assert area.cursor_location == (0, len(TEXT))
        keys_read_together(app, "shift+tab", "home")
        await wait_for(pilot, lambda: screen.focused is not area, "the focus moved")
        await pilot.pause()
        assert area.cursor_location == (0, len(TEXT))
