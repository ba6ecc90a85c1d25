"""The shape of the code (issue 37): modules of a few hundred lines, the chat screen and the
sessions sidebar classes of their own (composed of objects, not grown through mixins) with
under 60 methods each."""

from __future__ import annotations

import inspect
from pathlib import Path

from textual.screen import Screen
from textual.widget import Widget

from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.widgets.sidebar import SessionsSidebar

PACKAGE = Path(__file__).resolve().parent.parent / "acp_tui"
#: A module's most lines.
MODULE_LINES = 600
#: A class's most methods of its own.
METHODS = 60


def lines_of(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_every_module_has_fewer_lines_than_the_limit() -> None:
    over = sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if lines_of(path) >= MODULE_LINES
    )
    assert over == [], f"split these modules (at most {MODULE_LINES - 1} lines each)"


def own_methods(cls: type) -> list[str]:
    """The functions a class defines itself (methods, properties, handlers), not inherited."""
    return [
        name
        for name, value in vars(cls).items()
        if inspect.isfunction(value) or isinstance(value, property | staticmethod | classmethod)
    ]


def test_the_chat_screen_is_a_screen_of_its_own_with_few_methods() -> None:
    assert ChatScreen.__bases__ == (Screen,), "no mixins: compose objects"
    assert len(own_methods(ChatScreen)) < METHODS


def test_the_sessions_sidebar_is_a_widget_of_its_own_with_few_methods() -> None:
    assert SessionsSidebar.__bases__ == (Widget,), "no mixins: compose objects"
    assert len(own_methods(SessionsSidebar)) < METHODS


def test_the_method_count_sees_every_kind_of_method() -> None:
    class Probe:
        def method(self) -> None: ...

        @property
        def prop(self) -> int:
            return 1

        @staticmethod
        def static() -> None: ...

        handler = staticmethod(len)
        not_a_method = 3

    assert sorted(own_methods(Probe)) == ["handler", "method", "prop", "static"]
