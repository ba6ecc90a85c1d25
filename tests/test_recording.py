"""The wire recorder (``--record FILE``): its format, both directions, junk lines, awkward
text, a crash in the middle, a disk that fills up, and the command line that turns it on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui import __version__
from acp_tui.demo_agent import demo_agent_argv
from acp_tui.devtools.recording import open_recorder
from acp_tui.protocol.client import AcpClient
from acp_tui.protocol.jsonrpc import Connection, TrafficRecord
from acp_tui.protocol.recording import (
    FORMAT,
    FORMAT_VERSION,
    RecordingError,
    WireRecorder,
    load_recording,
    write_traffic,
)
from tests.wire_helpers import byte_pipe

pytestmark = pytest.mark.anyio

DATA = Path(__file__).resolve().parent / "data" / "recordings"


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().split(b"\n") if line.strip()]


async def test_a_real_session_is_recorded_whole_in_both_directions(tmp_path: Path) -> None:
    path = tmp_path / "wire.jsonl"
    recorder = open_recorder(str(path))
    argv = demo_agent_argv(state_dir=str(tmp_path / "state"), chunk_delay=0)
    async with AcpClient.launch(argv, cwd=tmp_path, recorder=recorder) as client:
        await client.initialize()
        session = await client.new_session(str(tmp_path))
        await client.prompt(session["sessionId"], [{"type": "text", "text": "hello"}])
    recorder.close()

    header, *lines = read_lines(path)
    assert header["format"] == FORMAT and header["version"] == FORMAT_VERSION
    assert header["acpTui"] == __version__
    assert header["agent"] == argv and header["cwd"] == str(tmp_path)
    assert header["started"].endswith("+00:00")
    messages = [line for line in lines if "msg" in line]
    # The client's three requests, each answered, in the order they went over the wire.
    sent = [m["msg"]["method"] for m in messages if m["dir"] == "to_agent" and "method" in m["msg"]]
    assert sent == ["initialize", "session/new", "session/prompt"]
    answers = [m["msg"]["id"] for m in messages if m["dir"] == "from_agent" and "id" in m["msg"]]
    assert answers == [0, 1, 2]
    updates = [m for m in messages if m["msg"].get("method") == "session/update"]
    assert updates and all(m["dir"] == "from_agent" for m in updates)
    times = [line["t"] for line in lines]
    assert times == sorted(times) and times[0] >= 0
    assert lines[-1]["event"] == "closed" and lines[-1]["by"] == "client"
    assert recorder.lines == len(lines) + 1 and recorder.error is None


async def test_the_messages_are_recorded_as_they_went_over_the_wire(tmp_path: Path) -> None:
    """The recorded ``msg`` is the wire's own text (not re-serialised): key order, spacing
    and escapes of an incoming line survive."""
    path = tmp_path / "wire.jsonl"
    recorder = open_recorder(str(path))
    peer_send, conn_receive = byte_pipe()
    conn_send, _peer_receive = byte_pipe()
    connection = Connection(conn_receive, conn_send)
    recorder.attach(connection, argv=["agent"], cwd="/w")
    raw = '{"method": "x/y",  "jsonrpc": "2.0", "params": {"s": "caf\\u00e9 \\ud83d\\ude00"}}'
    async with anyio.create_task_group() as task_group:
        task_group.start_soon(connection.run)
        await peer_send.send(raw.encode() + b"\n")
        await peer_send.aclose()
    recorder.close()
    line = path.read_bytes().split(b"\n")[1].decode()
    assert line.endswith(f'"msg":{raw}}}')


async def test_junk_lines_from_the_agent_are_recorded_as_text_and_marked(tmp_path: Path) -> None:
    path = tmp_path / "wire.jsonl"
    recorder = open_recorder(str(path))
    peer_send, conn_receive = byte_pipe()
    conn_send, _peer_receive = byte_pipe()
    connection = Connection(conn_receive, conn_send, max_line_bytes=1000)
    recorder.attach(connection, argv=["agent"], cwd="/w")
    async with anyio.create_task_group() as task_group:
        task_group.start_soon(connection.run)
        await peer_send.send(b"Loading model \xff\xfe...\n")
        await peer_send.send(b"[1, 2, 3]\n")
        await peer_send.send(b'"just a string"\n')
        await peer_send.send(b"x" * 5000 + b"\n")
        await peer_send.send(b'{"jsonrpc":"2.0","method":"session/update","params":{}}\n')
        await peer_send.aclose()
    recorder.close()

    _, *lines = read_lines(path)
    assert [line.get("junk") for line in lines] == [
        "not JSON",
        "not a JSON-RPC object",
        "not a JSON-RPC object",
        "line over 1000 bytes skipped (5000+ bytes)",
        None,
    ]
    assert lines[0]["text"] == "Loading model \ufffd\ufffd..."
    assert lines[1]["text"] == "[1, 2, 3]" and lines[2]["text"] == '"just a string"'
    assert lines[3]["text"] == ""  # never read: nothing to keep
    assert lines[4]["msg"]["method"] == "session/update"
    assert all(line["dir"] == "from_agent" for line in lines)
    # The reader sees the same: junk lines are entries, not problems of the file.
    recording = load_recording(path)
    assert recording.problems == []
    assert [entry.is_message for entry in recording.segments[0].entries] == [False] * 4 + [True]


@pytest.mark.parametrize(
    "text",
    [
        '{"jsonrpc":"2.0","method":"x","params":{"bad":"\ud800 and \udfff"}}',
        "junk with a lone surrogate \udc80",
    ],
    ids=["message", "junk"],
)
def test_lone_surrogates_are_written_as_escapes_that_read_back_the_same(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "wire.jsonl"
    recorder = open_recorder(str(path))
    recorder.attach(Connection(byte_pipe()[1], byte_pipe()[0]), argv=["a"], cwd="/")
    is_message = text.startswith("{")
    recorder._tap("out", text, "" if is_message else "not JSON")
    recorder.close()
    assert recorder.error is None
    path.read_bytes().decode("utf-8")  # strictly valid UTF-8
    entry = load_recording(path).segments[0].entries[0]
    if is_message:
        assert entry.message == json.loads(text)
    else:
        assert entry.text == text


async def test_a_huge_message_is_kept_whole(tmp_path: Path) -> None:
    """Kept, not cut: a message cut short cannot be replayed."""
    path = tmp_path / "wire.jsonl"
    recorder = open_recorder(str(path))
    peer_send, conn_receive = byte_pipe()
    conn_send, _ = byte_pipe()
    connection = Connection(conn_receive, conn_send)
    recorder.attach(connection, argv=["agent"], cwd="/w")
    big = "é" * 3_000_000
    message = {"jsonrpc": "2.0", "method": "session/update", "params": {"text": big}}
    async with anyio.create_task_group() as task_group:
        task_group.start_soon(connection.run)
        await peer_send.send(json.dumps(message, ensure_ascii=False).encode() + b"\n")
        await peer_send.aclose()
    recorder.close()
    (entry,) = load_recording(path).segments[0].entries
    assert entry.message == message
    # The inspector still keeps only its cut copy.
    assert len(connection.traffic[0].text) < len(big)


def test_every_line_up_to_a_crash_is_in_the_file(tmp_path: Path) -> None:
    """No buffering in the process: a SIGKILL right after a message loses nothing."""
    path = tmp_path / "wire.jsonl"
    script = textwrap.dedent(
        f"""
        import os, signal
        from acp_tui.protocol.jsonrpc import Connection
        from acp_tui.protocol.recording import WireRecorder
        from tests.wire_helpers import byte_pipe
        from acp_tui.devtools.recording import open_recorder
        recorder = open_recorder({str(path)!r})
        recorder.attach(Connection(byte_pipe()[1], byte_pipe()[0]), argv=["a"], cwd="/")
        for n in range(500):
            recorder._tap("in", '{{"jsonrpc":"2.0","method":"n","params":' + str(n) + '}}', "")
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    root = Path(__file__).resolve().parent.parent
    completed = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, timeout=60, check=False
    )
    assert completed.returncode == -signal.SIGKILL, completed.stderr
    entries = load_recording(path).segments[0].entries
    assert [entry.message["params"] for entry in entries] == list(range(500))


async def test_a_recorder_that_cannot_write_stops_and_the_session_goes_on(
    tmp_path: Path,
) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full")
    full = open("/dev/full", "wb", buffering=0)  # noqa: ASYNC230 - a device on purpose
    recorder = WireRecorder(Path("/dev/full"), full)
    argv = demo_agent_argv(state_dir=str(tmp_path / "state"), chunk_delay=0)
    async with AcpClient.launch(argv, cwd=tmp_path, recorder=recorder) as client:
        agent = await client.initialize()
        session = await client.new_session(str(tmp_path))
        result = await client.prompt(session["sessionId"], [{"type": "text", "text": "hi"}])
    assert agent.name and result["stopReason"] == "end_turn"
    assert recorder.error is not None and "/dev/full" in recorder.error


async def test_a_restarted_agent_is_a_second_connection_of_the_same_recording(
    tmp_path: Path,
) -> None:
    path = tmp_path / "wire.jsonl"
    recorder = open_recorder(str(path))
    argv = demo_agent_argv(state_dir=str(tmp_path / "state"), chunk_delay=0)
    for _ in range(2):
        async with AcpClient.launch(argv, cwd=tmp_path, recorder=recorder) as client:
            await client.initialize()
    recorder.close()
    recording = load_recording(path)
    assert len(recording.segments) == 2
    first, second = recording.segments
    assert second.argv == argv and second.start > 0
    assert all(entry.t >= second.start for entry in second.entries)
    assert first.closed is not None and second.closed is not None
    assert [len(s.entries) for s in recording.segments] == [2, 2]


def test_inspector_traffic_is_saved_in_the_same_format(tmp_path: Path) -> None:
    records = [
        TrafficRecord(1000.0, "out", '{"jsonrpc":"2.0","id":0,"method":"initialize"}'),
        TrafficRecord(1000.5, "in", "banner", "not JSON"),
        TrafficRecord(1001.0, "in", '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}'),
        TrafficRecord(1002.0, "in", '{"jsonrpc":"2.0","method":"x","par', "90,000 characters, cut"),
    ]
    path = tmp_path / "saved.jsonl"
    with path.open("wb") as file:
        count = write_traffic(file, records, argv=["agent", "--x"], cwd="/w", complete=False)
    assert count == 4
    recording = load_recording(path)
    assert recording.header["source"] == "inspector" and recording.header["complete"] is False
    assert recording.header["agent"] == ["agent", "--x"]
    entries = recording.segments[0].entries
    assert [(e.t, e.direction, e.is_message) for e in entries] == [
        (0.0, "to_agent", True),
        (0.5, "from_agent", False),
        (1.0, "from_agent", True),
        (2.0, "from_agent", False),
    ]
    assert entries[3].junk == "90,000 characters, cut"


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"", "not an acp-tui recording"),
        (b'{"hello": 1}\n', "not an acp-tui recording"),
        (b'{"format": "acp-tui-wire", "version": 99}\n', "format version 99"),
    ],
)
def test_a_file_that_is_not_a_recording_says_so(tmp_path: Path, content: bytes, why: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    with pytest.raises(RecordingError, match=why):
        load_recording(path)


def test_the_committed_recordings_are_recordings_of_real_agents() -> None:
    demo = load_recording(DATA / "demo-permission.jsonl")
    sdk = load_recording(DATA / "sdk-permission.jsonl")
    assert "acp_tui.demo_agent" in demo.header["agent"]
    assert sdk.header["agent"][-1].endswith("sdk_agent.py")
    for recording in (demo, sdk):
        assert recording.problems == []
        methods = [e.message.get("method") for e in recording.segments[0].entries if e.is_message]
        assert methods.count("session/prompt") == 2
        assert "session/request_permission" in methods
        assert (DATA / recording.path.name).stat().st_size < 20_000


# ---------------------------------------------------------------------------------- CLI


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_ask_with_record_writes_the_session_and_it_checks_clean(tmp_path: Path) -> None:
    path = tmp_path / "ask.jsonl"
    completed = run_cli("ask", "hello", "--record", str(path), "--demo", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    recording = load_recording(path)
    assert recording.header["cwd"] == str(tmp_path)
    methods = [e.message.get("method") for e in recording.segments[0].entries if e.is_message]
    # The demo agent tells its sign-in state: asked before the first session (unstable).
    assert methods[:5] == ["initialize", None, "auth/status", None, "session/new"]
    check = run_cli("replay", "--check", str(path), cwd=tmp_path)
    assert check.returncode == 0, check.stdout
    assert "no protocol errors" in check.stdout


def test_sessions_with_record_writes_the_listing(tmp_path: Path) -> None:
    path = tmp_path / "sessions.jsonl"
    completed = run_cli("sessions", "--record", str(path), "--demo", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    methods = [e.message.get("method") for e in load_recording(path).segments[0].entries]
    assert "session/list" in methods


def test_record_to_a_path_that_cannot_be_written_fails_at_once(tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "dir" / "x.jsonl"
    completed = run_cli("ask", "hi", "--record", str(target), "--demo", cwd=tmp_path)
    assert completed.returncode == 2
    assert f"--record {target}" in completed.stderr and "Traceback" not in completed.stderr


def test_an_agent_from_the_config_is_recorded_with_its_own_command(tmp_path: Path) -> None:
    argv = demo_agent_argv(state_dir=str(tmp_path / "state"), chunk_delay=0)
    config = tmp_path / "config.toml"
    config.write_text(
        f"[agents.mine]\ncommand = {json.dumps(argv[0])}\nargs = {json.dumps(argv[1:])}\n",
        encoding="utf-8",
    )
    path = tmp_path / "mine.jsonl"
    completed = subprocess.run(
        [sys.executable, "-m", "acp_tui", "ask", "hi", "--agent", "mine", "--record", str(path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "ACP_TUI_CONFIG": str(config)},
    )
    assert completed.returncode == 0, completed.stderr
    assert load_recording(path).header["agent"] == argv
