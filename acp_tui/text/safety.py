"""Make text from an agent safe to write to a terminal.

Text from outside (agents relay model output, file contents and command output; file names,
config files, recordings and the clipboard too) may carry escape sequences that move the
cursor, retitle the window, write to the clipboard (OSC 52) or hide text behind bidi overrides
and invisible characters. Everything is shown literally, by one rule for every surface:

- escape sequences (CSI, OSC, DCS/SOS/PM/APC strings and two-character escapes, 7-bit and
  their 8-bit C1 forms) are removed;
- every other C0/C1 control character is removed from text that keeps its lines
  (:func:`sanitize_terminal_text`: newline and tab stay) and shown as its symbol (``␇``) in a
  label (:func:`one_line`: titles, names, paths, every line break a space);
- characters that draw nothing but reorder or hide text (bidi controls, zero-width spaces,
  word joiner, BOM, tag characters, fillers...) are dropped from both; a zero-width joiner
  inside non-ASCII writing (emoji sequences, Persian, Indic scripts) is part of it and stays;
- lone surrogates (valid in JSON, in no encoding) become U+FFFD.

Pure Python, no dependencies: the headless CLI and the UI both use it.
"""

from __future__ import annotations

import re

__all__ = [
    "GrowingSanitizer",
    "clean_cut",
    "encodable",
    "escaped_line",
    "log_text",
    "one_line",
    "sanitize_terminal_text",
    "strip_invisible",
    "truncate",
]

# Order matters: string sequences (which may contain anything up to their terminator) first,
# then CSI, then any other escape followed by one or more intermediate bytes and a final byte.
_ESCAPES = re.compile(
    r"""
      (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])   # OSC, DCS, SOS, PM, APC (7-bit or 8-bit)
      .*?                                       # the string itself (may be empty)
      (?:\x07|\x1b\\|\x9c|\Z)                   # BEL, ST (7-bit or 8-bit), or end of text
    | (?:\x1b\[|\x9b)                           # CSI
      [\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?      # parameters, intermediates, final byte
    | \x1b[\x20-\x2f]*[\x30-\x7e]?              # any other escape (ESC c, ESC ( B, ESC 7 ...)
    """,
    re.VERBOSE | re.DOTALL,
)

# C0 except \t (09) and \n (0a); DEL; C1. Bidi: LRM/RLM, ALM, LRE/RLE/PDF/LRO/RLO, LRI/RLI/FSI/PDI.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]")


#: Lone surrogates: valid in JSON ("\ud800"), in no encoding; a terminal write of one raises.
_SURROGATES = re.compile("[\ud800-\udfff]")
_CONTROLS_OR_SURROGATES = re.compile(_CONTROLS.pattern[:-1] + "\ud800-\udfff]")


def sanitize_terminal_text(text: str) -> str:
    """``text`` without terminal escape sequences, control characters (newline and tab are
    kept) or characters that draw nothing (:func:`strip_invisible`), line and paragraph
    separators as newlines, lone surrogates as U+FFFD. Printable text, including all other
    Unicode, is kept; text with nothing to remove is returned as it is (the same object)."""
    if not text:
        return ""
    if text.isascii() and text.isprintable():  # fast path (isprintable is False for \n, \t)
        return text
    # Every escape sequence starts with a character of _CONTROLS (ESC or a C1 introducer):
    # text with none of them and nothing invisible (newlines and tabs are fine) is returned
    # as it is, after one scan that costs a seventh of the substitution's.
    if _SUSPECTS.search(text) is None:
        return text
    text = strip_invisible(_CONTROLS.sub("", _ESCAPES.sub("", text)))
    return _SURROGATES.sub("\ufffd", text.translate(_SEPARATORS))


def encodable(text: str, encoding: str | None = "utf-8") -> str:
    """``text`` as it can be written in ``encoding`` (a file, a database, stdout): a lone
    surrogate (valid in JSON, in no encoding) becomes U+FFFD, and a character the encoding
    lacks becomes "?". Anything already encodable is returned as it is."""
    if text.isascii():
        return text
    encoding = encoding or "utf-8"
    try:
        text.encode(encoding)
        return text
    except UnicodeEncodeError:
        pass
    except LookupError:
        encoding = "utf-8"
    text = _SURROGATES.sub("\ufffd", text)
    return text.encode(encoding, "replace").decode(encoding)


#: Characters that can start an escape sequence (7-bit ESC and the 8-bit C1 introducers).
_OPENERS = re.compile("[\x1b\x90\x98\x9b\x9d\x9e\x9f]")


class GrowingSanitizer:
    """:func:`sanitize_terminal_text` for text that grows at its end (a streamed reply): each
    call scans only what was added since the last clean point, so a megabyte reply does not
    cost a megabyte of regex work per frame.

    The clean point only moves over text with no escape-sequence introducer, to just after
    an ASCII character: such text ends no sequence and starts none, and a joiner on either
    side of the point has an ASCII neighbour (so it goes, whole or apart), so sanitising it
    apart from what follows gives the same result. After an introducer everything from the
    clean point on is scanned again."""

    def __init__(self) -> None:
        self._raw_clean = ""
        self._clean = ""

    def feed(self, text: str) -> str:
        stable = len(self._raw_clean)
        if not text.startswith(self._raw_clean):
            self._raw_clean = self._clean = ""
            stable = 0
        tail = text[stable:]
        if _OPENERS.search(tail) is None:
            cut = clean_cut(tail)
            if cut:
                self._raw_clean = text[: stable + cut]
                self._clean += sanitize_terminal_text(tail[:cut])
                tail = tail[cut:]
        return self._clean + sanitize_terminal_text(tail)


def clean_cut(text: str) -> int:
    """Where ``text`` may be cut so that sanitising each side apart gives what sanitising it
    whole gives, when it holds no escape-sequence introducer: just after its last ASCII
    character (0 if it has none)."""
    if not text or text[-1].isascii():
        return len(text)
    last = _LAST_ASCII.search(text)
    return 0 if last is None else last.end()


#: Everything a terminal or a text layout would take as the end of a line, besides ``\n``.
_LINE_BREAKS = str.maketrans(dict.fromkeys("\r\v\f\x1c\x1d\x1e\x1f\x85\u2028\u2029", " "))

#: Characters that draw nothing but change or hide what a label says: bidi controls, zero-width
#: spaces and joiners, word joiner and invisible operators, BOM, soft hyphen, combining
#: grapheme joiner, Hangul and Khmer fillers, Mongolian separators, tag characters, the
#: interlinear annotation marks and the deprecated format characters.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f]"
)
_JOINERS = "\u200c\u200d"

#: Line and paragraph separators: in text that keeps its lines, a newline.
_SEPARATORS = str.maketrans(dict.fromkeys("\u2028\u2029", "\n"))
#: Anything :func:`sanitize_terminal_text` would change.
_SUSPECTS = re.compile(
    _CONTROLS_OR_SURROGATES.pattern[:-1] + _INVISIBLE.pattern[1:-1] + "\u2028\u2029]"
)
#: The last ASCII character of a text (searched from its end).
_LAST_ASCII = re.compile("[\x00-\x7f][^\x00-\x7f]*\\Z")

#: A lone control character in a label, shown as its symbol: C0 as U+2400..U+241F, DEL as
#: U+2421, C1 (no symbols of their own) as U+FFFD.
_CONTROL_SYMBOLS = {
    **{code: 0x2400 + code for code in range(0x20)},
    0x7F: 0x2421,
    **{code: 0xFFFD for code in range(0x80, 0xA0)},
}
_LONE_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")


def _keep_joiner(match: re.Match[str]) -> str:
    """A zero-width (non-)joiner between two visible non-ASCII characters is part of the
    writing (emoji sequences, Persian, Indic scripts); anywhere else it only hides."""
    char, text, at = match.group(), match.string, match.start()
    if char not in _JOINERS or at == 0 or at + 1 >= len(text):
        return ""
    before, after = text[at - 1], text[at + 1]
    if before.isascii() or after.isascii():
        return ""
    if _INVISIBLE.match(before) or _INVISIBLE.match(after):
        return ""
    return char


def strip_invisible(text: str) -> str:
    """``text`` without the characters that draw nothing (see ``_INVISIBLE``), bidi controls
    included; joiners inside non-ASCII writing are kept."""
    if text.isascii():
        return text
    return _INVISIBLE.sub(_keep_joiner, text)


def truncate(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters, ending with an ellipsis when cut."""
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


def one_line(text: str, limit: int = 80) -> str:
    """A label: escape sequences removed, every line break and whitespace run folded to one
    space, characters that draw nothing dropped, lone control characters shown as symbols
    (``␇``), cut to ``limit`` characters with an ellipsis."""
    if limit <= 0 or not text:
        return ""
    # A label shows at most ``limit`` characters: looking at a bounded prefix keeps a
    # megabyte title as cheap as a short one (escape sequences may eat some of it).
    scan = limit * 8 + 1024
    cut = len(text) > scan
    if cut:
        text = text[:scan]
    if not (text.isascii() and text.isprintable()):
        text = _ESCAPES.sub("", text.translate(_LINE_BREAKS))
        text = _SURROGATES.sub("\ufffd", strip_invisible(text))
        if _LONE_CONTROLS.search(text) is not None:
            text = text.replace("\t", " ").replace("\n", " ").translate(_CONTROL_SYMBOLS)
    label = " ".join(text.split())
    if cut and len(label) < limit:
        return label + "…"
    return truncate(label, limit)


_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escaped_line(text: str, limit: int = 200) -> str:
    """``text`` for a security decision (a path, a command, an environment variable the
    person is asked to allow): exactly one line, every character that is not printable shown
    as an escape (``\\n``, ``\\x1b``, ``\\u202e``: newlines, controls, bidi and zero-width
    characters, odd spaces, lone surrogates), cut to ``limit`` characters with an ellipsis.

    So a path with newlines and blank lines cannot draw lines of its own ("SAFE: this file is
    inside your project") under the question, nothing is hidden or reordered, and what is
    shown is what the agent sent. Only the first ``limit`` characters are looked at."""
    if limit <= 0:
        return ""
    pieces: list[str] = []
    width = 0
    for char in text:
        piece = char if char.isprintable() else _escape(char)
        pieces.append(piece)
        width += len(piece)
        if width > limit:
            break
    else:
        return "".join(pieces)
    # Too long: whole pieces only (never half an escape), then the ellipsis.
    while pieces and width > limit - 1:
        width -= len(pieces.pop())
    return "".join(pieces) + "…"


def _escape(char: str) -> str:
    named = _NAMED_ESCAPES.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def log_text(text: str) -> str:
    """``text`` for a log file a person may ``cat`` in a terminal: every control, bidi and
    lone surrogate character written as its escape (``\\x1b``, ``\\u202e``), so nothing in it
    acts on the terminal, and nothing is lost either (unlike :func:`sanitize_terminal_text`,
    which drops escape sequences). Newlines and tabs stay."""
    if text.isprintable() or _CONTROLS_OR_SURROGATES.search(text) is None:
        return text
    return _CONTROLS_OR_SURROGATES.sub(lambda match: _escape(match.group()), text)
