"""Attach an image, branch, rename and archive with the demo agent, as a person does it: keys
in a real terminal, judged by what the screen shows."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal
from tests.test_attachments import PNG


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_an_image_reaches_the_agent_and_shows_as_a_chip(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    (term.home / "shot.png").write_bytes(PNG)
    term.start(["--demo"], cwd=term.home)
    term.wait_header("New session")
    term.send("/image @shot.png please")
    # The agent read the image: its type, its bytes and its size from the PNG header.
    screen = term.wait_for("2×3 pixels")
    assert "an image: image/png, 33 bytes" in screen
    # The message shows the attachment as a chip, never its data.
    assert " image  shot.png · image/png · 33 B" in screen
    assert "iVBORw0KGgo" not in screen  # the PNG signature in base64
    assert_frame(term, "after the reply")


def test_branch_rename_and_archive_and_the_title_survives_a_restart(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal(120, 40)
    term.start(["--demo"], cwd=term.home)
    term.wait_header("New session")
    term.send("plan the trip")
    term.wait_for("You said")
    # Branch from the palette: the branch opens, named after the conversation.
    term.press("C-p")
    term.wait_for("Search for commands")
    term.type("branch this")
    term.wait_for("Branch this conversation")
    term.press("Enter")
    term.wait_header("plan the trip (branch)")
    term.wait_for("this is the branch")
    # Rename it from the sidebar.
    term.press("C-b")
    term.wait_until(lambda s: "b Branch" in s and "e Rename" in s, "the sidebar's keys")
    term.press("e")
    term.wait_for("Rename session")
    term.type("Trip B")  # replaces the title shown (it is selected)
    # Enter saves once the dialog has armed again after the typing (its hint says so).
    term.wait_until(
        lambda s: "Enter save " in s and "in a moment" not in s and "Trip B" in s, "armed"
    )
    term.press("Enter")
    term.wait_header("Trip B")
    term.wait_for("Renamed: “Trip B”")
    # Archive the original (the second row) and find it among the archived.
    term.press("Down", "x")
    term.wait_for("Archived “plan the trip”")
    term.wait_until(lambda s: "Sessions · this folder (1)" in s, "one session left")
    term.press("X")
    screen = term.wait_for("Archived · this folder (1)")
    assert "plan the trip" in screen.split("\n")[4]
    term.press("X")
    term.wait_for("Sessions · this folder (1)")
    assert_frame(term, "after archiving")
    term.press("C-q")
    assert term.wait_exit() == 0
    # A new run: the name stays (the demo agent stored it with session/set_title).
    again = terminal(120, 40)
    again.home = term.home
    again.env.update(term.env)
    again.start(["--demo"], cwd=term.home)
    again.wait_header("New session")
    again.wait_until(
        lambda s: "Trip B" in s and "Sessions · this folder (1)" in s, "the renamed session listed"
    )
