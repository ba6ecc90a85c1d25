"""Permission rules in a real terminal: "Always allow this for this project…" in the dialog
makes a rule that answers the next matching request with no dialog, says so in the
transcript, and still does after a restart; the rules screen lists, edits and deletes; against
the demo agent and the official SDK's agent."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal, agent_command

SIZES = pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
DIALOG_ARMED = "1-4 choose"


def rules_text(term: Terminal) -> str:
    path = term.home / "config" / "acp-tui" / "rules.toml"
    return path.read_text() if path.exists() else ""


def save_from_the_dialog(term: Terminal, armed_hint: str) -> None:
    """The dialog, armed: ``a`` opens the editor on a rule for the request; Ctrl+S saves it
    once the editor is armed (its hint says "Ctrl+S save", not "saves in a moment")."""
    term.wait_until(lambda s: armed_hint in s, "the dialog armed")
    term.press("a")
    term.wait_for("Always allow…")
    term.wait_until(lambda s: "Ctrl+S save " in s, "the editor armed")
    term.press("C-s")
    term.wait_gone("Enter next field")


@SIZES
def test_a_rule_from_the_dialog_answers_the_demo_agent_and_survives_a_restart(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(["--demo"])
    term.wait_header("New session")
    term.send("/run echo rule-check")
    term.wait_for("Permission requested")
    save_from_the_dialog(term, DIALOG_ARMED)
    screen = term.wait_for("exited with code 0")
    assert "Allowed by rule: execute `echo" in screen
    assert 'command = "echo rule-check*"' in rules_text(term)
    assert_frame(term, "after the rule answered")
    # The next one like it: no dialog.
    term.send("/run echo rule-check again")
    # Its own audit line (the first may have scrolled away at 80x24; the line wraps anywhere).
    term.wait_until(
        lambda s: (
            "Allowedbyrule" in "".join(s.split())
            and "Run`echorule-checkagain`" in "".join(s.split())
        ),
        "the second audit line",
    )
    assert "Permission requested" not in term.screen()
    term.wait_for("rule-check again")
    assert_frame(term, "after a second turn")
    # A restart: the rule is in the file, and answers again.
    term.press("C-q")
    term.wait_exit()
    term.close()
    term.start(["--demo"])
    term.wait_header("New session")
    term.send("/run echo rule-check after restart")
    term.wait_for("Allowed by rule")
    assert "Permission requested" not in term.screen()
    term.wait_for("exited with code 0")
    assert_frame(term, "after the restart")


@SIZES
def test_always_allow_answers_the_sdk_agent_with_no_second_dialog(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(["--", *agent_command("sdk_agent.py")])
    term.wait_header("New session")
    term.send("needs permission")
    term.wait_for("Permission requested")
    save_from_the_dialog(term, "1-3 choose")
    screen = term.wait_for("outcome: allow")
    assert "Allowed by rule: edit titled" in screen
    term.send("permission again")
    term.wait_until(lambda s: s.count("outcome: allow") >= 2, "the second answer")
    assert "Permission requested" not in term.screen()
    assert_frame(term, "after the second turn")


#: The Command field's cursor (a cell of its own colour) after "make*", then on its "*".
CURSOR_AFTER_STAR = re.compile(r"make\*\x1b\[")
CURSOR_ON_STAR = re.compile(r"make(\x1b\[[0-9;]*m)+\*")


def _wait_coloured(term: Terminal, label: str, pattern: re.Pattern[str], what: str) -> None:
    """Wait until the row holding ``label`` matches ``pattern`` with its colours (a field's
    cursor is a cell of another colour)."""
    term.wait_until(lambda _screen: bool(pattern.search(term.coloured_line(label))), what)


@SIZES
def test_the_rules_screen_edits_and_deletes(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    rules = term.home / "config" / "acp-tui" / "rules.toml"
    rules.parent.mkdir(parents=True, exist_ok=True)
    rules.write_text(
        '[[rule]]\ndecision = "allow"\nkind = "execute"\ncommand = "make*"\n\n'
        '[[rule]]\ndecision = "deny"\nkind = "delete"\n'
    )
    term.start(["--demo"])
    term.wait_header("New session")
    term.press("C-p")
    term.type("Permission rules")
    term.wait_for("The rules that answer")
    term.press("Enter")
    term.wait_for("Last fired")
    screen = term.screen()
    assert "`make*`" in screen and "delete" in screen
    # Edit the first rule's command: Enter goes from Kinds to Command; before its "*", more.
    term.press("e")
    term.wait_for("Edit rule")
    term.wait_until(lambda s: "Ctrl+S save " in s, "the editor armed")
    term.press("Enter")
    # Each key once the one before it shows (CI once lost End and Left under load): the
    # cursor, a cell of its own colour, after "make*", then on its "*".
    _wait_coloured(term, "Command", CURSOR_AFTER_STAR, "the cursor in Command")
    term.press("End", "Left")
    _wait_coloured(term, "Command", CURSOR_ON_STAR, "the cursor on the star")
    term.type(" test")
    term.press("C-s")
    term.wait_for("`make test*`")
    assert 'command = "make test*"' in rules_text(term)
    # Delete it, after the question.
    term.press("d")
    term.wait_for("Delete rule")
    term.wait_until(lambda s: "y Delete" in s, "the question armed")
    term.press("y")
    term.wait_gone("`make test*`")
    assert "make" not in rules_text(term) and 'kind = "delete"' in rules_text(term)
    term.press("Escape")
    term.wait_gone("Last fired")
    assert_frame(term, "after the rules screen")
