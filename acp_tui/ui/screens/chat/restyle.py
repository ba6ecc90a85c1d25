"""The chat screen is restyled when it comes back to the front only if its styles may be stale.

Textual restyles every widget of a screen each time the screen is resumed, and a new view is
resumed twice as it opens (once as its mode is made, once as it is switched to): the second
time, every widget is styled again with the same rules, a moment after the first (~30 widgets
and their component styles, about 5 % of an app's start on the 2-core development machine).

Here a resume restyles unless the screen was already restyled with the very same rules (the
stylesheet's parsed rule list: a new one after any parse, a theme change or a new widget type's
CSS) and has not been covered since. What changes between the two (classes, focus, hover) is
restyled by Textual as it changes, as on any screen that is not resumed.

Nor is a new view restyled as it first comes to the front, if the theme has not changed since
it was composed: each of its widgets was styled as it was mounted, as any widget mounted later
on a screen already shown is, and Textual restyles no widget when another widget type's CSS
arrives. That was the first of the two restyles above (a whole screen, some 40 widgets and
their component classes: the sessions list alone has twenty).
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
    #: Textual's count of CSS invalidations (theme changes) when the screen was made; None
    #: once it has been covered.
    _made_at_css_update: int | None = None

    def _remember_css_update(self) -> None:
        """Called as the screen is made: see :meth:`_on_screen_resume`."""
        self._made_at_css_update = getattr(self.app, "_css_update_count", None)

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        # Runs before Screen's own handler (Textual calls each class's, subclass first), which
        # restyles the screen when the event asks it to.
        if not event.refresh_styles:
            return
        rules = self.app.stylesheet.rules
        if self._restyled_with is rules or self._styled_as_mounted():
            event.refresh_styles = False
        else:
            self._restyled_with = rules

    def _styled_as_mounted(self) -> bool:
        """Never covered since it was made, and no theme change since: its widgets' styles
        are those they were given as they were mounted, with the theme of now."""
        made_at = self._made_at_css_update
        return made_at is not None and made_at == getattr(self.app, "_css_update_count", None)

    def _on_screen_suspend(self) -> None:
        self._restyled_with = None
        self._made_at_css_update = None
