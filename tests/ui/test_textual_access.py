"""What acp-tui reads of Textual's private state (acp_tui/ui/textual_patches/access.py): each
read gives what the installed Textual holds, and its public approximation where the private
name is gone gives the same here."""

from __future__ import annotations

import string

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Input, Static, TextArea

from acp_tui.ui.textual_patches import access


class Keyed(Widget, can_focus=True):
    BINDINGS = [Binding("ctrl+x", "cut", "Cut", id="cut"), Binding("f2", "rename", id="rename")]


class KeyedMore(Keyed):
    BINDINGS = [Binding("ctrl+y", "yank", id="yank")]


class Alone(Keyed, inherit_bindings=False):
    BINDINGS = [Binding("ctrl+z", "undo", id="undo")]


def _keys(bindings: object) -> set[tuple[str, str]]:
    return {(key, binding.action) for key, binding in bindings}  # type: ignore[attr-defined]


@pytest.mark.parametrize("cls", [Keyed, KeyedMore, Alone, TextArea, Input])
def test_a_class_bindings_are_textuals_and_so_is_their_approximation(
    cls: type[Widget], monkeypatch: pytest.MonkeyPatch
) -> None:
    textuals = _keys(access.class_bindings(cls))
    assert textuals == _keys(cls._merged_bindings or ())
    for base in cls.__mro__:
        if "_merged_bindings" in base.__dict__:
            monkeypatch.setattr(base, "_merged_bindings", None)
    assert _keys(access.class_bindings(cls)) == textuals


@pytest.mark.anyio
async def test_a_nodes_bindings_follow_the_apps_keymap() -> None:
    class KeyApp(App[None]):
        def compose(self) -> ComposeResult:
            yield Keyed()

    app = KeyApp()
    async with app.run_test():
        node = app.query_one(Keyed)
        assert _keys(access.bindings(node)) >= {("ctrl+x", "cut"), ("f2", "rename")}
        assert access.keymap(app) == {}
        app.set_keymap({"cut": "ctrl+k"})
        assert access.keymap(app) == {"cut": "ctrl+k"}
        configured = _keys(access.configured_bindings(node))
        assert ("ctrl+k", "cut") in configured and ("ctrl+x", "cut") not in configured
        assert ("ctrl+x", "cut") in _keys(access.bindings(node))  # the node's own: untouched
    assert access.keymap(None) == {}


def test_a_characters_key_name_is_textuals_and_so_is_its_approximation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import textual.keys

    characters = string.printable.strip() + "é€"
    textuals = [access.character_to_key(char) for char in characters]
    assert access.character_to_key("/") == "slash"
    monkeypatch.delattr(textual.keys, "_character_to_key")
    assert [access.character_to_key(char) for char in characters] == textuals


@pytest.mark.anyio
async def test_the_event_clock_is_the_clock_of_events() -> None:
    from textual import events

    clock = access.event_clock()
    before = clock()
    event = events.Idle()
    assert before <= event.time <= clock()


@pytest.mark.anyio
async def test_the_driver_anchor_and_closing_of_a_running_app() -> None:
    class Scroller(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield Static("\n".join(map(str, range(200))))

    app = Scroller()
    assert access.driver(app) is None
    async with app.run_test() as pilot:
        assert access.driver(app) is not None
        view = app.query_one(VerticalScroll)
        view.anchor()
        await pilot.pause()
        assert not access.anchor_released(view)
        view.release_anchor()
        assert access.anchor_released(view)
        assert not access.closing(view)
        removing = view.remove()
        assert access.closing(view)
        await removing


@pytest.mark.anyio
async def test_only_the_toasts_that_say_it_are_dismissed() -> None:
    app = App[None]()
    async with app.run_test() as pilot:
        app.notify("needs you", timeout=60)
        app.notify("something else", timeout=60)
        await pilot.pause()
        assert access.dismiss_notifications(app, "needs you") == 1
        assert [n.message for n in app._notifications] == ["something else"]
        assert access.dismiss_notifications(app, "needs you") == 0
