"""The replayer's agent side (:class:`ReplayPeer`) against the real client (``AcpClient``
and its ``Connection``), with no agent process: re-keyed ids, matching by method and order,
pacing, the permission round trip, skipped requests, a recorded crash, the driver."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.protocol.client import AcpClient
from acp_tui.protocol.errors import AgentExitedError
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.recording import (
    FROM_AGENT,
    TO_AGENT,
    Recording,
    event_line,
    header_line,
    load_recording,
    message_line,
)
from acp_tui.protocol.replay_peer import ReplayPeer, ReplayProcess
from tests.waits import until

pytestmark = pytest.mark.anyio

INIT_RESULT = {"protocolVersion": 1, "agentCapabilities": {}, "agentInfo": {"name": "rec"}}


def rpc(**fields: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", **fields}


def update(session: str, text: str) -> dict[str, Any]:
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    return rpc(method="session/update", params={"sessionId": session, "update": chunk})


def write_recording(
    path: Path, lines: list[tuple[float, str, Any]], closed: dict[str, Any] | None = None
) -> Recording:
    """A recording file: (t, direction, message) lines; a str message is a junk line."""
    data = header_line(["recorded-agent"], "/w", 0.0)
    for t, direction, message in lines:
        if isinstance(message, str):
            data += message_line(t, direction, message, "not JSON")
        else:
            data += message_line(t, direction, json.dumps(message))
    if closed is not None:
        data += event_line(closed.pop("t"), "closed", **closed)
    path.write_bytes(data)
    return load_recording(path)


def opening(session: str = "s1", init_id: Any = "init", new_id: Any = 41) -> list[Any]:
    return [
        (0.0, TO_AGENT, rpc(id=init_id, method="initialize", params={})),
        (0.1, FROM_AGENT, rpc(id=init_id, result=INIT_RESULT)),
        (0.2, TO_AGENT, rpc(id=new_id, method="session/new", params={"cwd": "/w"})),
        (0.3, FROM_AGENT, rpc(id=new_id, result={"sessionId": session})),
    ]


class Replay:
    """A client launched on a peer, with what it was told."""

    def __init__(self, recording: Recording, **peer_options: Any) -> None:
        self.peer = ReplayPeer(recording.segments[0], **peer_options)
        self.updates: list[str] = []
        self.process: ReplayProcess | None = None

    def factory(self, argv: list[str], **_: Any) -> ReplayProcess:
        self.process = ReplayProcess(self.peer, self.peer.segment.argv)
        return self.process

    def on_notification(self, method: str, params: Any) -> None:
        if method == "session/update":
            self.updates.append(params["update"]["content"]["text"])

    def launch(self, handlers: dict[str, Any] | None = None) -> Any:
        return AcpClient.launch(
            ["not-run"],
            process_factory=self.factory,
            handlers=handlers or {},
            on_notification=self.on_notification,
        )


async def test_answers_are_rekeyed_to_the_ids_the_client_uses_now(tmp_path: Path) -> None:
    recording = write_recording(
        tmp_path / "r.jsonl",
        [
            *opening(init_id="init-1", new_id=41),
            (1.0, TO_AGENT, rpc(id=42, method="session/prompt", params={"sessionId": "s1"})),
            (1.1, FROM_AGENT, update("s1", "hello")),
            (1.2, FROM_AGENT, rpc(id=42, result={"stopReason": "end_turn"})),
        ],
    )
    replay = Replay(recording, speed=0)
    async with replay.launch() as client:
        agent = await client.initialize()
        session = await client.new_session("/anywhere")
        result = await client.prompt(session["sessionId"], [{"type": "text", "text": "x"}])
        received = [json.loads(r.text) for r in client.connection.traffic if r.direction == "in"]
    assert agent.name == "rec" and session == {"sessionId": "s1"}
    assert result == {"stopReason": "end_turn"}
    assert replay.updates == ["hello"]
    assert [m["id"] for m in received if "id" in m] == [
        0,
        1,
        2,
    ]  # the client's ids, not "init-1", 41, 42
    assert replay.process is not None and replay.process.pid is None  # nothing was spawned


async def test_requests_are_matched_by_method_and_order(tmp_path: Path) -> None:
    recording = write_recording(
        tmp_path / "r.jsonl",
        [
            *opening(),
            (0.4, TO_AGENT, rpc(id=50, method="session/list", params={})),
            (0.5, TO_AGENT, rpc(id=51, method="session/set_mode", params={"modeId": "a"})),
            (0.6, FROM_AGENT, rpc(id=50, result={"sessions": [], "page": 1})),
            (0.7, FROM_AGENT, rpc(id=51, result={"mode": "a"})),
            (0.8, TO_AGENT, rpc(id=52, method="session/list", params={})),
            (0.9, FROM_AGENT, rpc(id=52, result={"sessions": [], "page": 2})),
        ],
    )
    replay = Replay(recording, speed=0)
    async with replay.launch() as client:
        await client.initialize()
        await client.new_session("/w")
        first = await client.call("session/list", {})
        second = await client.call("session/list", {})
        mode = await client.call("session/set_mode", {"modeId": "b"})  # the recorded answer
        with pytest.raises(
            RpcError, match="this is a replay: the recording has no answer to session/list number 3"
        ):
            await client.call("session/list", {})
    assert (first["page"], second["page"], mode) == (1, 2, {"mode": "a"})


@pytest.mark.parametrize(("speed", "expected"), [(1.0, [0.5, 1.5]), (2.0, [0.25, 0.75]), (0.0, [])])
async def test_the_agents_messages_keep_their_recorded_pace(
    tmp_path: Path, speed: float, expected: list[float]
) -> None:
    recording = write_recording(
        tmp_path / "r.jsonl",
        [
            *opening(),
            (0.8, FROM_AGENT, update("s1", "a")),
            (2.3, FROM_AGENT, update("s1", "b")),
        ],
    )
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(round(seconds, 6))

    replay = Replay(recording, speed=speed, sleep=sleep)
    async with replay.launch() as client:
        await client.initialize()
        await client.new_session("/w")
        with anyio.fail_after(20):
            await replay.peer.finished.wait()
        # The peer is finished once its last line is written; the client's reader may not have
        # read it yet (a loaded machine showed the last update missing).
        await until(lambda: len(replay.updates) >= 2, "the client to take in both", limit=20)
    # The opening's gaps (0.1 s each) come first; then the two updates' gaps.
    opening_gaps = [round(0.1 / speed, 6)] * 3 if speed else []
    assert slept == opening_gaps + expected
    assert replay.updates == ["a", "b"]


async def test_a_permission_dialog_is_answered_by_the_person_and_the_recording_goes_on(
    tmp_path: Path,
) -> None:
    permission = {"sessionId": "s1", "toolCall": {"toolCallId": "t1"}, "options": []}
    recording = write_recording(
        tmp_path / "r.jsonl",
        [
            *opening(),
            (1.0, TO_AGENT, rpc(id=42, method="session/prompt", params={"sessionId": "s1"})),
            (1.1, FROM_AGENT, update("s1", "asking")),
            (1.2, FROM_AGENT, rpc(id=7, method="session/request_permission", params=permission)),
            (
                5.0,
                TO_AGENT,
                rpc(id=7, result={"outcome": {"outcome": "selected", "optionId": "allow"}}),
            ),
            (5.1, FROM_AGENT, update("s1", "outcome: allow")),
            (5.2, FROM_AGENT, rpc(id=42, result={"stopReason": "end_turn"})),
        ],
    )
    replay = Replay(recording, speed=0)
    asked = anyio.Event()
    answer = anyio.Event()
    seen_when_asked: list[str] = []

    async def request_permission(params: Any) -> Any:
        seen_when_asked.extend(replay.updates)
        asked.set()
        await answer.wait()
        return {"outcome": {"outcome": "selected", "optionId": "reject"}}

    async with replay.launch({"session/request_permission": request_permission}) as client:
        await client.initialize()
        await client.new_session("/w")
        async with anyio.create_task_group() as task_group:
            results: list[Any] = []

            async def prompt() -> None:
                results.append(await client.prompt("s1", [{"type": "text", "text": "go"}]))

            task_group.start_soon(prompt)
            with anyio.fail_after(20):
                await asked.wait()
            # The replay waits for the person: nothing after the dialog has come.
            for _ in range(20):
                await anyio.lowlevel.checkpoint()
            assert replay.updates == ["asking"] and not results
            answer.set()
    assert seen_when_asked == ["asking"]
    # The person rejected; the recorded continuation (allowed) is what plays.
    assert replay.updates == ["asking", "outcome: allow"]
    assert results == [{"stopReason": "end_turn"}]
    assert replay.peer._client_replies  # the person's answer was taken in


async def test_requests_that_would_act_on_this_machine_are_not_sent(tmp_path: Path) -> None:
    write = {"sessionId": "s1", "path": "/etc/passwd", "content": "x"}
    recording = write_recording(
        tmp_path / "r.jsonl",
        [
            *opening(),
            (1.0, TO_AGENT, rpc(id=42, method="session/prompt", params={"sessionId": "s1"})),
            (1.1, FROM_AGENT, rpc(id=8, method="fs/write_text_file", params=write)),
            (1.2, TO_AGENT, rpc(id=8, result={})),
            (1.3, FROM_AGENT, rpc(id=9, method="terminal/create", params={"command": "rm"})),
            (1.4, TO_AGENT, rpc(id=9, result={"terminalId": "t"})),
            (1.5, FROM_AGENT, update("s1", "done")),
            (1.6, FROM_AGENT, rpc(id=42, result={"stopReason": "end_turn"})),
        ],
    )
    replay = Replay(recording, speed=0)
    called: list[str] = []

    async def act(params: Any) -> Any:
        called.append(str(params))
        return {}

    handlers = {"fs/write_text_file": act, "terminal/create": act}
    async with replay.launch(handlers) as client:
        await client.initialize()
        await client.new_session("/w")
        result = await client.prompt("s1", [{"type": "text", "text": "go"}])
        tail = list(client.process.stderr_tail)
    assert called == [] and result["stopReason"] == "end_turn" and replay.updates == ["done"]
    assert any("fs/write_text_file" in line for line in tail)
    assert any("terminal/create" in line for line in tail)


async def test_junk_the_agent_printed_reaches_the_client_again(tmp_path: Path) -> None:
    recording = write_recording(
        tmp_path / "r.jsonl",
        [
            (0.0, FROM_AGENT, "Loading model..."),
            *opening(),
            (0.5, FROM_AGENT, "[debug] hello"),
        ],
    )
    replay = Replay(recording, speed=0)
    async with replay.launch() as client:
        await client.initialize()
        await client.new_session("/w")
        with anyio.fail_after(20):
            await replay.peer.finished.wait()
        await until(lambda: client.connection.stats.skipped_lines >= 2, "both junk lines", limit=20)
        assert client.connection.stats.skipped_lines == 2
        assert client.connection.stats.last_skipped == "not JSON: [debug] hello"


async def test_a_recorded_crash_ends_the_connection_as_it_did(tmp_path: Path) -> None:
    recording = write_recording(
        tmp_path / "r.jsonl",
        [
            *opening(),
            (1.0, TO_AGENT, rpc(id=42, method="session/prompt", params={"sessionId": "s1"})),
            (1.1, FROM_AGENT, update("s1", "about to crash")),
        ],
        closed={"t": 1.2, "by": "agent", "exit": "exit code 3"},
    )
    replay = Replay(recording, speed=0)
    async with replay.launch() as client:
        await client.initialize()
        await client.new_session("/w")
        with pytest.raises(AgentExitedError, match=r"exit code 3, as recorded"):
            await client.prompt("s1", [{"type": "text", "text": "crash"}])
    assert replay.updates == ["about to crash"]
    assert replay.process is not None and replay.process.returncode == 3


async def test_what_the_person_did_is_asked_of_the_driver(tmp_path: Path) -> None:
    """A recorded prompt this client has not sent: the driver sends it (the TUI shows it as
    the person's message); the recorded answer then goes to it."""
    prompt = {"sessionId": "s1", "prompt": [{"type": "text", "text": "recorded words"}]}
    recording = write_recording(
        tmp_path / "r.jsonl",
        [
            *opening(),
            (1.0, TO_AGENT, rpc(id=42, method="session/prompt", params=prompt)),
            (1.1, FROM_AGENT, update("s1", "reply")),
            (1.2, FROM_AGENT, rpc(id=42, result={"stopReason": "end_turn"})),
        ],
    )
    driven: list[tuple[str, Any]] = []
    results: list[Any] = []
    holder: dict[str, AcpClient] = {}
    async with anyio.create_task_group() as task_group:

        async def driver(method: str, params: Any) -> None:
            driven.append((method, params))

            async def send() -> None:
                results.append(await holder["client"].prompt(params["sessionId"], params["prompt"]))

            task_group.start_soon(send)

        replay = Replay(recording, speed=0, driver=driver)
        async with replay.launch() as client:
            holder["client"] = client
            await client.initialize()
            await client.new_session("/w")
            with anyio.fail_after(20):
                await replay.peer.finished.wait()
                while not results:
                    await anyio.sleep(0.01)
    assert driven == [("session/prompt", prompt)]
    assert results == [{"stopReason": "end_turn"}] and replay.updates == ["reply"]


def test_the_first_session_new_is_the_clients_own_a_later_one_the_persons() -> None:
    peer = ReplayPeer.__new__(ReplayPeer)
    peer.automatic = frozenset({"session/new"})
    assert not peer._drives("session/new", 0)
    assert peer._drives("session/new", 1)
    assert peer._drives("session/prompt", 0)
    assert not peer._drives("session/list", 3)
    peer.automatic = frozenset({"session/new", "session/load"})
    assert not peer._drives("session/load", 0) and peer._drives("session/load", 1)


async def test_a_listing_the_client_does_not_ask_for_holds_nothing_up(tmp_path: Path) -> None:
    """session/list depends on the screen (a sidebar too narrow to show is not listed): the
    timeline goes on without it, and its answer waits for whenever the client asks."""
    recording = write_recording(
        tmp_path / "r.jsonl",
        [
            *opening(),
            (0.4, TO_AGENT, rpc(id=50, method="session/list", params={})),
            (0.5, FROM_AGENT, rpc(id=50, result={"sessions": [{"sessionId": "old"}]})),
            (0.6, FROM_AGENT, update("s1", "after the listing")),
        ],
    )
    replay = Replay(recording, speed=0, stall_seconds=1000)
    async with replay.launch() as client:
        await client.initialize()
        await client.new_session("/w")
        with anyio.fail_after(20):
            await replay.peer.finished.wait()
        await until(lambda: bool(replay.updates), "the update taken in", limit=20)
        assert replay.updates == ["after the listing"]
        listing = await client.call("session/list", {})
    assert listing == {"sessions": [{"sessionId": "old"}]}
    assert replay.peer.notes == ["end of the recording"]
