"""`acp-tui ask` / `acp-tui sessions`: exit codes and the messages a script sees."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import select
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.cli import headless
from acp_tui.cli.agents import resolve_command_line
from acp_tui.cli.headless import HeadlessAsk, Output, format_table, format_updated
from acp_tui.cli.headless_render import TextRenderer
from acp_tui.cli.parse import parse
from acp_tui.config import locations
from acp_tui.store import SessionStore
from acp_tui.store.local_index import LocalIndex

AGENTS = Path(__file__).parent / "agents"
SDK_AGENT = [sys.executable, str(AGENTS / "sdk_agent.py")]
SCRIPTED_AGENT = [sys.executable, str(AGENTS / "scripted_agent.py")]


def ask(
    tmp_path: Path, *args: str, agent: list[str] = SDK_AGENT, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """Run `acp-tui ask` in this process; returns (exit code, stdout, stderr)."""
    output = Output(io.StringIO(), io.StringIO())
    invocation = parse(["ask", *args, "--cwd", str(tmp_path), "--", *agent])
    with _environ(env):
        code = headless.run_ask(invocation, output)
    return code, output.out.getvalue(), output.err.getvalue()  # type: ignore[attr-defined]


def sessions(
    tmp_path: Path, *args: str, agent: list[str] = SDK_AGENT, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    output = Output(io.StringIO(), io.StringIO())
    invocation = parse(["sessions", *args, "--cwd", str(tmp_path), "--", *agent])
    with _environ(env):
        code = headless.run_sessions(invocation, output)
    return code, output.out.getvalue(), output.err.getvalue()  # type: ignore[attr-defined]


class _environ:
    def __init__(self, env: dict[str, str] | None) -> None:
        self.env = env or {}
        self.saved: dict[str, str | None] = {}

    def __enter__(self) -> None:
        for key, value in self.env.items():
            self.saved[key] = os.environ.get(key)
            os.environ[key] = value

    def __exit__(self, *exc: object) -> None:
        for key, value in self.saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("acp-tui: ")]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


# ------------------------------------------------------------------ ask


def test_end_turn_exits_0(tmp_path: Path) -> None:
    code, out, err = ask(tmp_path, "hi there")
    assert code == 0
    assert out == "You said: hi there\n"
    assert err.splitlines()[-1].startswith("stop: end_turn  session: sess-")


def test_thoughts_are_not_printed_plan_is_one_line(tmp_path: Path) -> None:
    code, out, err = ask(tmp_path, "think first")
    assert code == 0
    assert "secret thoughts" not in out + err
    assert "[plan] 1/2 done; now: answer" in err.splitlines()


def test_permission_is_rejected_by_default_and_said_so(tmp_path: Path) -> None:
    code, out, err = ask(tmp_path, "needs permission")
    assert code == 0
    assert out == "outcome: reject\n"
    lines = err.splitlines()
    assert "[tool] Edit src/app.py (pending)" in lines
    assert any(line.startswith("[permission] Edit src/app.py: rejected") for line in lines)
    assert "[tool] Edit src/app.py (failed)" in lines


def test_deny_flag_rejects(tmp_path: Path) -> None:
    code, out, _ = ask(tmp_path, "needs permission", "--deny")
    assert code == 0
    assert out == "outcome: reject\n"


def test_allow_flag_picks_the_first_allow_option(tmp_path: Path) -> None:
    code, out, err = ask(tmp_path, "needs permission", "--allow")
    assert code == 0
    assert out == "outcome: allow\n"
    assert "[tool] Edit src/app.py (completed)" in err.splitlines()


@pytest.mark.parametrize(
    ("prompt", "stop", "reason"),
    [("please refuse", "refusal", "refused"), ("maxtokens now", "max_tokens", "token limit")],
)
def test_other_stop_reasons_exit_1(tmp_path: Path, prompt: str, stop: str, reason: str) -> None:
    code, _, err = ask(tmp_path, prompt)
    assert code == 1
    assert f"stop: {stop}  session: " in err
    assert reason in one_error_line(err)
    assert "[warning]" not in err, "how the turn ended is said once"


def test_agent_not_found_exits_127(tmp_path: Path) -> None:
    code, out, err = ask(tmp_path, "hi", agent=["no-such-agent-anywhere", "--flag"])
    assert code == 127
    assert out == ""
    assert "no-such-agent-anywhere" in one_error_line(err)
    assert "not found" in err


def test_agent_not_found_as_a_real_command_has_no_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "acp_tui", "ask", "hi", "--", "no-such-agent-anywhere"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 127
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
    assert "no-such-agent-anywhere" in done.stderr


def test_crash_mid_turn_exits_3_with_status_and_stderr(tmp_path: Path) -> None:
    code, out, err = ask(tmp_path, "crash now")
    assert code == 3
    assert out == "about to crash\n"
    line = one_error_line(err)
    assert "exit code 3" in line
    assert "sdk agent: fatal error, giving up" in line


def test_killed_agent_reports_the_signal(tmp_path: Path) -> None:
    code, _, err = ask(tmp_path, "killself")
    assert code == 3
    assert "killed by SIGKILL" in one_error_line(err)


def test_agent_dying_before_initialize(tmp_path: Path) -> None:
    agent = [sys.executable, "-c", "import sys; print('no api key', file=sys.stderr); sys.exit(5)"]
    code, _, err = ask(tmp_path, "hi", agent=agent)
    assert code == 3
    line = one_error_line(err)
    assert "exit code 5" in line and "no api key" in line


def test_auth_required_exits_4_listing_methods(tmp_path: Path) -> None:
    code, out, err = ask(tmp_path, "hi", env={"SDK_AGENT_AUTH": "1"})
    assert code == 4
    assert out == ""
    line = one_error_line(err)
    assert "requires authentication" in line
    assert "Log in with a browser [login]" in line and "API key [api-key]" in line
    assert "TUI" in line


def test_session_without_load_or_resume_fails_clearly(tmp_path: Path) -> None:
    code, _, err = ask(tmp_path, "hi", "--session", "pre-1", env={"SDK_AGENT_NO_LOAD": "1"})
    assert code == 2
    assert "neither resume nor load" in one_error_line(err)


def test_unknown_session_is_an_error_not_a_crash(tmp_path: Path) -> None:
    code, _, err = ask(tmp_path, "hi", "--session", "nope")
    assert code == 1
    assert "could not continue the session" in one_error_line(err)


def test_scripted_agent_output_is_only_this_sessions_text(tmp_path: Path) -> None:
    code, out, err = ask(tmp_path, "go", agent=SCRIPTED_AGENT)
    assert code == 0, err
    # Chunks + the v2 agent_message upsert; nothing from the other session; no junk. The
    # tool call between "Hello" and ", world" ends the first message: two paragraphs
    # (scripted_agent.HEADLESS_REPLY).
    assert out == "Hello\n\n, world!\n"
    lines = err.splitlines()
    # The title carried an escape sequence: shown literally, without it.
    assert "[tool] Run tests (pending)" in lines
    assert "[tool] Run tests (completed)" in lines
    assert "[hologram]" in lines
    assert "\x1b" not in out + err
    assert lines[-1] == "stop: end_turn  session: scripted-1"


def test_ctrl_c_cancels_the_turn_and_exits_130(tmp_path: Path) -> None:
    # SIGINT to acp-tui only: the agent runs in its own process group, as in a terminal.
    process = _start_streaming(tmp_path, "go slow")
    try:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert "session/cancel" in err
    assert "stop: cancelled  session: sess-" in err
    assert "Traceback" not in err
    assert "[warning]" not in err, "the cancel is said once"


def _start_streaming(tmp_path: Path, prompt: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "acp_tui", "ask", prompt, "--", *SDK_AGENT],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], 60)
    assert ready, "the turn never started streaming"
    assert process.stdout.read(1) == "."
    return process


def test_second_ctrl_c_stops_waiting_for_a_stubborn_agent(tmp_path: Path) -> None:
    process = _start_streaming(tmp_path, "be stubborn")
    try:
        process.send_signal(signal.SIGINT)
        assert process.stderr is not None
        ready, _, _ = select.select([process.stderr], [], [], 60)
        assert ready
        assert "cancelling the turn" in process.stderr.readline()
        process.send_signal(signal.SIGINT)
        # A hang guard far below the 10 minutes the agent would take to end its turn.
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130
    assert "not waiting for the agent" in err
    assert "Traceback" not in err


def test_closed_stdout_is_not_a_traceback(tmp_path: Path) -> None:
    """`acp-tui ask ... | head -c 5`: the reply outgrows the pipe after the reader left."""
    process = subprocess.Popen(
        [sys.executable, "-m", "acp_tui", "ask", "word " * 15000, "--", *SDK_AGENT],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.read(5) == "You s"
        process.stdout.close()
        err = process.stderr.read()
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "Traceback" not in err and "Exception" not in err
    assert "stop: end_turn" in err
    assert process.returncode == 0


@pytest.mark.anyio
async def test_permission_without_reject_option_answers_cancelled(tmp_path: Path) -> None:
    def headless_ask(*flags: str) -> HeadlessAsk:
        invocation = parse(["ask", "hi", *flags, "--cwd", str(tmp_path), "--", "agent"])
        return HeadlessAsk(invocation, Output(io.StringIO(), io.StringIO()))

    params: dict[str, Any] = {
        "sessionId": "s",
        "toolCall": {"toolCallId": "t", "title": "rm -rf \x1b[31m/"},
        "options": [{"optionId": "ok", "name": "OK", "kind": "allow_once"}],
    }
    denying = headless_ask()
    with anyio.fail_after(5):
        assert await denying._permission(params) == {"outcome": {"outcome": "cancelled"}}
    note = denying.output.err.getvalue()  # type: ignore[attr-defined]
    assert "rm -rf /" in note and "cancelled" in note and "\x1b" not in note
    allowing = headless_ask("--allow")
    with anyio.fail_after(5):
        answer = await allowing._permission(params)
    assert answer == {"outcome": {"outcome": "selected", "optionId": "ok"}}


def test_updates_before_the_session_id_is_known_are_kept() -> None:
    """An update that arrives while session/new is pending is held by the store and printed
    once the session is open; another session's is not."""
    store = SessionStore()
    output = Output(io.StringIO(), io.StringIO())
    renderer = TextRenderer(store, output)
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "early"}}
    store.apply({"sessionId": "s", "update": chunk})
    store.apply({"sessionId": "other", "update": chunk})
    store.register_session("s", new=True)
    renderer.begin("s", replayed=False)
    renderer.render()
    assert output.out.getvalue() == "early"  # type: ignore[attr-defined]


# ------------------------------------------------------------------ sessions


def test_sessions_table(tmp_path: Path) -> None:
    code, out, err = sessions(tmp_path)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["TITLE", "UPDATED", "CWD", "ID"]
    assert [line.split()[-1] for line in lines[1:]] == ["pre-1", "pre-2", "pre-3"]
    assert "Fix red bug␇ now" in out and "\x1b" not in out  # the lone BEL shown


def test_sessions_on_an_agent_that_can_neither_list_nor_reopen(tmp_path: Path) -> None:
    code, out, err = sessions(tmp_path, env={"SDK_AGENT_NO_LIST": "1", "SDK_AGENT_NO_LOAD": "1"})
    assert code == 2
    assert out == ""
    assert "does not support listing sessions" in one_error_line(err)


def test_ask_then_sessions_of_an_agent_that_cannot_list_shows_what_acp_tui_started(
    tmp_path: Path,
) -> None:
    """Gemini CLI reopens sessions but cannot list them: `acp-tui sessions` said "does not
    support listing" while the TUI's sidebar listed them, and a session made by `ask` was
    "Untitled" there. `ask` remembers its session as the TUI does (titled by its prompt), and
    `sessions` shows the ones acp-tui started, saying where they come from; `ask --session`
    goes on with one."""
    env = {
        "SDK_AGENT_NO_LIST": "1",
        "SDK_AGENT_STATE_DIR": str(tmp_path / "agent-state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    (tmp_path / "agent-state").mkdir()
    code, _, err = ask(tmp_path, "Refactor the lexer\nthen the parser", env=env)
    assert code == 0, err
    code, out, err = sessions(tmp_path, env=env)
    assert code == 0, err
    assert "cannot list its sessions: these are the ones acp-tui started with it here" in err
    lines = out.splitlines()
    assert lines[0].split() == ["TITLE", "UPDATED", "CWD", "ID"] and len(lines) == 2, out
    assert lines[1].startswith("Refactor the lexer ") and "then the parser" not in lines[1]
    session_id = lines[1].split()[-1]
    code, out, err = sessions(tmp_path, "--json", env=env)
    assert code == 0, err
    assert [row["sessionId"] for row in json.loads(out)] == [session_id]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code, out, err = sessions(elsewhere, env=env)
    assert code == 0 and out == "", (out, err)
    code, out, err = sessions(elsewhere, "--all", env=env)
    assert code == 0 and session_id in out, (out, err)
    code, _, err = ask(tmp_path, "--session", session_id, "and the tests", env=env)
    assert code == 0, err


def test_sessions_agent_not_found(tmp_path: Path) -> None:
    code, _, err = sessions(tmp_path, agent=["no-such-agent-anywhere"])
    assert code == 127
    assert "no-such-agent-anywhere" in one_error_line(err)


def test_format_table_sanitises_and_cuts_titles() -> None:
    now = datetime(2025, 1, 10, 12, 0, tzinfo=UTC)
    table = format_table(
        [
            {
                "sessionId": "a",
                "cwd": "/p",
                "title": "\x1b]0;pwn\x07" + "x" * 200,
                "updatedAt": "2025-01-10T11:55:00Z",
            },
            {"sessionId": "b\x1b[2J", "cwd": "/q"},
        ],
        now=now,
    )
    lines = table.splitlines()
    assert len(lines) == 3
    assert "\x1b" not in table and "\x07" not in table
    assert "x" * 79 + "…" in lines[1] and "x" * 80 not in lines[1]
    assert "5m ago" in lines[1]
    assert "(untitled)" in lines[2] and lines[2].endswith("b")


def test_relative_time() -> None:
    now = datetime(2025, 1, 10, 12, 0, tzinfo=UTC)
    assert format_updated("2025-01-10T11:59:50Z", now) == "just now"
    assert format_updated("2025-01-10T09:00:00+00:00", now) == "3h ago"
    assert format_updated("2025-01-08T12:00:00Z", now) == "2d ago"
    assert format_updated("2024-06-01T00:00:00Z", now) == "2024-06-01"
    assert format_updated("yesterday-ish", now) == "yesterday-ish"
    assert format_updated(None, now) == ""


def test_cat_is_not_an_acp_agent(tmp_path: Path) -> None:
    """``cat`` sends our initialize back: it is said to be no ACP agent, and our own request
    is never shown as the agent's error."""
    code, out, err = ask(tmp_path, "hi", agent=["cat"])
    assert code == 1 and out == ""
    line = one_error_line(err)
    assert "this is not an ACP agent" in line
    assert "method not found" not in err and "initialize failed" not in err


def test_an_agent_that_never_answers_initialize_is_reported_after_the_timeout(
    tmp_path: Path,
) -> None:
    agent = [
        sys.executable,
        "-c",
        "import time; print('Welcome to my tool', flush=True); print('type help', flush=True);"
        " time.sleep(60)",
    ]
    output = Output(io.StringIO(), io.StringIO())
    invocation = parse(["ask", "hi", "--cwd", str(tmp_path), "--", *agent])
    resolved = resolve_command_line(invocation.options, invocation.agent_argv)
    assert resolved is not None
    invocation.spec = dataclasses.replace(resolved.spec, initialize_timeout=1.5)
    started = time.monotonic()
    code = headless.run_ask(invocation, output)
    assert time.monotonic() - started < 10
    err = output.err.getvalue()  # type: ignore[attr-defined]
    assert code == 1
    line = one_error_line(err)
    assert "not responding" in line and "1.5 s" in line
    assert "Welcome to my tool | type help" in line


def _render_updates(updates: list[dict[str, Any]]) -> str:
    store = SessionStore()
    output = Output(io.StringIO(), io.StringIO())  # not a terminal: a script's stdout
    renderer = TextRenderer(store, output)
    store.register_session("s", new=True)
    renderer.begin("s", replayed=False)
    for update in updates:
        store.apply({"sessionId": "s", "update": update})
        renderer.render()
    output.finish_text()
    return output.out.getvalue()  # type: ignore[attr-defined,no-any-return]


def _said(text: str, message_id: str | None = None) -> dict[str, Any]:
    update: dict[str, Any] = {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": text},
    }
    if message_id is not None:
        update["messageId"] = message_id
    return update


TOOL = {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "ls", "status": "completed"}


@pytest.mark.parametrize(
    ("updates", "expected"),
    [
        # Text, a tool call, text (mistral-vibe's way): two paragraphs, not "command.The".
        (
            [_said("I'll run a command.", "m1"), TOOL, _said("The tool finished.", "m2")],
            "I'll run a command.\n\nThe tool finished.\n",
        ),
        # The same without message ids: the tool call splits the messages all the same.
        (
            [_said("I'll run"), _said(" a command."), TOOL, _said("Done.")],
            "I'll run a command.\n\nDone.\n",
        ),
        # Two messages back to back, told apart by their ids only.
        ([_said("First.", "m1"), _said("Second.", "m2")], "First.\n\nSecond.\n"),
        # A message that already ends its paragraph gets no more blank lines.
        ([_said("First.\n\n", "m1"), _said("Second.", "m2")], "First.\n\nSecond.\n"),
        ([_said("First.\n", "m1"), _said("Second.", "m2")], "First.\n\nSecond.\n"),
        # One message in many chunks stays one paragraph; nothing comes before the first.
        ([_said("One ", "m1"), _said("message", "m1"), _said(".", "m1")], "One message.\n"),
    ],
)
def test_each_agent_message_is_a_paragraph_of_its_own_on_stdout(
    updates: list[dict[str, Any]], expected: str
) -> None:
    assert _render_updates(updates) == expected


def test_sessions_show_the_title_the_person_gave_here(tmp_path: Path) -> None:
    """A rename kept locally (an agent that cannot store titles) wins in `acp-tui sessions`
    as in the TUI; JSON keeps the agent's title beside it. Another agent's renames and
    sessions the person did not rename are left as the agent has them."""
    data = tmp_path / "data"
    env = {"XDG_DATA_HOME": str(data)}
    with _environ(env):
        path = locations.local_index_file()
        with LocalIndex(path, " ".join(SDK_AGENT)) as index:
            assert index.set_local_title("pre-2", "Renamed by me")
        with LocalIndex(path, "some other agent") as index:
            assert index.set_local_title("pre-1", "Not this agent's")
    code, out, err = sessions(tmp_path, env=env)
    assert code == 0, err
    rows = {line.split()[-1]: line for line in out.splitlines()[1:]}
    assert "Renamed by me" in rows["pre-2"] and "Fix red bug" not in rows["pre-2"]
    assert "Refactor the parser" in rows["pre-1"]
    code, out, err = sessions(tmp_path, "--json", env=env)
    assert code == 0, err
    listed = {row["sessionId"]: row for row in json.loads(out)}
    assert listed["pre-2"]["title"] == "Renamed by me"
    assert listed["pre-2"]["agentTitle"] == "Fix \x1b[31mred\x1b[0m bug\x07 now"
    assert listed["pre-1"]["title"] == "Refactor the parser" and "agentTitle" not in listed["pre-1"]


def test_sessions_make_no_index_file_where_there_is_none(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    code, _, err = sessions(tmp_path, env=env)
    assert code == 0, err
    with _environ(env):
        assert not locations.local_index_file().exists()
