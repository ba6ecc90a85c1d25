"""`acp-tui ask` and `sessions` run the TUI's SessionController (issue 16): the client's file
and terminal services, resume falling back to load, the agent's configured env and MCP servers
for the agent only, the `--json` event stream, and a clean exit with a slow wrapper."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from acp_tui.cli import headless
from acp_tui.cli.headless import Output
from acp_tui.cli.main import main as cli_main
from acp_tui.cli.parse import parse

AGENTS = Path(__file__).parent / "agents"
SDK_AGENT = [sys.executable, str(AGENTS / "sdk_agent.py")]
HOSTILE = [sys.executable, str(AGENTS / "hostile_agent.py")]


def isolated_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[name] = str(tmp_path / "xdg" / name.lower())
    env.pop("ACP_TUI_CONFIG", None)
    env.update(extra)
    return env


def acp_tui(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """The real command, in ``tmp_path``, through real pipes."""
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *args],
        cwd=tmp_path,
        env=env or isolated_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def ask(
    tmp_path: Path, *args: str, agent: list[str] = SDK_AGENT, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """`acp-tui ask` in this process."""
    output = Output(io.StringIO(), io.StringIO())
    invocation = parse(["ask", *args, "--cwd", str(tmp_path), "--", *agent])
    saved = {key: os.environ.get(key) for key in env or {}}
    os.environ.update(env or {})
    try:
        code = headless.run_ask(invocation, output)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return code, output.out.getvalue(), output.err.getvalue()  # type: ignore[attr-defined]


# ------------------------------------------------------------------ the client's services


def test_edit_goes_through_the_clients_file_service(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("first line\n")
    done = acp_tui(tmp_path, "ask", "--allow", "/edit notes.txt", "--demo")
    assert done.returncode == 0, done.stderr
    assert "through the client" in done.stdout
    assert "[permission] Edit notes.txt: allowed (Allow once)" in done.stderr.splitlines()
    text = notes.read_text()
    assert text.startswith("first line\n") and "Edited by the acp-tui demo agent" in text
    assert "Traceback" not in done.stderr


def test_edit_without_allow_is_rejected_and_the_file_stays(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("first line\n")
    done = acp_tui(tmp_path, "ask", "/edit notes.txt", "--demo")
    assert done.returncode == 0, done.stderr
    assert notes.read_text() == "first line\n"
    assert any(
        line.startswith("[permission] Edit notes.txt: rejected")
        for line in done.stderr.splitlines()
    ), done.stderr


def test_run_goes_through_the_clients_terminal_service(tmp_path: Path) -> None:
    done = acp_tui(tmp_path, "ask", "--allow", "/run echo hi-from-the-client", "--demo")
    assert done.returncode == 0, done.stderr
    assert "exited with code 0" in done.stdout and "hi-from-the-client" in done.stdout
    assert "[tool] Run `echo hi-from-the-client` (completed)" in done.stderr.splitlines()


# ------------------------------------------------------------------ reopening a session


@pytest.mark.parametrize(
    "switches",
    [{"SDK_AGENT_RESUME_UNIMPLEMENTED": "1"}, {"SDK_AGENT_RESUME": "1"}, {}],
    ids=["resume-unimplemented", "resume", "load-only"],
)
def test_session_continues_on_an_agent_whose_resume_is_not_implemented(
    tmp_path: Path, switches: dict[str, str]
) -> None:
    """Advertised resume answering -32601 (pydantic-acp, the TS SDK): loaded instead. With
    a working resume, resumed; with load only, loaded. The history is never printed."""
    code, out, err = ask(tmp_path, "hi again", "--session", "pre-1", env=switches)
    assert code == 0, err
    assert out == "You said: hi again\n"
    assert "answer 1" not in out + err
    assert err.splitlines()[-1] == "stop: end_turn  session: pre-1"


# ------------------------------------------------------------------ --agent NAME


def test_configured_env_and_mcp_servers_go_to_the_agent_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen = tmp_path / "seen-env"
    wrapper = tmp_path / "agent.sh"
    wrapper.write_text(f'#!/bin/sh\nprintf %s "$HEADLESS_SECRET" > {seen}\nexec "$@"\n')
    wrapper.chmod(0o755)
    record = tmp_path / "wire.jsonl"
    config = tmp_path / "config.toml"
    config.write_text(
        textwrap.dedent(
            f"""
            [agents.sdk]
            command = "{wrapper}"
            args = {json.dumps(SDK_AGENT)}
            env = {{ HEADLESS_SECRET = "for-the-agent" }}

            [[agents.sdk.mcp_servers]]
            name = "files"
            command = "mcp-files"
            args = ["--root", "/tmp"]
            """
        )
    )
    monkeypatch.setenv("ACP_TUI_CONFIG", str(config))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("HEADLESS_SECRET", raising=False)
    code = cli_main(
        ["ask", "hello", "--agent", "sdk", "--cwd", str(tmp_path), "--record", str(record)]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert seen.read_text() == "for-the-agent"
    assert "HEADLESS_SECRET" not in os.environ, "the agent's env leaked into acp-tui"
    new = [
        json.loads(line)
        for line in record.read_text().splitlines()
        if '"session/new"' in line and '"mcpServers"' in line
    ]
    assert new, record.read_text()
    params = next(item for item in _walk(new[0]) if isinstance(item, dict) and "mcpServers" in item)
    assert [server["name"] for server in params["mcpServers"]] == ["files"]
    assert params["mcpServers"][0]["args"] == ["--root", "/tmp"]


def _walk(value: Any) -> list[Any]:
    found = [value]
    if isinstance(value, dict):
        for item in value.values():
            found += _walk(item)
    elif isinstance(value, list):
        for item in value:
            found += _walk(item)
    return found


# ------------------------------------------------------------------ --json


def events(stdout: str) -> list[dict[str, Any]]:
    lines = stdout.splitlines()
    assert lines, "no events"
    parsed = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all(isinstance(event, dict) and isinstance(event.get("type"), str) for event in parsed)
    return parsed


def test_json_streams_a_turn_with_a_tool_call_and_a_permission(tmp_path: Path) -> None:
    code, out, err = ask(tmp_path, "needs permission", "--allow", "--json")
    assert code == 0, err
    stream = events(out)
    kinds = [event["type"] for event in stream]
    assert kinds[0] == "session" and kinds[-1] == "result"
    session_id = stream[0]["sessionId"]
    assert session_id.startswith("sess-") and stream[0]["method"] == "new"
    assert all(event["sessionId"] == session_id for event in stream)
    call = next(e for e in stream if e["type"] == "tool_call")
    assert (call["toolCallId"], call["title"], call["kind"]) == (
        "tool-1",
        "Edit src/app.py",
        "edit",
    )
    permission = next(e for e in stream if e["type"] == "permission")
    assert permission["toolCallId"] == "tool-1"
    assert (permission["outcome"], permission["optionId"], permission["optionKind"]) == (
        "selected",
        "allow",
        "allow_once",
    )
    # Allowed (acp-tui's word until the agent's), then the agent's own status.
    updates = [e for e in stream if e["type"] == "tool_call_update"]
    assert [u["status"] for u in updates] == ["allowed", "completed"]
    assert all(u["entryId"] == call["entryId"] for u in updates)
    assert kinds.index("tool_call") < kinds.index("permission") < kinds.index("tool_call_update")
    messages = [e for e in stream if e["type"] == "message"]
    assert "".join(e["text"] for e in messages) == "outcome: allow"
    assert len({e["entryId"] for e in messages}) == 1
    assert stream[-1] == {
        "type": "result",
        "sessionId": session_id,
        "stopReason": "end_turn",
        "usage": None,
        "exitCode": 0,
    }


def test_json_has_thoughts_and_plans(tmp_path: Path) -> None:
    code, out, _ = ask(tmp_path, "think first", "--json")
    assert code == 0
    stream = events(out)
    assert any(e["type"] == "thought" and e["text"] == "secret thoughts" for e in stream)
    plan = next(e for e in stream if e["type"] == "plan")
    assert [entry["status"] for entry in plan["entries"]] == ["completed", "in_progress"]


def test_json_result_on_a_refusal_and_a_crash(tmp_path: Path) -> None:
    code, out, _ = ask(tmp_path, "please refuse", "--json")
    assert code == 1
    assert events(out)[-1]["stopReason"] == "refusal" and events(out)[-1]["exitCode"] == 1
    code, out, err = ask(tmp_path, "crash now", "--json")
    assert code == 3 and "exit code 3" in err
    assert events(out)[-1]["exitCode"] == 3


def test_json_is_valid_utf8_even_with_a_lone_surrogate(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "acp_tui", "ask", "surrogate", "--json", "--", *HOSTILE],
        cwd=tmp_path,
        env=isolated_env(tmp_path),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode("utf-8")  # strict: raises on anything that is not UTF-8
    stream = events(text)
    reply = "".join(e["text"] for e in stream if e["type"] == "message")
    assert reply == "Lone \ufffd surrogate in a reply. And the reply goes on."
    assert "\\ud8" not in text.lower() and "\\udc" not in text.lower()


def test_json_escapes_control_characters_as_data(tmp_path: Path) -> None:
    code, out, err = ask(
        tmp_path, "go", "--json", agent=[sys.executable, str(AGENTS / "scripted_agent.py")]
    )
    assert code == 0, err
    assert "\x1b" not in out  # escape codes arrive as \u001b inside JSON strings
    stream = events(out)
    assert stream[0]["type"] == "session"
    # The agent's text as it sent it: data for the script, never run as escape codes here.
    assert [e["title"] for e in stream if e["type"] == "tool_call"] == ["Run \x1b[2Jtests"]
    assert any(e["type"] == "message_block" for e in stream)


# ------------------------------------------------------------------ exit


def test_no_traceback_with_a_wrapper_that_ignores_sigterm(tmp_path: Path) -> None:
    """A wrapper script that ignores SIGTERM and lingers after its agent ended: shut down
    (TERM, then KILL), with every pipe closed, and nothing on stderr but our lines."""
    wrapper = tmp_path / "slow-wrapper.sh"
    wrapper.write_text("#!/bin/sh\ntrap '' TERM\n\"$@\"\nsleep 30\n")
    wrapper.chmod(0o755)
    started = time.monotonic()
    done = acp_tui(tmp_path, "ask", "hi", "--", str(wrapper), *SDK_AGENT, timeout=60)
    assert time.monotonic() - started < 25, "the wrapper was waited for"
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You said: hi\n"
    # Our lines only: the stop line last, and before it at most acp-tui's own notes (a
    # loaded machine can leave the project's first snapshot unfinished when the prompt goes:
    # "[info] No checkpoint for this turn…", CI saw it once).
    *notes, last = done.stderr.splitlines()
    assert last.startswith("stop: end_turn  session: "), done.stderr
    assert all(note.startswith("[info] ") for note in notes), done.stderr


def test_pipes_held_by_an_escaped_process_are_closed_at_shutdown(tmp_path: Path) -> None:
    """Where nothing sweeps an agent's leftovers (no /proc: macOS, the BSDs), a process that
    left the group keeps the agent's pipes open: the transport must still be closed, or
    asyncio prints "Event loop is closed" at exit."""
    script = textwrap.dedent(
        """
        import anyio
        from acp_tui.protocol import process, reaper

        reaper.supported = lambda: False  # a platform without the sweep
        reaper.enable = lambda: None

        async def main() -> None:
            agent = process.AgentProcess(
                ["sh", "-c", "trap '' TERM; setsid sleep 5 & sleep 30"]
            )
            await agent.start()
            async with anyio.create_task_group() as group:
                group.start_soon(agent.drain_stderr)
                await anyio.sleep(0.3)
                await agent.shutdown(grace=0.5)
                group.cancel_scope.cancel()
            print("ended:", agent.exit_description)

        anyio.run(main)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ended: killed by SIGKILL"
    assert done.stderr == "", done.stderr
