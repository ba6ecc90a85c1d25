"""Where typing goes on the chat screen: to the prompt, unless the focus is on something that
uses typed characters itself.

Typing in a chat is for the prompt. A key pressed while the focus sits on the transcript, a
tool call block, a thought, a queue button or the gauge would otherwise reach a widget that has
no use for it and be dropped, and the person sees their words vanish. So:

- a printable key (or a paste) that reaches the screen unused, with no binding for it where the
  focus is, goes to the focused input, else to the prompt (which takes the focus); in the
  sidebar's list it goes to the sidebar's filter (type to filter), and so do Backspace and
  Delete (the filter is edited where it was typed);
- the prompt's Enter (its send and new-line keys) that reaches the screen unused while the
  prompt has the focus was delivered to where the focus was before typed characters moved it:
  it goes to the prompt after them (else the message went out before its last characters, or
  not at all, and the Enter was lost);
- a click anywhere but on a place that takes typing gives the focus back to the prompt;
- Tab from the prompt cycles through the controls under it, never into the sidebar (its filter
  would swallow what comes next); Ctrl+B goes to the sidebar.

Places that take typing: text inputs and text areas, an open selector, and widgets that keep
their own keys (the sessions sidebar: its list has one-letter keys, its filter is an input).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import events
from textual.css.query import NoMatches
from textual.dom import DOMNode
from textual.errors import NoWidget
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Select, TextArea

from acp_tui.ui.textual_patches.key_order import typed_before_the_focus_moved

__all__ = ["TypingRouter"]

TYPING_WIDGETS: tuple[type[Widget], ...] = (Input, TextArea)
#: Keys that edit text without typing a character, and the action of each in an input (or a
#: text area: both name them so).
EDIT_KEYS = {"backspace": "delete_left", "delete": "delete_right"}


class RoutedKey(events.Key):
    """A key the screen passed on to where typing goes: never passed on twice."""


# Handled as the key it is (``_on_key``), not as a message of its own.
RoutedKey.handler_name = events.Key.handler_name


class TypingRouter:
    """The chat screen's rules for typing and focus (see the module docstring).

    ``prompt_area`` returns the prompt's text area; ``keeps_keys`` lists the widget types that
    keep their own keys (the sidebar)."""

    def __init__(
        self,
        screen: Screen[Any],
        prompt_area: Callable[[], TextArea],
        keeps_keys: tuple[type[Widget], ...] = (),
        prompt_sends: Callable[[str], bool] = lambda key: False,
    ) -> None:
        self.screen = screen
        self.prompt_area = prompt_area
        self.keeps_keys = keeps_keys
        #: Whether a key is one of the prompt's send or new-line keys.
        self.prompt_sends = prompt_sends
        self._target: Widget | None = None

    def prompt_target(self) -> Widget | None:
        """The prompt's text area while it is there (None before the screen is composed)."""
        target = self._target
        if target is None or not target.is_attached:
            try:
                target = self._target = self.prompt_area()
            except NoMatches:
                return None
        return target

    def typing_elsewhere(self) -> bool:
        """Whether the focus is on another place that takes typing than the prompt."""
        focused = self.screen.focused
        return focused is not self.prompt_target() and self.takes_typing(focused)

    def takes_typing(self, node: DOMNode | None, *, clicked: bool = False) -> bool:
        """Whether ``node`` (or what it is inside) has a use for typed characters. A selector
        does while its list is open; a click on one (which opens it) always counts."""
        if node is None:
            return False
        for ancestor in node.ancestors_with_self:
            if isinstance(ancestor, Select):
                return clicked or ancestor.expanded
            if isinstance(ancestor, TYPING_WIDGETS + self.keeps_keys):
                return True
        return False

    def _prompt_ready(self) -> TextArea | None:
        area = self.prompt_area()
        if not area.is_mounted or not area.focusable:
            return None
        return area

    def route_key(self, event: events.Key) -> bool:
        """A key that bubbled up to the screen unused: pass it on to where typing goes (the
        focused input, else the prompt). True when it was passed on.

        The key may have been delivered before the focus last moved (keys come in bursts,
        and each goes to whatever had the focus when it was read), so the focus now decides,
        not the widget the key went through."""
        if isinstance(event, RoutedKey):
            return False
        if self.prompt_sends(event.key):
            return self._route_send_key(event)
        if event.key in EDIT_KEYS:
            if typed_before_the_focus_moved(event, self.screen.app):
                return False  # typed into the prompt, say, before Ctrl+B: it edits there
            return self._route_edit_key(event)
        if not event.is_printable or not event.character:
            return False
        if event.key in self.screen.active_bindings:
            return False  # a key the focused widget (or one around it) is bound to
        focused = self.screen.focused
        target: Widget | None
        if isinstance(focused, TYPING_WIDGETS):
            target = focused
        else:
            target = self._own_target(focused) or self._prompt_ready()
        if target is None:
            return False
        event.stop()
        event.prevent_default()
        if target is not focused:
            # At once, not later: the next key of a burst must find the prompt focused.
            self.screen.set_focus(target, scroll_visible=False)
        target.post_message(RoutedKey(event.key, event.character))
        return True

    def _route_edit_key(self, event: events.Key) -> bool:
        """Backspace or Delete in a widget that keeps its keys goes to where its typing goes
        (the sidebar's list: its filter, so a filter typed there can be edited there). Not to
        the prompt: a person who did not type there would lose text they cannot see go."""
        if event.key in self.screen.active_bindings:
            return False
        focused = self.screen.focused
        target = self._own_target(focused)
        if target is None or target is focused:
            return False
        event.stop()
        event.prevent_default()
        self.screen.set_focus(target, scroll_visible=False)
        # The key's own binding there (an input's), after the keys routed there before it: a
        # posted key reaches the widget's handler, not its bindings.
        target.call_later(target.run_action, EDIT_KEYS[event.key])
        return True

    def _route_send_key(self, event: events.Key) -> bool:
        """A send or new-line key of the prompt that bubbled up while the prompt has the focus:
        the prompt acts on those keys itself, so this one went through the widget that had the
        focus when it was read (a burst: "hi" then Enter, typed on a selector). It goes to the
        prompt's queue, behind the characters routed there before it."""
        area = self.prompt_area()
        if self.screen.focused is not area:
            return False
        event.stop()
        event.prevent_default()
        area.post_message(RoutedKey(event.key, event.character))
        return True

    def _own_target(self, focused: Widget | None) -> Widget | None:
        """Where a widget that keeps its keys sends typing (the sidebar: its filter)."""
        if focused is None:
            return None
        for ancestor in focused.ancestors_with_self:
            if isinstance(ancestor, self.keeps_keys):
                target = getattr(ancestor, "typing_target", None)
                return target() if callable(target) else None
        return None

    def route_paste(self, event: events.Paste) -> bool:
        """A paste that bubbled up to the screen unused goes where typing goes."""
        focused = self.screen.focused
        if isinstance(focused, TYPING_WIDGETS):
            return False
        target = self._own_target(focused) or self._prompt_ready()
        if target is None:
            return False
        event.stop()
        event.prevent_default()
        if target is not focused:
            self.screen.set_focus(target, scroll_visible=False)
        target.post_message(events.Paste(event.text))
        return True

    def after_click(self, event: events.MouseUp) -> None:
        """A click ended: unless it was on a place that takes typing, the prompt has the focus
        again. (Text selected with the mouse can still be copied: the prompt passes Ctrl+C on
        when it has no selection of its own.)"""
        focused = self.screen.focused
        if focused is not None and self.takes_typing(focused, clicked=True):
            return
        try:
            under, _ = self.screen.get_widget_at(event.screen_x, event.screen_y)
        except NoWidget:
            under = None
        if under is not None and self.takes_typing(under, clicked=True):
            return
        area = self._prompt_ready()
        if area is not None and focused is not area:
            self.screen.set_focus(area, scroll_visible=False)

    def focus_step(self, step: Callable[[], Widget | None]) -> Widget | None:
        """Tab / Shift+Tab: move as ``step`` does, but from outside the sidebar never into it
        (Ctrl+B is the way there)."""
        before = self.screen.focused
        if before is not None and self.takes_sidebar(before):
            return step()
        chain = self.screen.focus_chain
        moved = step()
        for _ in range(len(chain)):
            if moved is None or not self.takes_sidebar(moved):
                return moved
            moved = step()
        return moved

    def takes_sidebar(self, node: DOMNode) -> bool:
        return any(isinstance(a, self.keeps_keys) for a in node.ancestors_with_self)
