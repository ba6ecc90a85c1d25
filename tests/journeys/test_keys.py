"""Keys from the config file (issue 21): a person remaps "new session" and the sessions sidebar
in ``[keys]``, sees the footer show the new keys, uses them, and finds the old ones inert; a bad
entry is reported at start-up, naming the file, and the rest applies."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal

CONFIG = """\
[keys]
new-session = "ctrl+k"
sessions-sidebar = "f2"
new-sesion = "ctrl+j"
"""


def footer(term: Terminal) -> str:
    return term.lines()[-1]


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_remapped_keys_work_and_the_footer_shows_them(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    config = term.home / "config" / "acp-tui" / "config.toml"
    config.write_text(CONFIG, encoding="utf-8")
    term.start(["--demo"])
    # The mistyped entry is named with its file; the rest applies.
    term.wait_until(
        lambda s: "keys.new-sesion" in s.replace("\n", "") or "new-sesion: unknown" in s,
        "the bad entry reported",
    )
    term.wait_until(lambda s: "^k New session" in s.split("\n")[size[1] - 1], "^k in the footer")
    assert "f2 Sessions" in footer(term)
    assert "^n" not in footer(term) and "^b" not in footer(term)

    term.send("hello there")
    term.wait_for("You said")
    term.wait_header("hello there")
    # The old key is inert now.
    term.press("C-n")
    term.wait_still()
    assert "hello there" in term.lines()[0]
    # The new one makes a new session.
    term.press("C-k")
    term.wait_header("New session")
    assert_frame(term, "after the new session")

    # F2 goes to the sidebar (shown if it was hidden), where the past session is listed.
    term.press("F2")
    term.wait_until(lambda s: "a All dirs" in s.split("\n")[size[1] - 1], "the sidebar's keys")
    term.wait_for("hello there")
    term.press("Enter")
    term.wait_header("hello there")
    # Ctrl+B, the old key, does not go to the sidebar any more.
    term.press("C-b")
    term.wait_still()
    assert "a All dirs" not in footer(term)
    assert_frame(term, "after reopening the session")
