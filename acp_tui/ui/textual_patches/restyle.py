"""A screen restyled when it comes back to the front only if its styles may be stale.

Textual restyles every widget of a screen each time the screen is resumed, and a new view is
resumed twice as it opens (once as its mode is made, once as it is switched to): the second
time, every widget is styled again with the same rules, a moment after the first (~30 widgets
and their component styles, about 5 % of an app's start on the 2-core development machine).

Here a resume restyles unless the screen was already restyled with the very same rules (the
stylesheet's parsed rule list: a new one after any parse, a theme change or a new widget type's
CSS) and has not been covered since. What changes between the two (classes, focus, hover) is
restyled by Textual as it changes, as on any screen that is not resumed.

Nor is a new view restyled as it first comes to the front, if the theme has not changed since
it was made: each of its widgets was styled as it was mounted, as any widget mounted later on a
screen already shown is, and Textual restyles no widget when another widget type's CSS arrives.
That was the first of the two restyles above (a whole screen, some 40 widgets and their
component classes: the sessions list alone has twenty).

Textual's resume and suspend handlers (``Screen._on_screen_resume``/``_on_screen_suspend``)
are wrapped once: a screen with a :class:`Restyle` is asked first, others are as Textual made
them. The app's count of CSS changes is Textual's private ``_css_update_count``. Switch:
``restyle``; docs/upstream/screen-resume-restyle.md proposes it to Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary, ref

from textual import events
from textual.screen import Screen

__all__ = ["Restyle", "install"]

#: The guard of each screen that has one.
_guards: WeakKeyDictionary[Screen[Any], Restyle] = WeakKeyDictionary()


def install(screen: Screen[Any]) -> Restyle:
    """Restyle ``screen`` on resume only when its styles may be stale (call as it is made)."""
    _wrap_handlers()
    guard = _guards[screen] = Restyle(screen)
    return guard


def _css_update_count(screen: Screen[Any]) -> int | None:
    return getattr(screen.app, "_css_update_count", None)


class Restyle:
    """Whether a resume of one screen must restyle it (see the module docstring). It holds
    its screen weakly: it is the value of the screen's entry in a
    :class:`~weakref.WeakKeyDictionary`, which a strong reference would keep forever."""

    def __init__(self, screen: Screen[Any]) -> None:
        self._screen = ref(screen)
        #: The rule list the screen's widgets were all last styled with (None: since covered).
        self._restyled_with: object = None
        #: Textual's count of CSS invalidations (theme changes) when the screen was made;
        #: None once it has been covered.
        self._made_at_css_update = _css_update_count(screen)

    @property
    def screen(self) -> Screen[Any]:
        screen = self._screen()
        if screen is None:
            raise RuntimeError("the screen of this guard has gone")
        return screen

    def resuming(self, event: events.ScreenResume) -> None:
        """Before Textual's resume handler, which restyles the screen if the event asks."""
        if not event.refresh_styles:
            return
        rules = self.screen.app.stylesheet.rules
        if self._restyled_with is rules or self._styled_as_mounted():
            event.refresh_styles = False
        else:
            self._restyled_with = rules

    def _styled_as_mounted(self) -> bool:
        """Never covered since it was made, and no theme change since: its widgets' styles
        are those they were given as they were mounted, with the theme of now."""
        made_at = self._made_at_css_update
        return made_at is not None and made_at == _css_update_count(self.screen)

    def suspended(self) -> None:
        self._restyled_with = None
        self._made_at_css_update = None


def _wrap_handlers() -> None:
    """Textual finds the handlers on the screen's class: wrapped once, they ask the screen's
    guard first."""
    resume: Callable[[Screen[Any], events.ScreenResume], None] = Screen._on_screen_resume
    if getattr(resume, "_guarded", False):
        return
    suspend: Callable[[Screen[Any]], None] = Screen._on_screen_suspend

    def _on_screen_resume(self: Screen[Any], event: events.ScreenResume) -> None:
        guard = _guards.get(self)
        if guard is not None:
            guard.resuming(event)
        resume(self, event)

    def _on_screen_suspend(self: Screen[Any]) -> None:
        guard = _guards.get(self)
        if guard is not None:
            guard.suspended()
        suspend(self)

    _on_screen_resume._guarded = True  # type: ignore[attr-defined]
    Screen._on_screen_resume = _on_screen_resume  # type: ignore[method-assign]
    Screen._on_screen_suspend = _on_screen_suspend  # type: ignore[method-assign]
