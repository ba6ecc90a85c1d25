"""A form filled fast in a real terminal: a name, Tab and an email arrive in one read (a fast
typist, or a paste-like burst), and each lands in its own field."""

from __future__ import annotations

from collections.abc import Callable

from tests.journeys.terminal import Terminal


def test_tab_in_a_burst_moves_to_the_next_field(terminal: Callable[..., Terminal]) -> None:
    term = terminal(80, 24)
    term.start(["--demo"])
    term.wait_header("New session")
    term.send("/ask")
    term.wait_until(lambda s: "Tab next field" in s, "the form, armed")
    term.type("Ada\tbob@example.com")
    term.wait_for("bob@example.com")
    term.press("C-s")
    screen = term.wait_for("Every answer fits the schema")
    assert 'Your name (name): "Ada"' in screen, screen
    assert 'Email (email): "bob@example.com"' in screen, screen
