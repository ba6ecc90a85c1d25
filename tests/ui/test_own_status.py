"""Your status line (issue 42) in the app: the items chosen in the config and the status
command's line under the prompt's bar, updated as the session changes; a failing command is a
short dim note; the command's output is drawn literally; nothing is configured, nothing shows;
and at 80x24 the line takes one row and pushes nothing off the screen."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import pytest
from textual.pilot import Pilot

from acp_tui.session.status.settings import StatusLineSettings
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.widgets.key_footer import KeyFooter
from acp_tui.ui.widgets.own_status import OwnStatusLine
from acp_tui.ui.widgets.prompt import PromptEditor
from tests.ui.chat_helpers import chat, fixture_app, send, settle, wait_for, wait_for_session

pytestmark = pytest.mark.anyio

SIZES = [(120, 40), (80, 24)]
IDS = [f"{w}x{h}" for w, h in SIZES]

#: A status command for the tests: the turn count and the mode from its JSON, where it ran,
#: and every state it was given (one JSON per line) kept in a file.
SCRIPT = """\
import json, os, sys
raw = sys.stdin.read()
with open(sys.argv[1], "a") as seen:
    seen.write(raw)
state = json.loads(raw)
mode = state["mode"]["name"] if state["mode"] else "-"
print(f"turns={state['turn']['count']} mode={mode} in={os.path.basename(os.getcwd())}")
"""


def status_script(tmp_path: Path, body: str = SCRIPT) -> tuple[str, Path]:
    script = tmp_path / "status_script.py"
    script.write_text(body)
    seen = tmp_path / "status-seen.jsonl"
    return f"{sys.executable} {script} {seen}", seen


def own_line(screen: ChatScreen) -> OwnStatusLine:
    return screen.query_one(OwnStatusLine)


def shown(screen: ChatScreen) -> str:
    return own_line(screen).plain


def row_text(pilot: Pilot, row: int) -> str:
    return pilot.app.screen._compositor.render_strips()[row].text


def assert_fits(screen: ChatScreen) -> None:
    """The frame whole: the prompt, the bar, your status line and the footer each on screen,
    one under the other, the footer on the last row."""
    width, height = screen.size
    prompt = screen.query_one(PromptEditor).region
    bar = screen.query_one("#bar").region
    own = own_line(screen).region
    footer = screen.query_one(KeyFooter).region
    assert prompt.height >= 3 and prompt.bottom <= bar.y
    assert (bar.height, own.height, footer.height) == (1, 1, 1)
    assert (bar.y + 1, own.y + 1) == (own.y, footer.y) and footer.y == height - 1
    for region in (prompt, bar, own, footer):
        assert region.x >= 0 and region.right <= width and region.bottom <= height
    assert screen.max_scroll_y == 0


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_the_command_line_appears_and_updates_with_the_session(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    command, seen = status_script(tmp_path)
    app = fixture_app(tmp_path, status_line=StatusLineSettings(("mode", "context"), command))
    started = time.monotonic()
    async with app.run_test(size=size) as pilot:
        screen = await wait_for_session(pilot)
        await wait_for(pilot, lambda: "turns=0 mode=Code" in shown(screen), "the first line")
        assert shown(screen).startswith("Code · ctx 16% · turns=0")
        assert f"in={tmp_path.name}" in shown(screen)  # run in the session's folder
        assert_fits(screen)
        await send(pilot, "conversation")
        await wait_for(pilot, lambda: "turns=1" in shown(screen), "the line after a turn")
        await send(pilot, "conversation")
        await wait_for(pilot, lambda: "turns=2" in shown(screen), "the line after two turns")
        await wait_for(pilot, lambda: "ctx 24%" in shown(screen), "the items follow too")
        await settle(pilot)
        # What the person sees: the row above the footer.
        row = row_text(pilot, size[1] - 2)
        assert row.startswith(" Code · ctx 24% · turns=2"), row
        assert_fits(screen)
    states = [json.loads(line) for line in seen.read_text().splitlines()]
    assert states[0]["turn"]["count"] == 0 and states[-1]["turn"]["count"] == 2
    assert states[-1]["session"]["id"] == screen.session_id
    assert states[-1]["context"] == {"used": 48_600, "size": 200_000, "percent": 24.3}
    # Paced: never two runs within a second (the first at once).
    assert len(states) <= time.monotonic() - started + 1


async def test_the_line_is_cut_with_an_ellipsis_and_pushes_nothing_off(tmp_path: Path) -> None:
    command, _ = status_script(tmp_path, "print('w' * 300)")
    every = ("agent", "model", "mode", "context", "cost", "cwd", "turn_tokens")
    app = fixture_app(tmp_path, status_line=StatusLineSettings(every, command))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_session(pilot)
        await wait_for(pilot, lambda: "wwww" in shown(screen), "the command's line")
        await settle(pilot)
        row = row_text(pilot, 22)
        assert len(row) == 80 and row.rstrip().endswith("…"), row
        assert row.startswith(" Fixture Agent · Fast · Code · ctx 16%")
        assert_fits(screen)
        await pilot.resize_terminal(60, 16)
        await pilot.pause()
        assert_fits(screen)


async def test_a_failing_command_is_a_short_note(tmp_path: Path) -> None:
    app = fixture_app(tmp_path, status_line=StatusLineSettings(("mode",), "exit 3"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_session(pilot)
        await wait_for(pilot, lambda: "status command: exit 3" in shown(screen), "the note")
        assert shown(screen) == "Code · status command: exit 3"
        assert "Traceback" not in shown(screen)


async def test_the_commands_output_is_drawn_literally(tmp_path: Path) -> None:
    """Markup, escape sequences and control characters from the command: the markup shows
    as typed, the escape sequences (colours, a title, the clipboard) are gone, and the lone
    control character is a symbol; nothing of it reaches the terminal."""
    body = (
        "import sys\n"
        "sys.stdout.buffer.write(b'[bold]b[/] [@click=app.quit]q[/] "
        "\\x1b[31mred\\x1b[0m\\x1b]52;c;eA==\\x07 bell\\x07 \\xff\\n')\n"
    )
    command, _ = status_script(tmp_path, body)
    app = fixture_app(tmp_path, status_line=StatusLineSettings((), command))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await wait_for(pilot, lambda: "red" in shown(screen), "the line")
        await settle(pilot)
        expected = "[bold]b[/] [@click=app.quit]q[/] red bell␇ \ufffd"
        assert shown(screen) == expected
        row = row_text(pilot, 38)
        assert row.strip() == expected, row
        assert isinstance(app.screen, ChatScreen)  # no action ran


async def test_nothing_configured_nothing_shown(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_session(pilot)
        await settle(pilot)
        line = own_line(screen)
        assert not line.display or line.region.height == 0
        bar = screen.query_one("#bar").region
        assert screen.query_one(KeyFooter).region.y == bar.y + 1


async def test_items_alone_need_no_command(tmp_path: Path) -> None:
    app = fixture_app(tmp_path, status_line=StatusLineSettings(("model", "cost"), None))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_session(pilot)
        await wait_for(pilot, lambda: shown(screen) == "Fast · $0.05", "the items")
        assert own_line(chat(app)).region.height == 1
        assert screen.own_status.command is None


@pytest.mark.textual_patch("lazy-select")
@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_snapshot_the_line_under_the_bar(  # type: ignore[no-untyped-def]
    snap_compare, tmp_path: Path, monkeypatch, size: tuple[int, int]
) -> None:
    """After one turn ("conversation"), the row between the bar and the footer reads
    "Fixture Agent · Fast · Code · ctx 20% · $0.06 · ~ · ↑6.0K ↓2.6K · build ok, 3 todo"
    (the items muted, the command's line in the text colour); at 80 columns it is cut with
    an ellipsis. The prompt, the bar (Code, Fast, the gauge) and the footer are all there."""
    command, _ = status_script(tmp_path, "print('build ok, 3 todo')")
    every = ("agent", "model", "mode", "context", "cost", "cwd", "turn_tokens")

    async def run_before(pilot: Pilot) -> None:
        screen = await wait_for_session(pilot)
        await send(pilot, "conversation")
        state = screen.store.get(screen.session_id)  # type: ignore[arg-type]
        await wait_for(pilot, lambda: state is not None and state.stop_reason == "end_turn", "turn")
        await wait_for(pilot, lambda: "ctx 20%" in shown(screen), "the items")
        await wait_for(pilot, lambda: "build ok" in shown(screen), "the command's line")
        screen.query_one(PromptEditor).text_area.cursor_blink = False
        await settle(pilot)

    monkeypatch.setenv("HOME", str(tmp_path))  # the folder shown: "~", the same every run
    app = fixture_app(tmp_path, status_line=StatusLineSettings(every, command))
    assert snap_compare(app, terminal_size=size, run_before=run_before)


class _Line:
    """Stands in for the widget: what was drawn."""

    def __init__(self) -> None:
        self.drawn: list[tuple[list[str], str, str | None]] = []

    def show(self, items: list[str], line: str = "", problem: str | None = None) -> None:
        self.drawn.append((list(items), line, problem))

    def set_shown(self, shown: bool) -> None:
        pass


async def test_the_command_runs_only_for_the_view_in_front_and_not_while_quitting(
    tmp_path: Path,
) -> None:
    """Another agent's view in front (or the app quitting): the items still follow, the
    command is not run; back in front, it runs."""
    from types import SimpleNamespace
    from typing import Any

    from acp_tui.session.launch.spec import AgentSpec
    from acp_tui.ui.screens.chat.own_status import OwnStatus

    spec = AgentSpec(
        argv=("agent",),
        cwd=str(tmp_path),
        status_line=StatusLineSettings(("agent",), "echo hi"),
    )
    model: Any = SimpleNamespace(
        state=lambda: None,
        new_choices=SimpleNamespace(preview=lambda: None),
        quitting=False,
    )
    front = [False]
    line = _Line()
    part = OwnStatus(
        model,
        spec,
        line=lambda: line,
        in_front=lambda: front[0],
        label=lambda: "A",  # type: ignore[arg-type,return-value]
    )
    assert part.command is not None
    part.refresh()
    assert part.command.runs == 0 and line.drawn[-1] == (["A"], "", None)
    model.quitting = True
    front[0] = True
    part.refresh()
    assert part.command.runs == 0
    model.quitting = False
    part.refresh()
    assert part.command.runs == 1
    while part.command.running:
        await asyncio.sleep(0.01)
    assert line.drawn[-1][1] == "hi"
    await part.stop()
