"""Lines of a file's text, numbered as the file numbers them."""

from __future__ import annotations

__all__ = ["split_lines"]


def split_lines(text: str | None) -> list[str]:
    """The lines of a file's text: split on ``\n`` only, as the file's own line numbers count
    them (``str.splitlines`` would also split on ``\r``, form feeds, U+2028 and U+2029, and
    number every line after one of those wrongly). A final newline ends the last line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines
