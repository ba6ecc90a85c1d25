"""Terminal signals written by the app itself: a desktop notification (OSC 9, OSC 777) and the
window title (OSC 2, saved and restored with XTWINOPS 22/23).

What they carry (session titles, agent names) is agent data: :func:`osc_text` makes it one
printable line, so nothing in it can end the sequence early (BEL, ESC, ST, C1) or start
another; in OSC 777 a ``;`` would start the next field, so the title has none.

Pure Python: the UI writes these through Textual's driver.
"""

from __future__ import annotations

from typing import Literal

from acp_tui.text.safety import one_line

__all__ = [
    "DESKTOP_PROTOCOLS",
    "TITLE_POP",
    "TITLE_PUSH",
    "DesktopProtocol",
    "desktop_notification",
    "osc_text",
    "window_title",
]

#: ``osc9``: iTerm2, WezTerm, Ghostty, kitty, Windows Terminal; ``osc777``: foot, rxvt-unicode,
#: Ghostty, WezTerm, VTE terminals with the patch; ``both`` for a terminal of each kind
#: (a terminal that knows both shows two).
DesktopProtocol = Literal["off", "osc9", "osc777", "both"]
DESKTOP_PROTOCOLS: tuple[DesktopProtocol, ...] = ("off", "osc9", "osc777", "both")

#: Save the window title on the terminal's stack / restore it (xterm; others ignore them).
TITLE_PUSH = "\x1b[22;2t"
TITLE_POP = "\x1b[23;2t"

_END = "\x07"
#: The longest title and body sent (a notification is a line, not the transcript).
TITLE_LIMIT = 80
BODY_LIMIT = 200


def osc_text(value: str, limit: int) -> str:
    """``value`` as one printable line of at most ``limit`` characters: escape sequences
    removed, line breaks folded, control characters shown as symbols, nothing left that a
    terminal would read as the end of an OSC string."""
    text = one_line(value, limit)
    if text.isascii() and text.isprintable():
        return text
    return "".join(ch for ch in text if ch.isprintable())


def desktop_notification(title: str, body: str, protocol: DesktopProtocol) -> str:
    """The sequences that ask the terminal for a desktop notification ("" for ``off``)."""
    head = osc_text(title, TITLE_LIMIT)
    text = osc_text(body, BODY_LIMIT)
    out = []
    if protocol in ("osc9", "both"):
        out.append(f"\x1b]9;{head}: {text}{_END}" if head else f"\x1b]9;{text}{_END}")
    if protocol in ("osc777", "both"):
        out.append(f"\x1b]777;notify;{head.replace(';', ',')};{text}{_END}")
    return "".join(out)


def window_title(title: str) -> str:
    """The sequence that sets the terminal window's title."""
    return f"\x1b]2;{osc_text(title, TITLE_LIMIT)}{_END}"
