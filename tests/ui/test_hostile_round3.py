"""Hostile agents, round 3 (issue 17): a third independent attack, through the real app on the
round 3 hostile agent (:mod:`tests.agents.hostile3_agent`), driven with Pilot.

Each test is a class of defect the third attack found, seen where the person sees it: an
initialize error whose escapes reached the banner and the real terminal at exit, an option id
that names both Reject and Allow, transport lines whose text was lost, and the cases that held
(content blocks of every type, every wrong shape of the session state updates) kept so that
they go on holding.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import Input, TextArea

from acp_tui.session.asking.elicitation import parse_request
from acp_tui.session.prompts.attachments import describe_block, format_size
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.preferences import UiSettings
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.elicitation import ElicitationScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.screens.rename import RenameScreen
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from tests.agents import hostile3_agent as h3
from tests.ui.chat_helpers import (
    agent_app,
    armed_dialog,
    chat,
    send,
    settle,
    wait_for,
    wait_for_session,
)
from tests.ui.test_resilience import (
    SIZE,
    assert_inert,
    banner_text,
    last_reply,
    replies,
    screen_text,
)

pytestmark = pytest.mark.anyio

AGENT = [sys.executable, str(Path(h3.__file__).resolve())]


def round3_app(cwd: Path, *flags: str) -> AcpTuiApp:
    cwd.mkdir(parents=True, exist_ok=True)
    return agent_app([*AGENT, *flags], cwd, log_dir=cwd / ".logs", notify_when_unfocused=False)


async def finish(pilot: Any, text: str, expect: str) -> None:
    screen = chat(pilot.app)
    await send(pilot, text)
    await wait_for(
        pilot, lambda: expect in last_reply(screen) and not screen.busy, f"reply {expect!r}"
    )
    await settle(pilot)


async def test_an_initialize_error_is_one_printable_line_on_screen_and_at_exit(
    tmp_path: Path,
) -> None:
    """The agent's initialize error went raw into the "could not be started" banner (ESC and a
    bidi override on screen) and into the line printed on the real terminal after the app
    exits (a window title, a screen clear and a clipboard write, run by the terminal)."""
    app = round3_app(tmp_path, "--init-shape", "error")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: bool(app.workspace.start_failures), "the start failure")
        await wait_for(pilot, lambda: "Init failed" in banner_text(chat(app)), "the banner")
        await pilot.pause()
        assert_inert(app)
        assert "Init failed SAFEevil" in banner_text(chat(app))
        (printed,) = app.workspace.start_failures
        assert printed.isprintable() and "Init failed SAFEevil" in printed


async def answer_shown_dialog(pilot: Any, seen: list[str]) -> None:
    """Wait for the dialog on screen to be armed, keep what it shows, press Escape."""
    app = pilot.app
    dialog = app.screen
    await wait_for(pilot, lambda: dialog.armed, "an armed dialog")
    seen.append(screen_text(app))
    await pilot.press("escape")
    await wait_for(pilot, lambda: app.screen is not dialog, "the dialog to close")


async def test_an_option_id_that_names_reject_and_allow_is_never_offered(
    tmp_path: Path,
) -> None:
    """``x`` named "Reject" and "Allow": the dialog showed Reject, Escape answered ``x``, which
    the agent may read as Allow. The request is answered ``cancelled`` without a dialog; the
    others of the case are asked as before."""
    app = round3_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "permission-weird")
        seen: list[str] = []
        while h3.PERMISSION_DONE not in last_reply(screen):
            await wait_for(
                pilot,
                lambda: (
                    isinstance(app.screen, PermissionScreen)
                    or h3.PERMISSION_DONE in last_reply(screen)
                ),
                "a dialog or the end",
            )
            if isinstance(app.screen, PermissionScreen):
                await answer_shown_dialog(pilot, seen)
        state = screen.store.get(screen.session_id or "")
        assert state is not None
        text = "\n".join(getattr(e, "text", "") for e in state.transcript)
        assert 'dup-options: ok {"outcome": {"outcome": "cancelled"}}' in text
        # Only the request without a tool call had a dialog: the duplicate-id one never did.
        assert len(seen) == 1 and "Tool call" in seen[0]


async def test_transport_lines_are_all_read_in_the_tui(tmp_path: Path) -> None:
    """CRLF, a BOM, a batch and a notification with an id: every text reaches the reply, in
    order (three of them were lost), and both requests with one id are answered."""
    app = round3_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_session(pilot)
        screen = chat(app)
        await send(pilot, "transport")
        for _ in range(2):
            await wait_for(
                pilot,
                lambda: isinstance(app.screen, PermissionScreen) and app.screen.armed,
                "a dialog",
            )
            await pilot.press("escape")
        await wait_for(
            pilot,
            lambda: h3.TRANSPORT_DONE in last_reply(screen) and not screen.busy,
            "the end of the turn",
        )
        assert "".join(replies(screen)).startswith(
            h3.CRLF_TEXT + h3.BOM_TEXT + h3.BATCH_TEXT * 2 + h3.ID_NOTIFICATION_TEXT
        )


@pytest.mark.parametrize(
    ("prompt", "done"),
    [
        ("blocks", h3.BLOCKS_DONE),
        ("tool-content", h3.TOOL_CONTENT_DONE),
        ("tool-content objects", h3.TOOL_CONTENT_DONE),
        ("plan-big", h3.PLAN_DONE),
        ("commands", h3.COMMANDS_DONE),
        ("config", h3.CONFIG_DONE),
        ("config objects", h3.CONFIG_DONE),
        ("plan-big objects", h3.PLAN_DONE),
        ("commands objects", h3.COMMANDS_DONE),
        ("info", h3.INFO_DONE),
        ("title-osc", ""),
    ],
)
async def test_every_update_kind_in_every_wrong_shape_leaves_the_app_usable(
    tmp_path: Path, prompt: str, done: str
) -> None:
    """Content blocks of every type with hostile fields, tool content of every type, a plan of
    5,000 entries, 3,000 commands, config options of every wrong shape, dates out of range,
    OSC/DCS/C1 in a title: the turn ends, nothing on screen is an escape or an action, and the
    next turn works."""
    app = round3_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for_session(pilot)
        screen = chat(app)
        await send(pilot, prompt)
        if prompt == "title-osc":
            await wait_for(
                pilot,
                lambda: isinstance(app.screen, PermissionScreen) and app.screen.armed,
                "the dialog",
            )
            assert_inert(app)
            assert h3.OSC_SHOWN in screen_text(app)
            await pilot.press("escape")
            done = h3.OSC_SHOWN
        await wait_for(
            pilot,
            lambda: not screen.busy and (done in last_reply(screen) or prompt == "title-osc"),
            f"the end of {prompt}",
        )
        await settle(pilot)
        assert_inert(app)
        assert not any("display error" in n.message for n in app._notifications)
        await finish(pilot, "after", "You said: after")
        assert app.is_running


async def test_agent_text_that_enters_a_text_field_never_reaches_the_terminal(
    tmp_path: Path,
) -> None:
    """A command name completed into the prompt (Tab) carried an OSC 0 and a screen clear into
    the text area, which drew them raw: the window was retitled and the screen cleared. The
    same for a pasted escape, and for a session title put in the rename field."""
    app = round3_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await finish(pilot, "commands objects", h3.COMMANDS_DONE)
        editor = screen.query_one("#prompt")
        editor.focus()
        await pilot.press("slash", "c", "m")
        await wait_for(pilot, lambda: editor.completion_open, "the completions")  # type: ignore[attr-defined]
        await pilot.press("tab")
        await wait_for(pilot, lambda: "cmd 0/x" in editor.draft, "the completed command")  # type: ignore[attr-defined]
        await pilot.pause()
        assert "\x1b" not in editor.draft and "\x07" not in editor.draft  # type: ignore[attr-defined]
        assert_inert(app)
        editor.set_draft("")  # type: ignore[attr-defined]
        area = editor.query_one(TextArea)
        area.focus()
        await wait_for(pilot, lambda: screen.focused is area, "the focus on the prompt")
        app.post_message(events.Paste("pasted\x1b]0;OWNED\x07\x1b[2J\u202eend"))
        await wait_for(pilot, lambda: "pasted" in editor.draft, "the paste")  # type: ignore[attr-defined]
        assert editor.draft == "pastedend"  # type: ignore[attr-defined]
        assert_inert(app)
        # The rename field, filled with a title full of escapes.
        editor.set_draft("")  # type: ignore[attr-defined]
        await send(pilot, "title-osc")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, PermissionScreen) and app.screen.armed,
            "the dialog",
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, "the end of the turn")
        screen.session_actions.rename()
        await wait_for(pilot, lambda: isinstance(app.screen, RenameScreen), "the rename field")
        await pilot.pause()
        assert app.screen.query_one(Input).value.startswith("Osc")
        assert_inert(app)
        await armed_dialog(pilot)  # Enter saves once the dialog is armed
        await pilot.press("enter")  # unchanged: the title stays the agent's
        await wait_for(pilot, lambda: app.screen is screen, "back")
        state = screen.store.get(screen.session_id or "")
        assert state is not None and state.title == h3.OSC_TITLE


async def test_a_form_default_with_escapes_and_a_catastrophic_pattern(tmp_path: Path) -> None:
    """The field's default (agent text) is shown without its escapes, and submitting it comes
    back: the agent's pattern is not run (one with nested repeats froze the whole app)."""
    app = round3_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "elicit-escapes")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ElicitationScreen) and app.screen.armed,
            "the armed form",
        )
        await pilot.pause()
        assert_inert(app)
        assert app.screen.query_one(Input).value == "a" * 40 + "!"
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: h3.ELICIT_DONE in last_reply(screen) and not screen.busy,
            "the answer",
        )
        assert '"action": "accept"' in last_reply(screen)


async def test_an_entry_that_cannot_draw_leaves_the_rest_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resource link of size 10**400 raised in its chip (OverflowError), and every entry
    after it in the same refresh stayed blank: the reply after it was never drawn. Whatever
    the next drawing bug is, the entries after it are drawn and the person is told once."""
    real_redraw = ToolCallView.redraw

    async def broken(self: ToolCallView) -> None:
        raise RuntimeError("a drawing bug")

    app = round3_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await wait_for_session(pilot)
        monkeypatch.setattr(ToolCallView, "redraw", broken)
        await send(pilot, "escape-title")
        await wait_for(pilot, lambda: not screen.busy and "Escapes" in last_reply(screen), "reply")
        await settle(pilot)
        assert "Escapes: cleared? red click" in screen_text(app)
        assert any("display error" in n.message for n in app._notifications)
        monkeypatch.setattr(ToolCallView, "redraw", real_redraw)
        await finish(pilot, "after", "You said: after")
        assert "You said: after" in screen_text(app)


def test_sizes_and_bounds_out_of_any_range_are_unknown() -> None:
    """10**400 is a valid JSON integer; ``float()`` of it raises OverflowError."""
    controller = {"type": "resource_link", "uri": "file:///x", "name": "x", "size": 10**400}
    attachment = describe_block(controller)
    assert attachment is not None and attachment.size is None and attachment.label() == "x · link"
    assert format_size(10**400) == "size unknown"
    request = parse_request(
        {
            "sessionId": "s",
            "mode": "form",
            "message": "m",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "n": {"type": "number", "minimum": 10**400, "maximum": -(10**400)},
                    "k": {"type": "string", "maxLength": 10**400, "minLength": -1},
                },
            },
        }
    )
    assert [(f.minimum, f.maximum, f.max_length, f.min_length) for f in request.fields] == [
        (None, None, None, None),
        (None, None, None, None),
    ]


async def test_a_permission_for_a_session_never_opened_is_not_asked_on_screen(
    tmp_path: Path,
) -> None:
    """It was shown over the session on screen, as if that session asked; now it is answered
    ``cancelled`` at once and the person is told why. A form for such a session likewise."""
    app = round3_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "ghost-permission")
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, PermissionScreen)
                or (h3.GHOST_DONE in last_reply(screen) and not screen.busy)
            ),
            "the end of the turn",
        )
        assert not isinstance(app.screen, PermissionScreen | ElicitationScreen)
        assert last_reply(screen).count('{"outcome": {"outcome": "cancelled"}}') == 2
        assert 'ghost-form: ok {"action": "cancel"}' in last_reply(screen)
        assert any("never opened" in n.message for n in app._notifications)


def evil_recording(tmp_path: Path) -> tuple[Path, list[Path]]:
    """A real recording of one turn, with two lines added after the session/new answer, filed
    as junk on the agent's stdout: a ``terminal/create`` request (``touch``) and a batch with an
    ``fs/write_text_file`` request. What a recording sent as a bug report could hold."""
    import json
    import subprocess

    path = tmp_path / "wire.jsonl"
    ask = [sys.executable, "-m", "acp_tui", "ask", "hello", "--record", str(path)]
    subprocess.run(
        [*ask, "--cwd", str(tmp_path), "--", *AGENT],
        check=True,
        capture_output=True,
        timeout=60,
    )
    touched, written = tmp_path / "REPLAY_RAN_A_COMMAND", tmp_path / "REPLAY_WROTE_A_FILE"
    run = {
        "jsonrpc": "2.0",
        "id": "evil-1",
        "method": "terminal/create",
        "params": {"sessionId": h3.SESSION_ID, "command": "touch", "args": [str(touched)]},
    }
    write = {
        "jsonrpc": "2.0",
        "id": "evil-2",
        "method": "fs/write_text_file",
        "params": {"sessionId": h3.SESSION_ID, "path": str(written), "content": "x"},
    }
    lines = []
    for line in path.read_text().splitlines():
        lines.append(line)
        item = json.loads(line)
        result = (item.get("msg") or {}).get("result") if item.get("dir") == "from_agent" else None
        if isinstance(result, dict) and "sessionId" in result:
            for junk in (json.dumps(run), json.dumps([write])):
                lines.append(
                    json.dumps({"t": item["t"], "dir": "from_agent", "junk": "x", "text": junk})
                )
    path.write_text("\n".join(lines) + "\n")
    return path, [touched, written]


async def test_a_replay_never_runs_a_command_or_writes_a_file(tmp_path: Path) -> None:
    """ "A replay never writes files or runs commands": true of the recorded requests, which
    the replay skips, but a request filed in the recording as junk was sent to the client as a
    line, and the client ran it: opening a crafted recording ran a command and wrote a file.
    The client of a replay refuses ``fs/*`` and ``terminal/*`` however they arrive."""
    from acp_tui.devtools.replay import replay_settings
    from acp_tui.protocol.recording import load_recording

    path, made = evil_recording(tmp_path)
    settings = replay_settings(load_recording(path), speed=0.0, data_dir=tmp_path / ".replay")
    app = make_app(settings, ui=UiSettings(theme="textual-dark"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: any(
                isinstance(s, ChatScreen) and "You said: hello" in last_reply(s)
                for s in app.screen_stack
            ),
            "the replayed reply",
        )
        await pilot.pause(0.5)
        controller = next(s for s in app.screen_stack if isinstance(s, ChatScreen)).controller
        assert controller is not None and controller.client is not None
        await wait_for(
            pilot, lambda: not controller.client.connection._incoming, "the two requests answered"
        )
    assert not any(p.exists() for p in made)
