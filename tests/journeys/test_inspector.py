"""The protocol inspector in a real terminal: one row a message, a filter that finds a prompt
and its answer, and a message opened whole, indented, at 120x40 and 80x24, with the demo
agent and the official SDK's agent."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.journeys.terminal import Terminal, agent_command

AGENTS = {"demo": ["--demo"], "sdk": ["--", *agent_command("sdk_agent.py")]}


@pytest.mark.parametrize(
    ("agent", "size"),
    [("demo", (120, 40)), ("demo", (80, 24)), ("sdk", (120, 40))],
    ids=["demo-120x40", "demo-80x24", "sdk-120x40"],
)
def test_filter_a_prompt_and_open_it_whole(
    terminal: Callable[..., Terminal], agent: str, size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(AGENTS[agent])
    term.wait_header("New session")
    term.send("look at the wire")
    term.wait_for("You said")
    term.wait_still()
    term.press("C-p")
    term.wait_for("Search for commands")
    term.type("Protocol inspector")
    term.wait_for("raw JSON-RPC")
    term.press("Enter")
    term.wait_for("Protocol inspector — in")
    term.wait_for("← session/prompt (result)")  # the last row, highlighted
    term.wait_still()  # the rows have the focus
    term.press("/")
    # The filter has the focus once the footer no longer offers `s` (typing there types it).
    term.wait_until(lambda s: "s Save" not in s.rstrip().splitlines()[-1], "the filter", twice=True)
    term.type("session/prompt")

    def rows(screen: str) -> list[str]:
        return [row for row in screen.splitlines() if " → " in row or " ← " in row]

    # The prompt and its answer, nothing else.
    screen = term.wait_until(lambda s: len(rows(s)) == 2, "two rows", twice=True)
    assert "→ session/prompt" in rows(screen)[0], screen
    assert "← session/prompt (result)" in rows(screen)[1], screen
    term.press("Enter")  # from the filter to the rows (the answer, the last, highlighted)
    # The rows have the focus once the footer offers `s` again: an Up typed before the focus
    # moved would go to the filter (on a busy machine the move can lag the keys).
    term.wait_until(lambda s: "s Save" in s.rstrip().splitlines()[-1], "the rows")
    term.press("Up")
    term.press("Enter")
    screen = term.wait_for('"method": "session/prompt",')
    assert '  "jsonrpc": "2.0",' in screen
    term.press("Enter")
    term.wait_gone('"method": "session/prompt",')
    term.press("Escape")
    term.wait_gone("Protocol inspector — in")
    term.press("C-q")
    assert term.wait_exit() == 0
