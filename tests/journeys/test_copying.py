"""Copying out of the transcript in a real terminal (tmux keeps what the app sends to the
clipboard, OSC 52, as a paste buffer): a click on a code block copies its code with its long
line whole, Ctrl+Y the last reply, and a mouse selection over a wrapped reply, then Ctrl+C,
the text the agent sent, with no line break at the wraps and no quote bar."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from tests.journeys.terminal import Terminal, agent_command

LONG_LINE = "x" * 38 + "-" + "y" * 90
WORDS = " ".join(f"word{n:02d}" for n in range(24))


def clipboard(term: Terminal) -> str:
    result = term._tmux("show-buffer", check=False)
    return result.stdout if result.returncode == 0 else ""


def wait_clipboard(term: Terminal, expected: str) -> None:
    try:
        term.wait_until(lambda _screen: clipboard(term) == expected, f"{expected!r} copied")
    except AssertionError as error:
        raise AssertionError(f"the clipboard holds {clipboard(term)!r}\n{error}") from None


def drag(term: Terminal, start: tuple[int, int], end: tuple[int, int]) -> None:
    """A left-button drag from ``start`` to ``end`` (0-based column, row), as SGR reports,
    at a hand's pace (a press, a move, a release: each a moment apart)."""
    (x0, y0), (x1, y1) = start, end
    for report in (f"<0;{x0 + 1};{y0 + 1}M", f"<32;{x1 + 1};{y1 + 1}M", f"<0;{x1 + 1};{y1 + 1}m"):
        term._tmux("send-keys", "-t", term.target, "-l", f"\x1b[{report}")
        time.sleep(0.05)


def start(term: Terminal, args: list[str]) -> None:
    term.start(args)
    term._tmux("set", "-g", "set-clipboard", "on")
    term.wait_header("New session")


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_copy_a_code_block_the_reply_and_a_selection(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    start(term, ["--demo", "--yolo"])
    term.send(f"/run echo {LONG_LINE}")
    term.wait_for("lines:")  # "The last lines:", the code block after it ends the reply
    term.wait_gone("working…")
    screen = term.wait_still()
    # The code block's last row: the last row of the long line on screen.
    rows = screen.splitlines()
    code_row = max(i for i, row in enumerate(rows) if "yyy" in row)
    term.click(rows[code_row].index("y") + 1, code_row)
    term.wait_for("Copied the code block (1 line)")
    wait_clipboard(term, LONG_LINE)
    term.press("C-y")
    term.wait_for("Copied the last reply")
    term.wait_until(
        lambda _s: clipboard(term).startswith(f"`echo {LONG_LINE}` exited with code 0."),
        "the reply copied",
    )
    # The demo agent quotes a message back: a quote that wraps.
    term.send(WORDS)
    term.wait_for("You said (24 words")
    term.wait_gone("working…")
    screen = term.wait_still()
    rows = screen.splitlines()
    quoted = [i for i, row in enumerate(rows) if "▌ word" in row]
    assert len(quoted) > 1, screen
    first, last = quoted[0], quoted[-1]
    # Onto its last character, found by its word: a toast may cover the row's right end.
    drag(term, (rows[first].index("word00"), first), (rows[last].index("word23") + 5, last))
    term.press("C-c")
    wait_clipboard(term, f"> {WORDS}")  # the quote as sent, from its start: one line
    term.press("C-q")
    assert term.wait_exit() == 0


def test_copy_a_wrapped_reply_of_the_sdk_agent(terminal: Callable[..., Terminal]) -> None:
    term = terminal(80, 24)
    start(term, ["--", *agent_command("sdk_agent.py")])
    term.send(WORDS)
    term.wait_for("You said: word00")
    term.wait_gone("working…")
    screen = term.wait_still()
    rows = screen.splitlines()
    first = next(i for i, row in enumerate(rows) if "You said: word00" in row)
    last = next(i for i, row in enumerate(rows) if "word23" in row and i >= first)
    assert last > first, screen
    drag(
        term,
        (rows[first].index("You said"), first),
        (rows[last].index("word23") + 5, last),  # onto its last character
    )
    term.press("C-c")
    wait_clipboard(term, f"You said: {WORDS}")
