"""The footer of keys, rebuilt only when what it shows changes.

Textual's Footer rebuilds all its keys after every change of the screen's bindings: each
focus move, each ``refresh_bindings`` (the chat screen refreshes them as its state changes).
Most of those leave the keys as they were, and a rebuild is the costliest thing an app start
does (a widget and two styled parts per key: about 70% of the stylesheet's work up to the
agent being ready). This footer compares what it would show with what it shows, and rebuilds
only on a difference.
"""

from __future__ import annotations

from collections.abc import Hashable

from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    """A :class:`~textual.widgets.Footer` that skips rebuilds which would change nothing."""

    def __init__(self, *, id: str | None = None, compact: bool = False) -> None:
        super().__init__(id=id, compact=compact)
        #: What the keys shown were built from; None until they are first built.
        self._shown: Hashable | None = None

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._rebuild_if_changed)

    async def _rebuild_if_changed(self) -> None:
        if not self.is_attached:
            return
        shown = self._what_to_show()
        if shown == self._shown:
            return
        self._shown = shown
        await self.recompose()

    def _what_to_show(self) -> Hashable:
        """Everything :meth:`Footer.compose` reads: the keys shown (key, its label, words,
        action, enabled, tooltip, group), the palette's key, and whether it is shown."""
        app = self.app
        active = self.screen.active_bindings
        keys = tuple(
            (
                binding.key,
                app.get_key_display(binding),
                binding.description,
                binding.action,
                enabled,
                tooltip,
                None
                if binding.group is None
                else (binding.group.description, binding.group.compact),
            )
            for _node, binding, enabled, tooltip in active.values()
            if binding.show
        )
        palette = active.get(app.COMMAND_PALETTE_BINDING)
        palette_key = (
            None
            if palette is None
            else (
                palette[1].key,
                app.get_key_display(palette[1]),
                palette[1].description,
                palette[1].action,
                palette[2],
                palette[1].tooltip,
            )
        )
        return keys, palette_key, self.show_command_palette, app.ENABLE_COMMAND_PALETTE
