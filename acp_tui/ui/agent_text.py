"""Agent text as something a widget shows: the one way a string from the agent reaches a surface.

Textual reads a plain ``str`` as content markup almost everywhere (``Static``, ``Label``,
``Select``, ``OptionList``, the command palette's titles and help, notifications): from an agent,
``[/]`` raises and kills the app, ``[@click=app.quit]`` becomes a live action, ``[link=...]`` a
link, and "GPT-5 [beta]" loses its tag. So agent text never travels as a bare ``str`` to a
widget: it goes through one of these functions, which make it inert
(:mod:`acp_tui.text.safety`) and wrap it in a :class:`rich.text.Text` or
:class:`textual.content.Content` built from the plain string, never parsed.

- :func:`agent_line`: one line (titles, names, labels, paths): line breaks folded, control
  characters shown as symbols, invisible characters dropped, cut with an ellipsis.
- :func:`agent_lines`: text that keeps its lines (descriptions, output, error details).
- :func:`agent_content`: :func:`agent_line` as ``Content``, for Textual APIs that take it
  (option lists, the command palette: ``Content.from_markup`` passes a ``Content`` through
  untouched, whereas escaping into a markup string does not survive every backslash).

Notifications need none of this: :meth:`acp_tui.ui.app.AcpTuiApp.notify` shows every ``str``
literally.
"""

from __future__ import annotations

from rich.style import StyleType
from rich.text import Text
from textual.content import Content

from acp_tui.text.safety import one_line, sanitize_terminal_text, truncate

#: The default cut of a one-line label.
LINE_LIMIT = 200
#: The default cut of a multi-line text.
LINES_LIMIT = 10_000


def plain(value: object) -> str:
    """Any wire value as a string (``None`` is empty; numbers and the like their ``str``)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def line_of(value: object, limit: int = LINE_LIMIT) -> str:
    """The characters :func:`agent_line` shows, as a string (for widths, tests, file names)."""
    return one_line(plain(value), limit)


def agent_line(value: object, limit: int = LINE_LIMIT, *, style: StyleType = "") -> Text:
    """One line of agent text, shown literally."""
    return Text(line_of(value, limit), style=style, end="")


def agent_lines(value: object, limit: int = LINES_LIMIT, *, style: StyleType = "") -> Text:
    """Agent text that keeps its line breaks, shown literally (escape sequences and control
    characters removed, cut with an ellipsis)."""
    return Text(truncate(sanitize_terminal_text(plain(value)), limit), style=style, end="")


def agent_content(value: object, limit: int = LINE_LIMIT, *, style: str = "") -> Content:
    """:func:`agent_line` as a :class:`~textual.content.Content` (``style`` may name theme
    variables, e.g. ``"$text-muted"``)."""
    content = Content(line_of(value, limit))
    return content.stylize(style) if style else content
