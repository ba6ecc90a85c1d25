"""The footer of keys: one widget drawing one line.

Textual's ``Footer`` is a container of ``FooterKey`` widgets, recomposed whenever the screen's
bindings change. Here they change at every turn's start and end (Escape cancels only while a
turn runs), and a recompose mounts and styles a dozen widgets (20-60 ms of CPU on the 2-core
development machine), dirties the bottom row so that the next frame redraws the whole screen
between it and the transcript, and lands where the person types (issue 20's keystrokes). Its
keys also ran under the palette key when they did not fit (a stray ``▏`` and cut labels at
80 columns).

So this footer is one widget: it reads the screen's active bindings when they change, and when
what it would show differs it repaints its one line; it never mounts anything. Keys are laid
out left to right in the screen's order and a key that does not fit is left out whole (never
cut), the command palette's key on the right. A click (or a press) on a key runs it as its key
would, a disabled key rings the bell; the key under the mouse is highlighted and its tooltip
shown. The look follows Textual's footer (its theme variables, ``compact`` for narrow
terminals).

While a dialog is open over the footer's screen, the footer shows the dialog's keys (the app's
own, such as Quit, as the dialog lists none in the footer): the screen's keys below do nothing
then, and a footer offering them (Ctrl+B under a permission dialog) misleads.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widget import Widget

__all__ = ["FooterEntry", "KeyFooter", "PlacedKey"]

#: Drawn at the left edge of the palette's key (Textual's ``vkey`` border).
PALETTE_EDGE = "▏"


@dataclass(frozen=True)
class FooterEntry:
    """One key the footer may show."""

    key: str
    key_display: str
    description: str
    action: str
    enabled: bool
    tooltip: str
    #: The command palette's key, drawn on the right.
    palette: bool = False


@dataclass(frozen=True)
class PlacedKey:
    """A key as drawn: its columns are ``x`` to ``x + width``."""

    entry: FooterEntry
    x: int
    width: int


class KeyFooter(Widget, can_focus=False):
    """The keys of the screen's active bindings on one line (see the module docstring)."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "key-footer--key",
        "key-footer--description",
        "key-footer--edge",
        "key-footer--hover",
    }
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        width: 1fr;
        color: $footer-foreground;
        background: $footer-background;
        .key-footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .key-footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .key-footer--edge {
            color: $foreground 20%;
        }
        .key-footer--hover {
            background: $block-hover-background;
        }
    }
    """

    #: Less space around keys, for narrow terminals.
    compact = reactive(False)
    #: Show the command palette's key on the right.
    show_command_palette = reactive(True)
    #: The index in :attr:`entries` of the key under the mouse, or -1.
    hovered = reactive(-1)

    def __init__(
        self, *, id: str | None = None, compact: bool = False, show_command_palette: bool = True
    ) -> None:
        super().__init__(id=id)
        self.set_reactive(KeyFooter.compact, compact)
        self.set_reactive(KeyFooter.show_command_palette, show_command_palette)
        #: What the footer shows, in order (the palette's key last); read by tests and help.
        self.entries: tuple[FooterEntry, ...] = ()
        #: Where each shown key was drawn at the last paint; keys that did not fit are absent.
        self.placed: tuple[PlacedKey, ...] = ()
        #: The dialog open over this footer's screen, whose keys it shows; None: its own.
        self._dialog: Screen[object] | None = None

    # ------------------------------------------------------------------ what to show

    def on_mount(self) -> None:
        # The keys come with the screen's first bindings signal: asked now, the screen's
        # checks of its actions would look for widgets not mounted yet. (The signal holds its
        # subscribers weakly: nothing to undo at unmount.)
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)
        self.app.screen_change_signal.subscribe(self, self._screen_changed)

    def _keys_screen(self) -> Screen[object]:
        """The screen whose keys work now: a dialog open over this one, or this one."""
        return self._dialog if self._dialog is not None else self.screen

    def _screen_changed(self, top: Screen[object]) -> None:
        if not self.is_attached:
            return
        stack = self.app.screen_stack
        # ``top`` is the stack's last screen: a dialog over this footer's screen, or not.
        over_ours = isinstance(top, ModalScreen) and top is not self.screen and self.screen in stack
        dialog = top if over_ours else None
        if dialog is self._dialog:
            return
        if self._dialog is not None:
            self._dialog.bindings_updated_signal.unsubscribe(self)
        self._dialog = dialog
        if dialog is not None:
            dialog.bindings_updated_signal.subscribe(self, self.bindings_changed)
        self._update_entries()

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self.is_attached and screen is self._keys_screen():
            self._update_entries()

    def watch_show_command_palette(self) -> None:
        if self.is_attached:
            self._update_entries()

    def _update_entries(self) -> None:
        entries = self._collect()
        if entries != self.entries:
            self.entries = entries
            self.hovered = -1
            self.refresh()

    def _collect(self) -> tuple[FooterEntry, ...]:
        """The keys to show: the screen's active bindings marked ``show``, one per action (its
        first key), then the palette's key."""
        app = self.app
        active = self._keys_screen().active_bindings

        def entry(
            binding: Binding, enabled: bool, tooltip: str, palette: bool = False
        ) -> FooterEntry:
            return FooterEntry(
                binding.key,
                app.get_key_display(binding),
                binding.description,
                binding.action,
                enabled,
                tooltip or binding.tooltip or (binding.description if palette else ""),
                palette=palette,
            )

        entries: list[FooterEntry] = []
        actions: set[str] = set()
        for _node, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in actions:
                actions.add(binding.action)
                entries.append(entry(binding, enabled, tooltip))
        palette = active.get(app.COMMAND_PALETTE_BINDING)
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE and palette is not None:
            _node, binding, enabled, tooltip = palette
            entries = [shown for shown in entries if shown.action != binding.action]
            entries.append(entry(binding, enabled, tooltip, palette=True))
        return tuple(entries)

    # ------------------------------------------------------------------ drawing

    def _label(self, entry: FooterEntry) -> tuple[str, str]:
        """The key's two parts as drawn: its key and its description, with their padding."""
        if self.compact:
            return entry.key_display, f" {entry.description}" if entry.description else ""
        key = f" {entry.key_display} "
        return key, f"{entry.description} " if entry.description else ""

    def _width(self, entry: FooterEntry) -> int:
        key, description = self._label(entry)
        return cell_len(key) + cell_len(description)

    def place(self, width: int) -> tuple[PlacedKey, ...]:
        """Where each key goes on a line ``width`` cells wide: from the left in order while
        they fit whole, the palette's key at the right end."""
        gap = 1 if self.compact else 0
        placed: list[PlacedKey] = []
        right = width
        palette = next((entry for entry in self.entries if entry.palette), None)
        if palette is not None:
            palette_width = len(PALETTE_EDGE) + self._width(palette)
            if palette_width <= width:
                right = width - palette_width
                placed.append(PlacedKey(palette, right, palette_width))
        x = 0
        for entry in self.entries:
            if entry.palette:
                continue
            key_width = self._width(entry)
            if x + key_width > right:
                break  # a key is never cut, and the order is kept
            placed.append(PlacedKey(entry, x, key_width))
            x += key_width + gap
        return tuple(sorted(placed, key=lambda place: place.x))

    def render(self) -> Text:
        width = self.size.width
        self.placed = self.place(width)
        key_style = self.get_component_rich_style("key-footer--key")
        description_style = self.get_component_rich_style("key-footer--description")
        edge_style = self.get_component_rich_style("key-footer--edge")
        hover_style = self.get_component_rich_style("key-footer--hover")
        hovered = self.entries[self.hovered] if 0 <= self.hovered < len(self.entries) else None
        line = Text(no_wrap=True, overflow="crop", end="")
        x = 0
        for place in self.placed:
            if place.x > x:
                line.append(" " * (place.x - x))
            entry = place.entry
            over = Style(dim=True) if not entry.enabled else Style()
            if entry is hovered:
                over += hover_style
            if entry.palette:
                line.append(PALETTE_EDGE, edge_style)
            key, description = self._label(entry)
            line.append(key, key_style + over)
            line.append(description, description_style + over)
            x = place.x + place.width
        return line

    def watch_compact(self) -> None:
        self.refresh()

    def watch_hovered(self) -> None:
        self.refresh()

    # ------------------------------------------------------------------ the mouse

    def key_at(self, x: int) -> FooterEntry | None:
        """The key drawn at column ``x``, if any."""
        for place in self.placed:
            if place.x <= x < place.x + place.width:
                return place.entry
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        entry = self.key_at(event.x)
        self.hovered = -1 if entry is None else self.entries.index(entry)
        self.tooltip = (entry.tooltip or None) if entry is not None else None

    def on_leave(self, event: events.Leave) -> None:
        self.hovered = -1
        self.tooltip = None

    def on_mouse_down(self, event: events.MouseDown) -> None:
        entry = self.key_at(event.x)
        if entry is None:
            return
        event.stop()
        if entry.enabled:
            self.app.simulate_key(entry.key)
        else:
            self.app.bell()
