"""What every chat screen must show, read from the terminal's text: the header on top, the
prompt's bottom border, the bar with the gauge and the footer at the bottom, and no scrollbar of
the screen itself."""

from __future__ import annotations

import itertools

from tests.journeys.terminal import Terminal

#: Seconds a frame may take to be seen whole.
FRAME_TIMEOUT = 5.0


def frame_problems(term: Terminal, *, own_status: bool = False) -> list[str]:
    """What is missing from the chat screen's frame (empty when all is there); with
    ``own_status``, your status line is the row between the bar and the footer."""
    rows = term.lines()
    rows += [""] * (term.rows - len(rows))
    if own_status:
        if not rows[-2].strip():
            return ["your status line (above the footer) is empty"]
        rows = rows[:-2] + rows[-1:]  # the frame is otherwise the same
    problems = []
    if not rows[0].strip():
        problems.append("the header row is empty")
    if "palette" not in rows[-1]:
        problems.append("the footer is not on the last row")
    elif len(rows[-1].rstrip()) < term.cols - 1:
        # The palette key is docked right: the footer reaches the last column.
        problems.append(f"the app draws narrower than the terminal's {term.cols} columns")
    if "/ 200K" not in rows[-2] and "context: -" not in rows[-2]:
        problems.append("the gauge is not on the row above the footer")
    # Right above the bar, or above the agent's suggestions (a row right above the bar).
    suggested = "Suggested (Tab)" in rows[-3]
    if "▁▁▁" not in rows[-4 if suggested else -3]:
        problems.append("the prompt's bottom border is not right above the bar")
    if any("▇▇" in row for row in rows):
        problems.append("a screen-level scrollbar shows")
    return problems


def assert_frame(term: Terminal, when: str, *, own_status: bool = False) -> None:
    """The frame is whole, on one of the captures of the next few seconds: tmux (3.3) keeps
    no frame whole, so one capture can catch a frame half drawn (or a toast passing over the
    bar); a frame that stays broken fails, with its problems and the screen."""
    problems: list[str] = []

    def whole(_: str) -> bool:
        problems[:] = frame_problems(term, own_status=own_status)
        return not problems

    try:
        term.wait_until(whole, "a whole frame", timeout=FRAME_TIMEOUT)
    except AssertionError:
        raise AssertionError(
            f"{when}: {'; '.join(problems)}; the screen:\n{term.screen()}"
        ) from None


def prompt_text(term: Terminal) -> str:
    """The first line of text in the prompt (the row between its borders)."""
    rows = term.lines()
    for above, row in itertools.pairwise(rows):
        if "▔▔▔" in above and "▊" in row:
            return row.split("▊", 1)[1].rstrip(" ▎").strip()
    raise AssertionError(f"no prompt on the screen:\n{term.screen()}")
