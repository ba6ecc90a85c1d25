"""The chat screen is restyled when it comes back to the front only if its styles may be stale.

Textual restyles every widget of a screen each time the screen is resumed, and a new view is
resumed twice as it opens (once as its mode is made, once as it is switched to): the second
time, every widget is styled again with the same rules, a moment after the first (~30 widgets
and their component styles, about 5 % of an app's start on the 2-core development machine).

Here a resume restyles unless the screen was already restyled with the very same rules (the
stylesheet's parsed rule list: a new one after any parse, a theme change or a new widget type's
CSS) and has not been covered since. What changes between the two (classes, focus, hover) is
restyled by Textual as it changes, as on any screen that is not resumed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import events

if TYPE_CHECKING:
    from textual.screen import Screen

    _Base = Screen[Any]
else:
    _Base = object


class RestyledWhenStale(_Base):
    """Mixin for the chat screen: see the module docstring."""

    #: The rule list the screen's widgets were all last styled with (None: since covered).
    _restyled_with: object = None

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        # Runs before Screen's own handler (Textual calls each class's, subclass first), which
        # restyles the screen when the event asks it to.
        if not event.refresh_styles:
            return
        rules = self.app.stylesheet.rules
        if self._restyled_with is rules:
            event.refresh_styles = False
        else:
            self._restyled_with = rules

    def _on_screen_suspend(self) -> None:
        self._restyled_with = None
