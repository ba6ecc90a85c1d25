"""How the chat screen looks, against the deterministic fixture agent (tests/agents).

The screens with the option selects in the bar are drawn with the ``lazy-select`` patch: with
Textual's own select they look the same, but Textual cuts the line into other pieces (the
label's padding without a colour), so the SVG differs."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from acp_tui.ui.widgets.sidebar import SessionsSidebar
from tests.ui.chat_helpers import chat, fixture_app, send, settle, wait_for, wait_for_session

SIZE = (110, 36)


async def _settle(pilot: Pilot) -> None:
    screen = chat(pilot.app)
    screen.query_one("#prompt").text_area.cursor_blink = False  # type: ignore[attr-defined]
    await settle(pilot)


@pytest.mark.textual_patch("lazy-select")
def test_empty_new_session(snap_compare, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A fresh session (Ctrl+N): the header names "Fixture Agent 1.0" and "New session", the
    transcript shows the welcome (the agent, its version, the folder "~" (the test's home),
    three tips and where the keys are), the sessions sidebar on the left says this agent cannot list sessions
    and has no rows ("no sessions yet": a session is listed once it has had a prompt), the
    prompt at the bottom shows its placeholder, and the bar has
    the "Code" mode and "Fast" model selectors and the gauge at "31.4K / 200K · 16%" with the
    cost "$0.05" (each selector as wide as its longest value). The footer lists shift+tab Mode,
    New session, Sessions, Thought, Output and Quit (no Cancel: nothing runs)."""

    async def run_before(pilot: Pilot) -> None:
        screen = await wait_for_session(pilot)
        await wait_for(pilot, lambda: "31.4K" in screen.query_one("#gauge").gauge_line(), "usage")  # type: ignore[attr-defined]
        await _settle(pilot)

    monkeypatch.setenv("HOME", str(tmp_path))  # the folder shown: "~", the same every run
    assert snap_compare(fixture_app(tmp_path), terminal_size=SIZE, run_before=run_before)


@pytest.mark.textual_patch("lazy-select")
def test_finished_conversation_with_diff_and_plan(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """After one turn: the title "Refactor the greeting" in the header and on the highlighted
    sidebar row (with "just now" and 20%); the user message
    "conversation"; the agent's Markdown reply (heading, numbered list, Python code block);
    the "Edit app.py" tool call block marked done with a green edge, its location and a
    unified diff of app.py (one line removed, six added); the plan with two completed
    (struck through), one in progress and one pending entry; and the closing sentence.
    The gauge reads 40.0K / 200K · 20%."""

    async def run_before(pilot: Pilot) -> None:
        screen = await wait_for_session(pilot)
        await send(pilot, "conversation")
        state = screen.store.get(screen.session_id)
        await wait_for(pilot, lambda: state.stop_reason == "end_turn", "the turn")
        await wait_for(pilot, lambda: "40.0K" in screen.query_one("#gauge").gauge_line(), "usage")  # type: ignore[attr-defined]
        await _settle(pilot)

    assert snap_compare(fixture_app(tmp_path), terminal_size=SIZE, run_before=run_before)


@pytest.mark.textual_patch("lazy-select")
def test_running_turn_with_a_queued_message(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A turn in progress: the agent has said "Working on it…", the status line reads
    "● working… 0 s (Esc to cancel)" (the screen's clock held still), the session's sidebar row
    reads "working 0 s" in the busy colour (its clock held too), and above the prompt the
    queue shows one waiting message "and then this" with edit and remove buttons. The footer
    offers "esc Cancel"."""

    async def run_before(pilot: Pilot) -> None:
        screen = await wait_for_session(pilot)
        screen.model.clock = lambda: 1000.0
        await send(pilot, "hang")
        await wait_for(pilot, lambda: screen.busy, "the turn")
        await send(pilot, "and then this")
        await wait_for(pilot, lambda: len(screen.query("QueuedItem")) == 1, "the queue")
        await wait_for(
            pilot,
            lambda: "Working on it" in str(screen.store.get(screen.session_id).transcript[-1].text),
            "text",
        )  # type: ignore[attr-defined]
        # The sidebar's row reads "working 0 s": its clock held at the turn's start.
        started = screen.store.get(screen.session_id).turn_started  # type: ignore[union-attr]
        sidebar = screen.query_one(SessionsSidebar)
        sidebar.session_list.now = lambda: started
        sidebar.session_list.refresh()
        await _settle(pilot)

    assert snap_compare(fixture_app(tmp_path), terminal_size=SIZE, run_before=run_before)
