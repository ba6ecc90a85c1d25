"""The agent's unstable status methods in the session layer, against the demo agent over real
pipes: ``auth/status`` asked once after ``initialize`` and then only after a sign-in or logout
made here that the agent did not push (``auth/status_update``: never polled), a known
"not signed in" signs in before the call instead of after a refusal, ``session/status``
asked before reopening a session (an unknown one fails before any replay), and
``session/options`` filling the new session before it exists, its choices sent with
``session/new``. An agent that advertises none of them (the official SDK's) gets none."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.protocol.jsonrpc import RESOURCE_NOT_FOUND, RpcError
from acp_tui.session.agent.controller import SessionController
from acp_tui.session.agent.events import ControllerEvents, FaceHooks
from acp_tui.session.agent.turns import NOT_SIGNED_IN
from acp_tui.session.auth.methods import AuthMethod
from acp_tui.session.auth.status import AuthStatus
from acp_tui.session.errors import SessionError
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.store import SessionStore

pytestmark = pytest.mark.anyio

SDK_AGENT = [sys.executable, str(Path(__file__).parent / "agents" / "sdk_agent.py")]
STATUS_METHODS = {"auth/status", "session/status", "session/options"}


def sent(controller: SessionController) -> list[tuple[str, Any]]:
    """Every request and notification the client wrote, in order."""
    assert controller.client is not None
    out = []
    for record in list(controller.client.connection.traffic):
        if record.direction == "out" and record.text:
            message = json.loads(record.text)
            if "method" in message:
                out.append((message["method"], message.get("params")))
    return out


def methods(controller: SessionController) -> list[str]:
    return [method for method, _ in sent(controller)]


async def wait(predicate: Any, seconds: float = 30) -> None:
    with anyio.fail_after(seconds):
        while not predicate():
            await anyio.sleep(0.02)


async def nothing(controller: SessionController) -> None:
    """Opens no session at start (the TUI's plain start: the first message makes one)."""


class Seen:
    """What the controller told its face."""

    def __init__(self) -> None:
        self.auth: list[AuthStatus] = []
        self.options: list[Any] = []
        self.reasons: list[str] = []

    def events(self) -> ControllerEvents:
        return ControllerEvents(
            on_auth_status=self.auth.append, on_session_options=self.options.append
        )

    async def choose(self, listed: list[AuthMethod], reason: str) -> str | None:
        self.reasons.append(reason)
        return next(m.id for m in listed if m.kind == "agent")


def demo(tmp_path: Path, seen: Seen, **flags: Any) -> SessionController:
    argv = demo_agent_argv(str(tmp_path / "state"), chunk_delay=0, **flags)
    return SessionController(
        AgentSpec(argv, cwd=str(tmp_path)),
        store=SessionStore(),
        face=FaceHooks(
            events=seen.events(),
            choose_auth=seen.choose,
            terminal_auth=False,
            shows_new_session_options=True,
        ),
    )


async def test_auth_status_is_asked_once_and_pushes_feed_the_sign_in(tmp_path: Path) -> None:
    seen = Seen()
    controller = demo(tmp_path, seen)
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None)
        sid = controller.current_session_id
        assert sid is not None
        assert [s.state for s in seen.auth] == ["not_required"]
        controller.send_prompt(sid, "/signout")
        await wait(lambda: not controller.is_busy(sid) and len(seen.auth) == 2)
        assert seen.auth[-1].needs_sign_in and controller.sign_in.needs_sign_in
        controller.send_prompt(sid, "after the push")
        await wait(lambda: not controller.is_busy(sid) and len(seen.auth) == 3)
        await controller.logout()
        await wait(lambda: len(seen.auth) == 4)
        wire = methods(controller)
        controller.request_stop()
    # Asked once, after initialize and before the first session; the rest was pushed.
    assert wire.count("auth/status") == 1
    assert wire.index("auth/status") < wire.index("session/new")
    # The push said "not signed in": the sign-in came before the prompt, which went once.
    assert seen.reasons == [NOT_SIGNED_IN]
    prompts = [p["prompt"][0]["text"] for m, p in sent(controller) if m == "session/prompt"]
    assert prompts == ["/signout", "after the push"]
    assert wire.index("authenticate") < len(wire) - wire[::-1].index("session/prompt")
    signed_in = seen.auth[2]
    assert signed_in.signed_in and signed_in.headline() == "Demo sign-in (demo user)"
    assert seen.auth[3].needs_sign_in  # logged out, sign-in still required: pushed


async def test_a_sign_in_the_agent_does_not_push_is_asked_once(tmp_path: Path) -> None:
    """A terminal login's token is seen by the agent only when asked: after the sign-in
    made here, ``auth/status`` goes out once more, and the header learns who it is."""
    seen = Seen()
    controller = demo(tmp_path, seen, require_auth=True)
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run, nothing)
        await wait(lambda: controller.ready.is_set() and seen.auth)
        assert seen.auth[0].needs_sign_in
        client = controller.client
        assert client is not None
        state_dir = tmp_path / "state"
        (state_dir / "login-token.json").write_text(
            json.dumps({"name": "Tess", "method": "terminal", "at": "now"})
        )
        pushes = controller.sign_in.pushes
        await controller.sign_in.changed_here(client, pushes)
        controller.request_stop()
    assert methods(controller).count("auth/status") == 2
    assert seen.auth[-1].signed_in
    assert seen.auth[-1].headline() == "Terminal login (Tess)"


async def test_an_agent_that_does_not_tell_its_sign_in_is_never_asked(tmp_path: Path) -> None:
    seen = Seen()
    controller = demo(tmp_path, seen, no_auth_status=True)
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None)
        sid = controller.current_session_id
        assert sid is not None
        controller.send_prompt(sid, "/signout")
        await wait(lambda: not controller.is_busy(sid))
        controller.request_stop()
    assert "auth/status" not in methods(controller)
    assert seen.auth == [] and not controller.sign_in.needs_sign_in


async def test_session_status_is_asked_before_reopening(tmp_path: Path) -> None:
    seen = Seen()
    first = demo(tmp_path, seen)
    async with anyio.create_task_group() as tg:
        tg.start_soon(first.run)
        await wait(lambda: first.current_session_id is not None)
        sid = first.current_session_id
        assert sid is not None
        first.send_prompt(sid, "hello")
        await wait(lambda: not first.is_busy(sid) and first.store.get(sid).transcript)
        assert "session/status" not in methods(first)  # a new session is not asked about
        first.request_stop()
    second = demo(tmp_path, Seen())
    async with anyio.create_task_group() as tg:
        tg.start_soon(second.run, lambda c: c.open_session(sid))
        await wait(lambda: second.current_session_id == sid)
        with pytest.raises(SessionError) as unknown:
            await second.open_session("demo-0123456789abcdef")
        wire = sent(second)
        second.request_stop()
    names = [m for m, _ in wire]
    assert names.count("session/status") == 2
    assert names.index("session/status") < names.index("session/load")
    assert second.reported_status(sid) == "saved"
    # The unknown one failed on session/status: nothing was loaded for it.
    loads = [p["sessionId"] for m, p in wire if m == "session/load"]
    assert loads == [sid]
    assert "demo-0123456789abcdef" in str(unknown.value) or unknown.value.not_found  # type: ignore[attr-defined]


class StatusClient:
    """Stands in for AcpClient's ``session/status``: answers what the test says."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    async def session_status(self, session_id: str) -> Any:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.mark.parametrize(
    ("answer", "noted"),
    [
        ({"status": "open"}, "open"),
        ({"status": "saved"}, "saved"),
        ({"status": "_vendor_state"}, "saved"),  # unknown: saved, as the spec says
        ({}, "saved"),
        (RpcError(-32603, "internal"), None),  # any other refusal changes nothing
    ],
)
async def test_what_session_status_notes(answer: Any, noted: str | None) -> None:
    from acp_tui.protocol.agent_info import AgentInfo

    controller = SessionController(AgentSpec(["agent"], cwd="."), store=SessionStore())
    controller.state.client = StatusClient(answer)  # type: ignore[assignment]
    controller.state.agent = AgentInfo(capabilities={"sessionCapabilities": {"status": {}}})
    await controller.calls._ask_status("s1")
    assert controller.reported_status("s1") == noted


async def test_an_unknown_session_fails_on_session_status() -> None:
    from acp_tui.protocol.agent_info import AgentInfo

    controller = SessionController(AgentSpec(["agent"], cwd="."), store=SessionStore())
    controller.state.client = StatusClient(RpcError(RESOURCE_NOT_FOUND, "no such session"))  # type: ignore[assignment]
    controller.state.agent = AgentInfo(capabilities={"sessionCapabilities": {"status": {}}})
    with pytest.raises(RpcError):
        await controller.calls._ask_status("gone")


async def test_session_options_fill_the_new_session_and_go_with_it(tmp_path: Path) -> None:
    seen = Seen()
    controller = demo(tmp_path, seen)
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run, nothing)
        await wait(lambda: seen.options)
        offered = seen.options[0]["configOptions"]
        model = next(o for o in offered if o["id"] == "model")
        values = [v["value"] for g in model["options"] for v in g["options"]]
        other = next(v for v in values if v != model["currentValue"])
        assert "session/new" not in methods(controller)  # offered before any session
        sid = await controller.new_session(config={"model": other})
        wire = sent(controller)
        controller.request_stop()
    new = next(p for m, p in wire if m == "session/new")
    assert new["configOptions"] == [{"configId": "model", "value": other}]
    assert "session/set_config_option" not in [m for m, _ in wire]  # taken with the session
    state = controller.store.get(sid)
    assert state is not None
    assert (
        next(o for o in state.config_options or [] if o["id"] == "model")["currentValue"] == other
    )
    options = next(p for m, p in wire if m == "session/options")
    assert options == {"cwd": str(tmp_path)}


async def test_an_agent_that_advertises_none_of_them_is_asked_none(tmp_path: Path) -> None:
    """The official SDK's agent: sign-in, reopening and new sessions go as before, and not
    one of the unstable status methods is sent."""
    seen = Seen()
    controller = SessionController(
        AgentSpec(SDK_AGENT, cwd=str(tmp_path)),
        store=SessionStore(),
        face=FaceHooks(events=seen.events(), choose_auth=seen.choose),
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None)
        sid = controller.current_session_id
        assert sid is not None
        controller.send_prompt(sid, "hello")
        await wait(lambda: not controller.is_busy(sid) and controller.store.get(sid).transcript)
        await controller.new_session(config={"model": "x"})
        controller.drop_session(sid)
        await controller.open_session(sid)
        wire = methods(controller)
        controller.request_stop()
    assert "session/new" in wire and ("session/load" in wire or "session/resume" in wire)
    assert not STATUS_METHODS & set(wire)
    assert seen.auth == [] and seen.options == []


@pytest.mark.parametrize("version", [1, 2])
def test_what_the_agent_advertises_is_read_in_both_versions(version: int) -> None:
    from acp_tui.protocol.agent_info import parse_agent_info

    if version == 2:
        answer: dict[str, Any] = {
            "protocolVersion": 2,
            "info": {"name": "a", "version": "1"},
            "capabilities": {"session": {"status": {}, "options": {}}, "auth": {"status": {}}},
        }
        bare: dict[str, Any] = {"protocolVersion": 2, "capabilities": {"session": {}}}
    else:
        answer = {
            "protocolVersion": 1,
            "agentCapabilities": {
                "sessionCapabilities": {"status": {}, "options": {}},
                "auth": {"status": {}},
            },
        }
        bare = {"protocolVersion": 1, "agentCapabilities": {"auth": {"status": None}}}
    told = parse_agent_info(answer)
    assert told.can_auth_status and told.can_session_status and told.can_session_options
    silent = parse_agent_info(bare)
    assert not (silent.can_auth_status or silent.can_session_status or silent.can_session_options)


async def test_a_face_without_a_new_session_view_does_not_ask_session_options(
    tmp_path: Path,
) -> None:
    """``acp-tui ask`` shows no options before its session: nothing to ask for."""
    controller = SessionController(
        AgentSpec(demo_agent_argv(str(tmp_path / "state"), chunk_delay=0), cwd=str(tmp_path)),
        store=SessionStore(),
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None)
        wire = methods(controller)
        controller.request_stop()
    assert "session/options" not in wire and "auth/status" in wire
