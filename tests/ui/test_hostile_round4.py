"""Hostile agents, round 4 (issue 36): sizes without bounds, through the real app on the round 4
hostile agent (:mod:`tests.agents.hostile4_agent`), driven with Pilot.

Each test is a class of defect, seen where the person sees it: one agent message of megabytes
with no break in it held the event loop (the turn's clock stood at "0 s", the keys waited).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.screens.elicitation import ElicitationScreen
from acp_tui.ui.textual_patches.select import ClosedSelect
from acp_tui.ui.widgets.chat_bar import ChatBar
from acp_tui.ui.widgets.option_controls import OptionSelect
from acp_tui.ui.widgets.prompt import PromptTextArea
from tests.agents import hostile4_agent as h4
from tests.ui.chat_helpers import (
    agent_app,
    chat,
    record_notifications,
    run_palette_command,
    send,
    settle,
    wait_for,
    wait_for_ready,
    wait_for_session,
)
from tests.ui.test_resilience import SIZE, screen_text

pytestmark = pytest.mark.anyio

AGENT = [sys.executable, str(Path(h4.__file__).resolve())]
ELAPSED = re.compile(r"working… (\d+) s")


def round4_app(cwd: Path, *flags: str) -> AcpTuiApp:
    cwd.mkdir(parents=True, exist_ok=True)
    return agent_app([*AGENT, *flags], cwd, log_dir=cwd / ".logs", notify_when_unfocused=False)


def clock(app: AcpTuiApp) -> int:
    """The seconds on the running turn's clock (-1 when there is none)."""
    found = ELAPSED.search(str(chat(app).query_one("#status").render()))
    return int(found.group(1)) if found else -1


@pytest.mark.timeout(150)
async def test_the_turns_clock_ticks_while_one_huge_word_is_drawn(tmp_path: Path) -> None:
    """5 MB with no space or newline: drawn (its end on screen), and meanwhile the turn's clock
    moves and typed keys reach the prompt. (Before: the event loop was held for hours by the
    wrapping of the word; the clock stood at 0 s.)"""
    app = round4_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "huge-word 5")
        await wait_for(pilot, lambda: clock(app) >= 0, "the turn's clock")
        await wait_for(pilot, lambda: h4.WORD_END in screen_text(app), "the end of the word")
        await wait_for(pilot, lambda: clock(app) >= 2, "two seconds on the turn's clock")
        await pilot.press(*"typed")
        prompt = screen.query_one(PromptTextArea)
        await wait_for(pilot, lambda: prompt.text == "typed", "the keys in the prompt")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, "the turn cancelled")


async def test_a_form_too_big_to_show_is_refused_and_the_person_told(tmp_path: Path) -> None:
    """A form of 5,000 fields took a minute and 1.1 GB to draw. It is refused at once: the
    person reads why in the transcript, the agent gets an error saying so, no dialog opens."""
    app = round4_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "many-fields 5000")
        await wait_for(pilot, lambda: h4.FORM_ANSWER in screen_text(app), "the agent's report")
        text = " ".join(screen_text(app).replace("▕", " ").split())  # the sidebar's edge out
        assert "cannot show: the form has 5,000 fields; acp-tui shows forms of at most 50" in text
        assert '"code": -32602' in text and "5,000 fields" in text.split(h4.FORM_ANSWER)[1]
        assert not isinstance(app.screen, ElicitationScreen)
        assert not screen.busy


def bar_text(app: AcpTuiApp) -> str:
    """What the row of session options says."""
    bar = chat(app).query_one(ChatBar)
    return " ".join(
        _select_value(control) if isinstance(control, OptionSelect) else ""
        for control in bar.controls.values()
        if control.display
    )


def _select_value(control: OptionSelect) -> str:
    """The value a select shows: drawn by the lazy-select patch, or by Textual's own."""
    closed = control.query(ClosedSelect)
    if closed:
        return str(closed.first().render())
    return str(control.query_one("SelectCurrent #label").render())


async def new_session_run(cwd: Path) -> str:
    """A run of the app that sends a message (so a new session is made); what the options
    row said before, and that the session, once made, shows nothing of the old modes."""
    app = round4_app(cwd)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        await settle(pilot)
        shown_before = bar_text(app)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: "You said: hello" in screen_text(app), "the reply")
        await settle(pilot)
        assert screen.session_id is not None
        assert "Stale" not in bar_text(app) and "Stale" not in screen_text(app)
    return shown_before


async def test_a_new_session_shows_what_its_agent_offered_last_not_before(tmp_path: Path) -> None:
    """Before the new session exists, its selectors show what the agent's last new session
    offered. An agent that stopped offering modes left the names of the run before shown
    there for good (what it offered was merged over what was remembered), until it sent modes
    of its own again."""
    (tmp_path / h4.OFFER_FILE).write_text("modes")
    app = round4_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_session(pilot)
        await wait_for(pilot, lambda: "Stale Plan" in bar_text(app), "this run's modes")
    (tmp_path / h4.OFFER_FILE).write_text("nothing")
    await new_session_run(tmp_path)
    shown_before = await new_session_run(tmp_path)
    # The second run after the agent stopped offering them: none before the session either.
    assert "Stale" not in shown_before


async def test_modes_moving_to_a_mode_option_show_one_mode_control(tmp_path: Path) -> None:
    """An agent whose modes become a config option of category mode (in the session, or from
    one run to the next): one mode control, the option's, and no error."""
    (tmp_path / h4.OFFER_FILE).write_text("modes")
    app = round4_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await wait_for(pilot, lambda: "Stale Plan" in bar_text(app), "the modes")
        await send(pilot, "mode-to-config")
        await wait_for(pilot, lambda: h4.MODE_MOVED in screen_text(app), "the change")
        await settle(pilot)
        assert "Fresh Plan" in bar_text(app) and "Stale Plan" not in bar_text(app)
        assert app._exception is None
        assert screen.session_id is not None
    (tmp_path / h4.OFFER_FILE).write_text("config-mode")
    app = round4_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_ready(pilot)
        await settle(pilot)
        # Before the new session exists: what its agent offered last, once.
        assert bar_text(app).count("Plan") == 1, bar_text(app)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: "You said: hello" in screen_text(app), "the reply")
        await settle(pilot)
        assert "Fresh Plan" in bar_text(app) and "Stale" not in bar_text(app)
        assert app._exception is None


async def test_a_fork_answered_with_the_sources_own_id_makes_no_branch(tmp_path: Path) -> None:
    """The agent answered ``session/fork`` with the id of the session branched: that session
    was taken for the branch, retitled "… (branch)". No branch is made: the person is told,
    the session keeps its title and its place."""
    (tmp_path / h4.FORK_FILE).write_text("source")
    app = round4_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        told = record_notifications(app)
        screen = await wait_for_session(pilot)
        source = screen.session_id
        await send(pilot, "plan the trip")
        await wait_for(pilot, lambda: "You said: plan the trip" in screen_text(app), "the reply")
        await settle(pilot)
        await run_palette_command(pilot, "Branch this conversation")
        await wait_for(pilot, lambda: any("own id" in text for text in told), "what went wrong")
        await settle(pilot)
        state = screen.store.get(source or "")
        assert state is not None and "(branch)" not in state.display_title
        assert screen.session_id == source
        assert "(branch)" not in screen_text(app)


async def test_escape_in_a_storm_of_forms_cancels_the_turn_and_all_of_them(
    tmp_path: Path,
) -> None:
    """200 forms at once took 200 Escapes, and the turn could not be cancelled meanwhile (the
    dialog had the Escape). One Escape cancels the turn and every question of it."""
    app = round4_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "form-storm 200")
        await wait_for(pilot, lambda: isinstance(app.screen, ElicitationScreen), "the first form")
        await pilot.press("escape")
        await wait_for(pilot, lambda: h4.STORM_ANSWERS in screen_text(app), "the agent's count")
        await settle(pilot)
        assert "cancel: 200" in screen_text(app)
        assert not isinstance(app.screen, ElicitationScreen)
        assert not screen.busy
        state = screen.store.get(screen.session_id or "")
        assert state is not None and state.stop_reason == "cancelled"
