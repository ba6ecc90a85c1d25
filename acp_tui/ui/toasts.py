"""Toasts stay short: one or two lines, so they never stand in front of what they are about
for long. Whatever needs more room goes in the transcript or a panel; a toast only points at it.
"""

from __future__ import annotations

from acp_tui.text.safety import sanitize_terminal_text, truncate

__all__ = [
    "PROBLEMS_ENTRY",
    "TOAST_CHARS",
    "TOAST_LINES",
    "about_session",
    "problems_toast",
    "shortened",
    "toast_text",
]

#: At most this many lines of text in a toast...
TOAST_LINES = 2
#: ...and this many characters in all (a toast is about 56 cells wide).
TOAST_CHARS = 100


def toast_text(message: str) -> str:
    """``message`` made inert and cut to :data:`TOAST_LINES` lines and :data:`TOAST_CHARS`
    characters, with an ellipsis where it was cut. Blank lines are dropped."""
    lines = [line.strip() for line in sanitize_terminal_text(message).splitlines()]
    lines = [line for line in lines if line]
    kept = lines[:TOAST_LINES]
    text = "\n".join(kept)
    cut = len(lines) > TOAST_LINES
    if len(text) > TOAST_CHARS:
        return truncate(text, TOAST_CHARS)
    return text + "…" if cut else text


def shortened(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters, cut at a word's end, with an ellipsis: a
    name stays readable words, never a word broken in its middle (unless its first word alone
    is too long)."""
    if len(text) <= limit:
        return text
    head = text[: max(1, limit - 1)]
    if text[len(head)] != " ":
        space = head.rfind(" ")
        if space > 0:
            head = head[:space]
    return head.rstrip(" ,;:-–—(") + "…"


#: The most a session's title and its agent's name may take of a toast about the session.
AGENT_IN_TOAST = 24


def about_session(title: str, agent: str, tail: str) -> str:
    """``“title” (agent) tail`` within :data:`TOAST_CHARS`, so that :func:`toast_text` never
    cuts it: what happened and the key to press (``tail``) always read whole, and the title
    and the agent's name are shortened at a word's end to fit beside it."""
    agent = shortened(agent, AGENT_IN_TOAST)
    room = TOAST_CHARS - len(tail) - len(agent) - len("“” () ")
    return f"“{shortened(title, max(12, room))}” ({agent}) {tail}"


#: What the palette calls the list of the configuration's problems.
PROBLEMS_ENTRY = "Configuration problems"


def problems_toast(problems: list[str], palette_key: str) -> str:
    """One toast for the configuration's problems, however many: the first, cut to a line,
    and how many there are and where they are listed whole (the palette's
    :data:`PROBLEMS_ENTRY`). A single short one is said whole. At 80x24, ten toasts of 20 s
    stood over half the screen."""
    first = _file_name_first(" ".join(sanitize_terminal_text(problems[0]).split()))
    where = f"{palette_key} → {PROBLEMS_ENTRY}"
    if len(problems) == 1 and len(first) <= TOAST_CHARS:
        return first
    count = f"{len(problems)} problems" if len(problems) > 1 else "The whole of it"
    return f"{shortened(first, 70)}\n{count}: {where}"


def _file_name_first(problem: str) -> str:
    """``problem`` with a leading ``/a/long/path/config.toml: `` said as ``config.toml: ``,
    so the problem itself (the key, what is wrong) fits the toast's line; the palette's
    list keeps the whole path."""
    head, sep, rest = problem.partition(": ")
    if sep and "/" in head and " " not in head:
        return f"{head.rsplit('/', 1)[-1]}: {rest}"
    return problem
