"""What an app writes to its terminal, read as a terminal reads it (ECMA-48, as xterm does):
escape sequences, control characters and text, each a :class:`Token`.

:func:`capture_writes` records every write of a Pilot-driven app as the real terminal would
get it (Textual's headless driver writes nothing: this one keeps what the app hands it,
frames, bell, title and all). :func:`problems` names each token that is not the app's own:
the property tests of the byte gate (tests/ui/test_byte_gate.py) and the terminal journeys
(tests/journeys/test_byte_gate.py) judge the stream with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

#: String sequences by their 7-bit introducer (after ESC) and their 8-bit C1 form.
_STRINGS = {"]": "OSC", "P": "DCS", "X": "SOS", "^": "PM", "_": "APC"}
_STRINGS_8BIT = {"\x9d": "OSC", "\x90": "DCS", "\x98": "SOS", "\x9e": "PM", "\x9f": "APC"}


@dataclass(frozen=True)
class Token:
    """One thing of the stream: ``text`` (printable or not: :func:`problems` looks inside),
    ``C0`` / ``C1`` (one control character), ``ESC`` (an escape that is no CSI or string),
    ``CSI``, or a string sequence (``OSC``, ``DCS``, ``SOS``, ``PM``, ``APC``).
    ``data`` is the whole of it; ``body`` a sequence's inside (parameters, or the string)."""

    kind: str
    data: str
    body: str = ""


def tokens(stream: str) -> Iterator[Token]:
    """The tokens of ``stream``, in order; a sequence cut short by the end is still one."""
    at, end = 0, len(stream)
    text_start = 0

    def flush(upto: int) -> Iterator[Token]:
        if upto > text_start:
            yield Token("text", stream[text_start:upto])

    while at < end:
        char = stream[at]
        code = ord(char)
        if char == "\x1b" or 0x80 <= code <= 0x9F or code < 0x20 or code == 0x7F:
            yield from flush(at)
            token = _sequence_at(stream, at)
            yield token
            at += len(token.data)
            text_start = at
        else:
            at += 1
    yield from flush(end)


def _sequence_at(stream: str, at: int) -> Token:
    char = stream[at]
    if char == "\x1b":
        nxt = stream[at + 1 : at + 2]
        if nxt == "[":
            return _csi(stream, at, at + 2)
        if nxt in _STRINGS and nxt:
            return _string(stream, at, at + 2, _STRINGS[nxt])
        match = re.compile(r"\x1b[\x20-\x2f]*[\x30-\x7e]?").match(stream, at)
        assert match is not None
        return Token("ESC", match.group(), match.group()[1:])
    if char == "\x9b":
        return _csi(stream, at, at + 1)
    if char in _STRINGS_8BIT:
        return _string(stream, at, at + 1, _STRINGS_8BIT[char])
    return Token("C1" if ord(char) >= 0x80 else "C0", char)


_CSI_BODY = re.compile(r"[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?")


def _csi(stream: str, at: int, start: int) -> Token:
    match = _CSI_BODY.match(stream, start)
    assert match is not None
    return Token("CSI", stream[at : match.end()], match.group())


def _string(stream: str, at: int, start: int, kind: str) -> Token:
    """A string sequence ends at ST (ESC \\ or 0x9C), or BEL for OSC (as xterm reads it)."""
    ends = ("\x1b\\", "\x9c", "\x07") if kind == "OSC" else ("\x1b\\", "\x9c")
    found = [(stream.find(e, start), e) for e in ends]
    found = [(i, e) for i, e in found if i >= 0]
    if not found:
        return Token(kind, stream[at:], stream[start:])
    stop, terminator = min(found)
    return Token(kind, stream[at : stop + len(terminator)], stream[start:stop])


# ----------------------------------------------------------------------------- judging

#: The CSI sequences acp-tui writes itself: SGR styles, cursor positions, synchronised
#: output, the title stack (push before its first title, pop at exit).
OWN_CSI = re.compile(r"\x1b\[(?:[0-9;:]*m|[0-9]*;[0-9]*H|\?2026[hl]|2[23];2t)\Z")
#: What Textual's terminal driver writes besides, when it takes the terminal and gives it back:
#: DEC private modes (alternate screen, mouse, focus, bracketed paste, cursor), their queries,
#: the kitty keyboard protocol.
DRIVER_CSI = re.compile(
    r"\x1b\[(?:[0-9;:]*m|[0-9]*;[0-9]*H|\?2026[hl]|2[23];2t|\?[0-9]+[hl]|\?[0-9]+\$p|>[0-9]+u|<u)\Z"
)
#: The OSC sequences acp-tui writes itself: the window title, a desktop notification, and
#: Textual's pointer shape (kitty's protocol, a name).
_OWN_OSC = re.compile(r"(?:2;acp-tui|9;|777;notify;|22;[a-z-]+\Z)")
#: Characters that have no business in text on a terminal: bidi controls, zero-width and
#: other invisible format characters, tag characters, lone surrogates, line separators.
_HIDDEN = re.compile(
    "[\u061c\u180e\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    "\ufeff\ufff9-\ufffb\U000e0000-\U000e007f\ud800-\udfff]"
)


def _text_problem(text: str) -> str | None:
    """Text tokens hold no C0 or C1 control (those are tokens of their own); what else may
    not be in them is what hides or reorders text (``_HIDDEN``)."""
    hidden = _HIDDEN.search(text)
    return None if hidden is None else f"hidden {hidden.group()!r} in text"


_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")


def strip_is_inert(strip: Any) -> bool:
    """Whether a line Textual is about to write (a :class:`textual.strip.Strip`) has nothing
    in its text a terminal would act on or that hides text, and links of printable ASCII."""
    for text, style, _control in strip:
        if _CONTROLS.search(text) or _HIDDEN.search(text):
            return False
        link = style.link if style is not None else None
        if link and not (link.isascii() and link.isprintable()):
            return False
    return True


def problems(writes: Iterable[str], own_csi: re.Pattern[str] = OWN_CSI) -> list[str]:
    """Every token of ``writes`` that is not acp-tui's own, described (empty: all is well).

    A write that is only a bell is the app's bell; text must hide nothing (``_HIDDEN``);
    a control character must be a line end; a sequence must be one the app writes (SGR,
    CUP, synchronised output, the title stack; OSC only for the app's title, desktop
    notifications and pointer shape, and then hiding nothing)."""
    found: list[str] = []
    for write in writes:
        if write == "\x07":
            continue  # the bell, written alone (App.bell, TerminalSignals.bell)
        for token in tokens(write):
            problem = _token_problem(token, own_csi)
            if problem is not None:
                found.append(f"{problem}: {token.data[:80]!r} in {_context(write, token)}")
    return found


def _token_problem(token: Token, own_csi: re.Pattern[str]) -> str | None:
    kind = token.kind
    if kind == "text":
        return _text_problem(token.data)
    if kind == "C0":
        return None if token.data in "\n\r" else "a control character"
    if kind == "CSI":
        return None if own_csi.match(token.data) else "a CSI that is not the app's"
    if kind == "OSC":
        inside = token.data.endswith(("\x07", "\x1b\\")) and _OWN_OSC.match(token.body)
        if inside and _text_problem(token.body) is None:
            return None
        return "an OSC that is not the app's"
    return f"{'an' if kind[0] in 'AEOS' else 'a'} {kind}"


def _context(write: str, token: Token) -> str:
    at = write.find(token.data)
    return repr(write[max(0, at - 60) : at + min(len(token.data), 80) + 20])


def assert_app_own(writes: Iterable[str], what: str = "the terminal") -> None:
    __tracebackhide__ = True
    found = problems(writes)
    if found:
        shown = "\n".join(found[:8])
        pytest.fail(f"{len(found)} foreign sequence(s) reached {what}:\n{shown}")


class Capture:
    """Everything the app wrote, in order (:func:`capture_writes`)."""

    def __init__(self) -> None:
        self.writes: list[str] = []

    def __repr__(self) -> str:
        return f"Capture({len(self.writes)} writes)"

    def since(self, mark: int) -> list[str]:
        return self.writes[mark:]

    @property
    def mark(self) -> int:
        return len(self.writes)


def capture_writes(monkeypatch: pytest.MonkeyPatch) -> Capture:
    """Make Pilot-driven apps write as to a real terminal, into the returned capture: the
    headless driver says it is not headless (so Textual writes its frames, bell and the
    app its window title) and keeps each write."""
    from textual.drivers.headless_driver import HeadlessDriver

    capture = Capture()
    monkeypatch.setattr(HeadlessDriver, "is_headless", property(lambda _self: False))
    monkeypatch.setattr(HeadlessDriver, "write", lambda _self, data: capture.writes.append(data))
    return capture


def join(writes: Iterable[str]) -> str:
    return "".join(writes)


__all__ = [
    "DRIVER_CSI",
    "OWN_CSI",
    "Capture",
    "Token",
    "assert_app_own",
    "capture_writes",
    "join",
    "problems",
    "strip_is_inert",
    "tokens",
]
