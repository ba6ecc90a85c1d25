"""Review before the write lands, in a real terminal (issue 40): with --review-writes the
demo agent's /rewrite (120x40) and the official SDK agent's write (80x24) open the review;
one hunk rejected leaves exactly the others on disk and the agent says the documented words
it received; Escape rejects the whole write; Ctrl+P turns review off and the next write
lands at once."""

from __future__ import annotations

from collections.abc import Callable

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal, agent_command

LINES = "".join(f"line {number}\n" for number in range(1, 31))
REVIEW = "only what you keep is written"
ARMED = "e edit hunk"


def flat(screen: str) -> str:
    return "".join(screen.split())


def test_one_hunk_rejected_with_the_demo_agent(terminal: Callable[..., Terminal]) -> None:
    term = terminal(120, 40)
    target = term.home / "review.txt"
    target.write_text(LINES)
    term.start(["--demo", "--review-writes"])
    term.wait_header("New session")
    term.wait_for("review writes")  # the header's mark
    term.send("/rewrite review.txt")
    term.wait_for(REVIEW)
    term.wait_for(ARMED)
    assert target.read_text() == LINES  # nothing written before the review
    term.press("Enter")  # to the hunks
    term.wait_still()
    term.press("Down")
    term.wait_still()
    term.press("Space")  # the second hunk left out
    term.wait_for("□ left out")
    term.press("y")
    term.wait_until(
        lambda s: "rejectedhunks2of3" in flat(s), "the agent's account of what was written"
    )
    text = target.read_text()
    assert "line 1 (revised" in text and "line 21 (revised" in text
    assert "line 11 (revised" not in text
    assert_frame(term, "after the review")


def test_rejected_then_unreviewed_with_the_sdk_agent(terminal: Callable[..., Terminal]) -> None:
    term = terminal(80, 24)
    target = term.home / "sdk-review.txt"
    target.write_text(LINES)
    term.start(["--review-writes", "--", *agent_command("sdk_agent.py")])
    term.wait_header("New session")
    term.send("rewritefile")
    term.wait_for(REVIEW)
    term.wait_for(ARMED)
    term.press("Escape")
    term.wait_until(lambda s: "Theuserrejectedthiswrite" in flat(s), "the rejection")
    assert target.read_text() == LINES
    # Review off for this session: the next write lands at once.
    term.press("C-p")
    term.type("Review writes")
    term.wait_for("Review writes: on")
    term.press("Enter")
    term.wait_gone("review writes")
    term.send("rewritefile again")
    term.wait_for("write ok")
    assert "revised by the sdk agent" in target.read_text()
    assert_frame(term, "after the second write")


def test_a_hunk_edited_in_the_editor_lands_as_edited(terminal: Callable[..., Terminal]) -> None:
    term = terminal(80, 24)
    target = term.home / "review.txt"
    target.write_text(LINES)
    editor = term.home / "editor.sh"
    editor.write_text(
        "#!/bin/sh\nsed -i 's/line 11 (revised by the demo agent)/line eleven by sed/' \"$1\"\n"
        f"touch {term.home / 'edited'}\n"
    )
    editor.chmod(0o755)
    term.start(["--demo", "--review-writes"], env={"EDITOR": str(editor), "VISUAL": ""})
    term.wait_header("New session")
    term.send("/rewrite review.txt")
    term.wait_for(REVIEW)
    term.wait_for("e edit hunk")  # armed
    term.press("Enter")  # to the hunks
    term.wait_still()
    term.press("Down")
    term.wait_still()
    term.press("e")  # the editor runs, the app suspended, then the review again
    term.wait_until(lambda s: (term.home / "edited").exists(), "the editor ran")
    term.wait_for("e edit hunk")  # the review is back
    term.wait_still()
    term.press("y")
    # The agent's account ends with the diff from what it sent to the file now.
    term.wait_for("+line eleven by sed")
    text = target.read_text()
    assert "line eleven by sed\n" in text and "line 1 (revised" in text
    assert_frame(term, "after the edited write")
