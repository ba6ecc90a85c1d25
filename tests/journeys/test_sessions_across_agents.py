"""One session browser across agents (issue 19), in a real terminal: the demo agent on
screen, a configured agent (the official-SDK test agent) asked for from the palette ("Show
sessions of: sdk"), both agents' sessions in one list marked with their agent, the ``@agent``
filter, the list again at 80x24 (Ctrl+B: it gave way under 100 columns), and both agents
stopped on quit."""

from __future__ import annotations

import json
from collections.abc import Callable

from tests.journeys.frame import assert_frame, frame_problems
from tests.journeys.terminal import Terminal, agent_command


def test_sessions_of_a_second_agent_join_the_list(terminal: Callable[..., Terminal]) -> None:
    term = terminal(120, 40)
    sdk = agent_command("sdk_agent.py")
    config = term.home / "config" / "acp-tui" / "config.toml"
    config.write_text(
        f"[agents.sdk]\ncommand = {json.dumps(sdk[0])}\nargs = {json.dumps(sdk[1:])}\n"
    )
    term.start(["--demo"])
    term.wait_header("New session")
    term.send("hello from the journey")
    term.wait_for("You said")
    term.press("C-p")
    term.type("Show sessions of")
    term.wait_for("Show sessions of: sdk")
    term.press("Enter")
    # Its three sessions (2025) under the demo session (just now), each marked "sdk". The SDK
    # agent lists two sessions a page, and the list shows each page as it comes ("(3+)" until
    # the last one): wait for the whole list, not for the first title.
    titles = ("Write docs", "Fix red bug␇ now", "Refactor the parser")
    screen = term.wait_until(
        lambda s: "Sessions · this folder (4)" in s and all(title in s for title in titles),
        "both agents' four sessions",
    )
    assert "sdk 3 Jan 2025" in screen
    assert "demo agent just now" in screen
    lines = screen.splitlines()
    order = [
        next(i for i, line in enumerate(lines) if text in line)
        for text in ("hello from the journey", "Write docs", "Fix red bug", "Refactor the parser")
    ]
    assert order == sorted(order)
    assert_frame(term, "with both agents listed")

    term.press("C-b")
    term.press("/")
    term.type("@sdk")
    term.wait_until(
        lambda s: "Matches in this folder: 3" in s and "demo agent just now" not in s,
        "only the SDK agent's sessions",
        twice=True,
    )
    term.press("Escape")
    term.wait_for("Sessions · this folder (4)")

    # Under 100 columns the sidebar, shown by the width, gives way; Ctrl+B brings it back.
    term.resize(80, 24)
    term.wait_gone("Sessions · this folder")
    term.press("C-b")
    screen = term.wait_for("sdk 3 Jan 2025")
    assert "demo agent just now" in screen
    term.wait_until(lambda s: not frame_problems(term), "the 80x24 frame")
    term.press("C-q")
    assert term.wait_exit() == 0


def test_configured_names_that_look_like_markup_are_shown_as_written(
    terminal: Callable[..., Terminal],
) -> None:
    """Agents configured under names Textual would read as markup: the palette's "Show
    sessions of" shows each as written (not bold, no live action), and the sidebar marks
    the sessions of the one chosen with its name as written."""
    term = terminal(80, 24)
    sdk = agent_command("sdk_agent.py")
    config = term.home / "config" / "acp-tui" / "config.toml"
    names = ["[b]bold[/b]", "[@click=app.quit]q[/]"]
    config.write_text(
        "".join(
            f"[agents.{json.dumps(name)}]\ncommand = {json.dumps(sdk[0])}\n"
            f"args = {json.dumps(sdk[1:])}\n\n"
            for name in names
        )
    )
    term.start(["--demo"])
    term.wait_header("New session")
    term.press("C-p")
    term.type("Show sessions of")
    screen = term.wait_for("Show sessions of: [b]bold[/b]")
    assert "Show sessions of: [@click=app.quit]q[/]" in screen
    term.type(": [b]bold")
    term.wait_gone("[@click=app.quit]q[/]")
    term.press("Enter")
    # Its sessions join the list, each marked with the name as written.
    term.wait_for("[b]bold[/b] 3 Jan 2025")
    assert term.exited() is None
