"""End to end over a real subprocess, against an agent written with the official ACP Python
SDK (tests/agents/sdk_agent.py): an independent implementation of the protocol."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.protocol.client import AcpClient

AGENT = [sys.executable, str(Path(__file__).parent / "agents" / "sdk_agent.py")]
TIMEOUT = 15


class Collector:
    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []

    def __call__(self, method: str, params: Any) -> None:
        if method == "session/update":
            self.updates.append(params)

    def of(self, session_id: str, kind: str | None = None) -> list[dict[str, Any]]:
        return [
            p["update"]
            for p in self.updates
            if p["sessionId"] == session_id
            and (kind is None or p["update"]["sessionUpdate"] == kind)
        ]


@pytest.mark.anyio
async def test_sdk_agent_end_to_end(tmp_path: Path) -> None:
    collector = Collector()
    permission_requests: list[Any] = []

    async def on_permission(params: Any) -> dict[str, Any]:
        permission_requests.append(params)
        allow = next(o for o in params["options"] if o["kind"] == "allow_once")
        return {"outcome": {"outcome": "selected", "optionId": allow["optionId"]}}

    with anyio.fail_after(TIMEOUT):
        async with AcpClient.launch(
            AGENT,
            cwd=tmp_path,
            log_dir=tmp_path / "logs",
            handlers={"session/request_permission": on_permission},
            on_notification=collector,
        ) as client:
            # initialize
            info = await client.initialize()
            assert info.name == "sdk-test-agent"
            assert info.can_load and info.can_list

            # session/new
            new = await client.new_session(str(tmp_path))
            session_id = new["sessionId"]
            assert session_id.startswith("sess-")

            # prompt with streaming: every chunk arrives, in order, before the response
            text = "hello streaming world"
            result = await client.prompt(session_id, [{"type": "text", "text": text}])
            assert result["stopReason"] == "end_turn"
            chunks = [u["content"]["text"] for u in collector.of(session_id, "agent_message_chunk")]
            assert chunks == ["You", " said:", " hello", " streaming", " world"]
            assert "".join(chunks) == f"You said: {text}"

            # a permission request, answered by the handler
            before = len(collector.of(session_id))
            result = await client.prompt(session_id, [{"type": "text", "text": "needs permission"}])
            assert result["stopReason"] == "end_turn"
            assert len(permission_requests) == 1
            request = permission_requests[0]
            assert request["sessionId"] == session_id
            assert request["toolCall"]["toolCallId"] == "tool-1"
            assert [o["kind"] for o in request["options"]] == [
                "allow_once",
                "allow_always",
                "reject_once",
            ]
            turn = collector.of(session_id)[before:]
            assert [u["sessionUpdate"] for u in turn] == [
                "tool_call",
                "tool_call_update",
                "agent_message_chunk",
            ]
            assert turn[1]["status"] == "completed"
            assert turn[2]["content"]["text"] == "outcome: allow"

            # session/list: two pages (3 pre-made sessions here + the new one, 2 per page)
            first = await client.list_sessions(str(tmp_path))
            assert len(first["sessions"]) == 2 and first.get("nextCursor")
            requests_before = _count_out(client, "session/list")
            sessions = await client.list_all_sessions(str(tmp_path))
            assert _count_out(client, "session/list") - requests_before == 2
            ids = [s["sessionId"] for s in sessions]
            assert ids == ["pre-1", "pre-2", "pre-3", session_id]
            assert all(Path(s["cwd"]).resolve() == tmp_path.resolve() for s in sessions)
            everywhere = await client.list_all_sessions()
            assert "pre-elsewhere" in [s["sessionId"] for s in everywhere]

            # session/load replays history before its response
            replay_start = len(collector.updates)
            await client.load_session("pre-2", str(tmp_path))
            replayed = [p["update"] for p in collector.updates[replay_start:]]
            assert [(u["sessionUpdate"], u["content"]["text"]) for u in replayed] == [
                ("user_message_chunk", "question 2"),
                ("agent_message_chunk", "answer 2"),
            ]
            assert all(p["sessionId"] == "pre-2" for p in collector.updates[replay_start:])


def _count_out(client: AcpClient, method: str) -> int:
    return sum(
        1
        for record in client.connection.traffic
        if record.direction == "out" and f'"method":"{method}"' in record.text
    )


# ------------------------------------------------------------------ the CLI, as a user runs it


def run_cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, **(env or {})},
        check=False,
    )


def test_cli_ask(tmp_path: Path) -> None:
    done = run_cli("ask", "hello there", "--", *AGENT, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You said: hello there\n"
    assert "stop: end_turn  session: sess-" in done.stderr
    assert "Traceback" not in done.stderr


def test_cli_ask_continues_a_session_without_echoing_history(tmp_path: Path) -> None:
    done = run_cli("ask", "--session", "pre-1", "once more", "--", *AGENT, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You said: once more\n"  # not "question 1" / "answer 1"
    assert "session: pre-1" in done.stderr


def test_cli_ask_resumes_when_the_agent_can(tmp_path: Path) -> None:
    done = run_cli(
        "ask",
        "--session",
        "pre-1",
        "resumed",
        "--",
        *AGENT,
        cwd=tmp_path,
        env={"SDK_AGENT_RESUME": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You said: resumed\n"


def test_cli_ask_reads_prompt_from_stdin(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "acp_tui", "ask", "-", "--", *AGENT],
        cwd=tmp_path,
        input="from stdin",
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You said: from stdin\n"


def test_cli_sessions_json_has_every_page(tmp_path: Path) -> None:
    done = run_cli("sessions", "--json", "--", *AGENT, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    sessions = json.loads(done.stdout)
    assert [s["sessionId"] for s in sessions] == ["pre-1", "pre-2", "pre-3"]
    # Raw SessionInfo objects, untouched (the escape is JSON-escaped, not stripped).
    assert sessions[1]["title"] == "Fix \x1b[31mred\x1b[0m bug\x07 now"
    assert sessions[0]["updatedAt"] == "2025-01-01T10:00:00Z"

    everywhere = run_cli("sessions", "--all", "--json", "--", *AGENT, cwd=tmp_path)
    assert everywhere.returncode == 0, everywhere.stderr
    ids = [s["sessionId"] for s in json.loads(everywhere.stdout)]
    assert ids == ["pre-1", "pre-2", "pre-3", "pre-elsewhere"]


def test_cli_sessions_table(tmp_path: Path) -> None:
    done = run_cli("sessions", "--", *AGENT, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["TITLE", "UPDATED", "CWD", "ID"]
    assert len(lines) == 4
    assert "Fix red bug␇ now" in done.stdout  # escapes removed, the lone BEL shown
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert lines[1].endswith("pre-1") and str(tmp_path.resolve()) in lines[1]


@pytest.mark.anyio
async def test_launch_lets_an_exception_from_the_body_through_unwrapped(tmp_path: Path) -> None:
    """`except SomeError` around `async with AcpClient.launch(...)` must work: the task
    group inside launch used to wrap the body's exception in an ExceptionGroup."""

    class Boom(Exception):
        pass

    with anyio.fail_after(TIMEOUT), pytest.raises(Boom):
        async with AcpClient.launch(AGENT, cwd=tmp_path, log_dir=tmp_path / "logs") as client:
            await client.initialize()
            raise Boom
    assert client.process.returncode is not None  # and the agent was still shut down
