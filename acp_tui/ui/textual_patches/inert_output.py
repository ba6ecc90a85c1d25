"""The last gate before the terminal: a line of the screen cannot carry a control character.

Text from outside is made inert where a widget gets it (:mod:`acp_tui.ui.agent_text`,
:mod:`acp_tui.text.safety`): the first gate. This is the second, for a widget that forgets:
Textual turns every line it draws into terminal output in one place,
:meth:`textual.strip.Strip.render` (styles become SGR sequences, links OSC 8, the text is
written as it is). Here that step first drops from the text every C0 and C1 control character
(ESC, BEL, the CSI and OSC introducers...), bidi control and zero-width format character, and
writes a lone surrogate as U+FFFD; a link target keeps printable ASCII only (the rest
percent-encoded). Rich counts each of these characters as zero cells (a surrogate as one, like
U+FFFD), so the line keeps its layout.

The app's own sequences are untouched: they are not text of a line (cursor moves, SGR styles,
synchronised output, the window title, the bell, OSC 52 copies are written beside the lines,
and a link is the style's, rebuilt by Textual from the cleaned target). A line with nothing to
clean is rendered by Textual's own code, unchanged, and renders once (Textual caches it).

It reads Textual's private ``Strip._segments`` and ``_render_cache`` and a style's ``_link``,
and replaces ``Strip.render`` for the process. Switch: ``inert-output``; with it off the first
gate holds alone (tests/ui/test_byte_gate.py runs both ways).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote

from rich.console import Console
from rich.segment import Segment
from textual.strip import Strip

__all__ = ["inert_link", "inert_text", "install", "installed", "uninstall"]

#: What the terminal must never get inside a line: C0 and C1 controls, DEL, bidi controls,
#: zero-width format characters, tag characters (all zero cells to Rich), lone surrogates.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u180e\u200b\u200e\u200f\u2028\u2029\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f\ud800-\udfff]"
)
#: What an OSC 8 link target may not hold as it is: anything but printable ASCII.
_UNSAFE_LINK = re.compile("[^\x20-\x7e]")


def _replace(match: re.Match[str]) -> str:
    return "\ufffd" if "\ud800" <= match.group() <= "\udfff" else ""


def inert_text(text: str) -> str:
    """``text`` with nothing a terminal would act on (see ``_UNSAFE``); the same cells."""
    if text.isprintable() or _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_replace, text)


def inert_link(link: str) -> str:
    """A link target as printable ASCII: anything else percent-encoded."""
    if _UNSAFE_LINK.search(link) is None:
        return link
    return _UNSAFE_LINK.sub(lambda match: quote(match.group(), safe="", errors="replace"), link)


def _is_inert(strip: Strip) -> bool:
    for text, style, _control in strip._segments:
        if not text.isprintable() and _UNSAFE.search(text) is not None:
            return False
        if style is not None and style._link and _UNSAFE_LINK.search(style._link) is not None:
            return False
    return True


def _inert_copy(strip: Strip) -> Strip:
    segments = []
    for text, style, control in strip._segments:
        if style is not None and style._link:
            style = style.update_link(inert_link(style._link))
        segments.append(Segment(inert_text(text), style, control))
    return Strip(segments, strip.cell_length)


_textual_render: Callable[[Strip, Console], str] | None = None


def _render(self: Strip, console: Console) -> str:
    """:meth:`Strip.render` of the line's inert form (the line itself when it is inert)."""
    original = _textual_render
    assert original is not None
    if self._render_cache is None and not _is_inert(self):
        self._render_cache = original(_inert_copy(self), console)
    return original(self, console)


def install() -> None:
    """Route every line Textual draws through the gate (once per process)."""
    global _textual_render
    if _textual_render is None:
        _textual_render = Strip.render
        Strip.render = _render  # type: ignore[method-assign]


def uninstall() -> None:
    """Textual's own :meth:`Strip.render` again (tests of the first gate alone)."""
    global _textual_render
    if _textual_render is not None:
        Strip.render = _textual_render  # type: ignore[method-assign,assignment]
        _textual_render = None


def installed() -> bool:
    return _textual_render is not None
