"""Signing in from the link: a terminal method never reaches ``authenticate``, whatever the agent
advertises; nothing is chosen for the person; a refused prompt is not lost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.session.agent.controller import SessionController
from acp_tui.session.agent.events import FaceHooks
from acp_tui.session.auth.methods import AuthMethod, TerminalLogin
from acp_tui.session.auth.signin import AuthNotDone, SignIn
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.store import SessionStore
from acp_tui.store.entries import UserMessage

pytestmark = pytest.mark.anyio


class RecordingClient:
    """Stands in for AcpClient: records every call the sign-in makes."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    async def call(self, method: str, params: Any = None) -> Any:
        self.calls.append((method, params))
        return {}


method_ids = st.text(min_size=1, max_size=8)
v1_method = st.fixed_dictionaries(
    {"id": method_ids, "name": st.text(max_size=8)},
    optional={
        "type": st.sampled_from(["terminal", "agent", "env_var", "_x", "", 3]),
        "args": st.lists(st.text(max_size=4), max_size=2),
        "env": st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2),
    },
)
v2_method = st.fixed_dictionaries(
    {"methodId": method_ids, "name": st.text(max_size=8)},
    optional={
        "type": st.sampled_from(["terminal", "agent", "env_var", "_x"]),
        "args": st.lists(st.text(max_size=4), max_size=2),
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    v2=st.booleans(),
    methods=st.data(),
    pick=st.integers(min_value=0, max_value=10),
    terminal_status=st.sampled_from([0, 1]),
)
def test_no_terminal_method_is_ever_sent_to_authenticate(
    v2: bool, methods: st.DataObject, pick: int, terminal_status: int
) -> None:
    """Any advertised list, any choice: only an agent-type method is sent to the login call;
    a terminal one runs the agent's command; any other kind is explained, never guessed."""
    raw = methods.draw(st.lists(v2_method if v2 else v1_method, max_size=5))
    ran: list[TerminalLogin] = []

    async def choose(listed: list[AuthMethod], reason: str) -> str | None:
        return listed[pick % len(listed)].id if listed else None

    async def run(login: TerminalLogin) -> int:
        ran.append(login)
        return terminal_status

    async def scenario() -> None:
        sign_in = SignIn(["agent", "--acp"], "/tmp", None, choose, run)
        sign_in.configure(raw, v2=v2, agent_name="agent")
        client = RecordingClient()
        try:
            await sign_in.sign_in(
                client, "needed", login_call="auth/login" if v2 else "authenticate"
            )  # type: ignore[arg-type]
        except AuthNotDone:
            pass
        for _method, params in client.calls:
            # Every advertised method with that id is plainly an agent method.
            same = [m for m in raw if m.get("methodId" if v2 else "id") == params["methodId"]]
            assert same
            for method in same:
                assert method.get("type") == "agent" or (not v2 and "type" not in method)
        for login in ran:
            assert login.method.kind == "terminal"
            assert login.argv == ["agent", "--acp", *login.method.args]
        assert len(client.calls) + len(ran) <= 1

    anyio.run(scenario)


async def test_without_a_chooser_nothing_is_picked_for_the_person() -> None:
    sign_in = SignIn(["agent"], "/tmp", None, None, None)
    sign_in.configure([{"id": "only", "name": "Only"}], v2=False, agent_name="Agent")
    client = RecordingClient()
    with pytest.raises(AuthNotDone, match=r"Only \[only\]"):
        await sign_in.sign_in(client, "needed", login_call="authenticate")  # type: ignore[arg-type]
    assert client.calls == []


async def test_a_terminal_method_without_a_terminal_says_what_to_run() -> None:
    async def choose(listed: list[AuthMethod], reason: str) -> str | None:
        return "tui"

    sign_in = SignIn(["my agent"], "/tmp", None, choose, None)
    sign_in.configure(
        [{"id": "tui", "type": "terminal", "args": ["--login"]}], v2=False, agent_name="A"
    )
    client = RecordingClient()
    with pytest.raises(AuthNotDone, match=r"'my agent' --login"):
        await sign_in.sign_in(client, "needed", login_call="authenticate")  # type: ignore[arg-type]
    assert client.calls == []


# ------------------------------------------------------------------ against the demo agent


def run_login_with_name(name: str) -> Any:
    """A terminal runner for tests: runs the real command, typing ``name`` at its prompt."""

    async def run(login: TerminalLogin) -> int:
        completed = await anyio.to_thread.run_sync(
            lambda: subprocess.run(
                login.argv,
                cwd=login.cwd,
                env=login.environment(),
                input=f"{name}\n",
                capture_output=True,
                text=True,
                check=False,
            )
        )
        assert "Signed in as" in completed.stdout
        return completed.returncode

    return run


def sent(controller: SessionController) -> list[tuple[str, Any]]:
    assert controller.client is not None
    out = []
    for record in list(controller.client.connection.traffic):
        if record.direction == "out" and record.text:
            message = json.loads(record.text)
            if "method" in message:
                out.append((message["method"], message.get("params")))
    return out


async def wait(predicate: Any, what: str, seconds: float = 30) -> None:
    with anyio.fail_after(seconds):
        while not predicate():
            await anyio.sleep(0.02)


async def test_terminal_sign_in_opens_the_session_the_agent_refused(tmp_path: Path) -> None:
    asked: list[list[str]] = []

    async def choose(listed: list[AuthMethod], reason: str) -> str | None:
        asked.append([m.kind for m in listed])
        return next(m.id for m in listed if m.kind == "terminal")

    store = SessionStore()
    controller = SessionController(
        AgentSpec(
            demo_agent_argv(str(tmp_path / "state"), chunk_delay=0, require_auth=True),
            cwd=str(tmp_path),
        ),
        store=store,
        face=FaceHooks(choose_auth=choose, run_terminal_login=run_login_with_name("Tester")),
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None, "the session")
        initialize = sent(controller)[0][1]
        assert initialize["clientCapabilities"]["auth"] == {"terminal": True}
        controller.request_stop()
    # The agent offered its terminal method because we said we can run it, and it was run.
    assert asked == [["terminal", "agent"]]
    assert [m for m, _ in sent(controller) if m == "authenticate"] == []


async def test_a_prompt_refused_for_sign_in_is_sent_again_once_signed_in(tmp_path: Path) -> None:
    chosen: list[str] = []

    async def choose(listed: list[AuthMethod], reason: str) -> str | None:
        chosen.append("agent")
        return next(m.id for m in listed if m.kind == "agent")

    store = SessionStore()
    controller = SessionController(
        # An agent that does not tell its sign-in state: it is learnt from auth_required
        # (one that does is signed in before the call: tests/test_auth_status.py).
        AgentSpec(
            demo_agent_argv(str(tmp_path / "state"), chunk_delay=0, no_auth_status=True),
            cwd=str(tmp_path),
        ),
        store=store,
        face=FaceHooks(choose_auth=choose),
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None, "the session")
        sid = controller.current_session_id
        assert sid is not None
        controller.send_prompt(sid, "/login")
        await wait(lambda: not controller.is_busy(sid), "/login answered")
        controller.send_prompt(sid, "after sign-in")
        await wait(lambda: not controller.is_busy(sid) and chosen, "the second turn")
        controller.request_stop()
    state = store.get(sid)
    assert state is not None
    users = [e.text for e in state.transcript if isinstance(e, UserMessage)]
    assert users == ["/login", "after sign-in"]  # recorded once, though sent twice
    prompts = [p["prompt"][0]["text"] for m, p in sent(controller) if m == "session/prompt"]
    assert prompts == ["/login", "after sign-in", "after sign-in"]
    assert [p["methodId"] for m, p in sent(controller) if m == "authenticate"] == ["demo-sign-in"]
    assert state.stop_reason == "end_turn"


async def test_a_declined_sign_in_keeps_the_message_waiting_until_the_person_acts(
    tmp_path: Path,
) -> None:
    answers = [None, "demo-sign-in"]

    async def choose(listed: list[AuthMethod], reason: str) -> str | None:
        return answers.pop(0)

    store = SessionStore()
    controller = SessionController(
        # An agent that does not tell its sign-in state: it is learnt from auth_required
        # (one that does is signed in before the call: tests/test_auth_status.py).
        AgentSpec(
            demo_agent_argv(str(tmp_path / "state"), chunk_delay=0, no_auth_status=True),
            cwd=str(tmp_path),
        ),
        store=store,
        face=FaceHooks(choose_auth=choose),
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None, "the session")
        sid = controller.current_session_id
        assert sid is not None
        controller.send_prompt(sid, "/login")
        await wait(lambda: not controller.is_busy(sid), "/login answered")
        controller.send_prompt(sid, "keep me")
        await wait(lambda: controller.prompts.has(sid) and not controller.is_busy(sid), "kept")
        state = store.get(sid)
        assert state is not None
        assert [q.text for q in controller.prompts.items(sid)] == ["keep me"]
        assert [e.text for e in state.transcript if isinstance(e, UserMessage)] == ["/login"]
        await anyio.sleep(0.3)  # held: it does not go out again on its own
        assert len([m for m, _ in sent(controller) if m == "session/prompt"]) == 2
        controller.send_prompt(sid, "and me")
        await wait(
            lambda: (
                not controller.prompts.has(sid)
                and not controller.is_busy(sid)
                and state.stop_reason
            ),
            "both sent",
        )
        await wait(
            lambda: (
                [e.text for e in state.transcript if isinstance(e, UserMessage)]
                == ["/login", "keep me", "and me"]
            ),
            "both answered, in order",
        )
        controller.request_stop()


async def test_logout_is_offered_only_when_advertised_and_signs_out(tmp_path: Path) -> None:
    store = SessionStore()
    state_dir = tmp_path / "state"
    controller = SessionController(
        AgentSpec(demo_agent_argv(str(state_dir), chunk_delay=0), cwd=str(tmp_path)),
        store=store,
        face=FaceHooks(choose_auth=None),
    )
    (state_dir).mkdir(parents=True, exist_ok=True)
    (state_dir / "login-token.json").write_text(json.dumps({"name": "T", "method": "x", "at": "y"}))
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None, "the session")
        assert controller.can_logout
        await controller.logout()
        assert controller.sign_in.signed_out
        controller.request_stop()
    assert not (state_dir / "login-token.json").exists()
    assert [m for m, _ in sent(controller) if m == "logout"] == ["logout"]


def test_the_demo_terminal_login_exits_non_zero_without_an_answer(tmp_path: Path) -> None:
    completed = subprocess.run(
        [*demo_agent_argv(str(tmp_path)), "--login"],
        input="",
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 1 and "Not signed in" in completed.stdout
    assert sys.executable in demo_agent_argv()


# ------------------------------------------------------------------ v1: state_update is display only


async def test_a_stray_state_update_on_v1_never_changes_how_turns_end_or_the_queue_drains(
    tmp_path: Path,
) -> None:
    """A v1 agent that also sends the v2 draft's ``state_update`` (the demo's --v2-updates):
    the activity follows it, but a second message still waits for the first turn's answer."""
    argv = [*demo_agent_argv(str(tmp_path / "state"), chunk_delay=0.01), "--v2-updates"]
    store = SessionStore()
    controller = SessionController(AgentSpec(argv, cwd=str(tmp_path)), store=store)
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None, "the session")
        sid = controller.current_session_id
        assert sid is not None
        controller.send_prompt(sid, "/help")
        await wait(lambda: not controller.is_busy(sid), "the first turn")
        state = store.get(sid)
        assert state is not None and state.state_detail is not None  # it did send them
        controller.send_prompt(sid, "/help")
        await wait(lambda: state.state_detail.get("state") == "running", "running again")
        controller.send_prompt(sid, "queued behind it")
        assert [q.text for q in controller.prompts.items(sid)] == ["queued behind it"]
        assert len([m for m, _ in sent(controller) if m == "session/prompt"]) == 2
        await wait(
            lambda: not controller.is_busy(sid) and not controller.prompts.has(sid), "all sent"
        )
        await wait(lambda: not controller.is_busy(sid), "the last turn")
        controller.request_stop()
    assert not controller.v2_lifecycle
    assert state.stop_reason == "end_turn"


# ------------------------------------------------------------------ the last guard, in the client


@settings(max_examples=200, deadline=None)
@given(methods=st.lists(st.one_of(v1_method, v2_method), max_size=5), pick=st.integers(0, 9))
def test_the_client_itself_never_sends_a_non_agent_method_to_the_login_call(
    methods: list[dict[str, Any]], pick: int
) -> None:
    """Whatever calls it, with whatever id: AcpClient.call refuses before anything is written
    when the id names a method that is not plainly an agent method."""
    from acp_tui.protocol.agent_info import AgentInfo
    from acp_tui.protocol.client import AcpClient
    from acp_tui.protocol.errors import AcpError

    class Connection:
        def __init__(self) -> None:
            self.written: list[str] = []

        async def request(self, method: str, params: Any) -> Any:
            self.written.append(method)
            return {}

    for version in (1, 2):
        client = AcpClient.__new__(AcpClient)
        client.agent = AgentInfo(protocol_version=version, auth_methods=methods)
        connection = Connection()
        client.connection = connection  # type: ignore[assignment]
        if not methods:
            continue
        chosen = methods[pick % len(methods)]
        method_id = chosen.get("methodId", chosen.get("id"))
        same_id = [m for m in methods if m.get("methodId", m.get("id")) == method_id]
        default = None if version == 1 else ""
        plainly_agent = all(m.get("type", default) in (None, "agent") for m in same_id)
        for call in ("authenticate", "auth/login"):
            try:
                anyio.run(client.call, call, {"methodId": method_id})
                sent_ok = True
            except AcpError:
                sent_ok = False
            assert sent_ok == plainly_agent
        assert len(connection.written) == (2 if plainly_agent else 0)


async def test_where_no_terminal_can_be_handed_over_terminal_sign_in_is_not_advertised(
    tmp_path: Path,
) -> None:
    """A browser (``--serve``) cannot run an agent's login: the capability is not claimed, and
    the agent offers only the methods such a client can complete."""
    listed: list[list[str]] = []

    async def choose(methods: list[AuthMethod], reason: str) -> str | None:
        listed.append([m.kind for m in methods])
        return "demo-sign-in"

    controller = SessionController(
        AgentSpec(
            demo_agent_argv(str(tmp_path / "state"), chunk_delay=0, require_auth=True),
            cwd=str(tmp_path),
        ),
        store=SessionStore(),
        face=FaceHooks(choose_auth=choose, terminal_auth=False),
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None, "the session")
        controller.request_stop()
    assert "auth" not in sent(controller)[0][1]["clientCapabilities"]
    assert listed == [["agent"]]


@pytest.mark.parametrize(
    ("env", "risky"),
    [
        ({"PATH": "/tmp/evil:/usr/bin", "COLOR": "1"}, ("PATH",)),
        ({"LD_PRELOAD": "/tmp/x.so"}, ("LD_PRELOAD",)),
        ({"PYTHONPATH": "/tmp", "GIT_SSH_COMMAND": "sh -c x"}, ("PYTHONPATH", "GIT_SSH_COMMAND")),
        ({"BASH_FUNC_ls%%": "() { evil; }"}, ("BASH_FUNC_ls%%",)),
    ],
)
async def test_a_sign_in_that_changes_which_code_runs_is_asked_like_a_terminal(
    env: dict[str, str], risky: tuple[str, ...]
) -> None:
    """The rule of ``terminal/create`` (acp_tui.services.terminals.risky_env): the person is
    asked with every variable the method sets; a refusal runs nothing. The configured
    environment is the person's own and is not asked about."""
    from acp_tui.services.paths import OutsideRequest

    asked: list[OutsideRequest] = []
    ran: list[TerminalLogin] = []
    answers = [False, True]

    async def approve(request: OutsideRequest) -> bool:
        asked.append(request)
        return answers[len(asked) - 1]

    async def run(login: TerminalLogin) -> int:
        ran.append(login)
        return 0

    async def choose(listed: list[AuthMethod], reason: str) -> str | None:
        return listed[0].id

    raw = [{"id": "t", "type": "terminal", "name": "Login", "args": ["--login"], "env": env}]
    sign_in = SignIn(["agent"], "/work", {"API_KEY": "secret"}, choose, run, approve)
    sign_in.configure(raw, v2=False, agent_name="Agent")
    client = RecordingClient()
    with pytest.raises(AuthNotDone, match="was not allowed"):
        await sign_in.sign_in(client, "needed", login_call="authenticate")  # type: ignore[arg-type]
    assert ran == []
    (request,) = asked
    assert request.operation == "terminal" and request.risky_env == risky
    assert request.command == "agent" and request.args == ("--login",)
    assert dict(request.env) == env  # every variable it sets; not the configured API_KEY
    await sign_in.sign_in(client, "needed", login_call="authenticate")  # type: ignore[arg-type]
    assert len(asked) == 2 and len(ran) == 1


async def test_a_sign_in_with_harmless_variables_is_not_asked_about() -> None:
    async def approve(request: object) -> bool:
        raise AssertionError("asked")

    ran: list[TerminalLogin] = []

    async def run(login: TerminalLogin) -> int:
        ran.append(login)
        return 0

    async def choose(listed: list[AuthMethod], reason: str) -> str | None:
        return listed[0].id

    raw = [{"id": "t", "type": "terminal", "name": "Login", "env": {"LANG": "C", "CI": "1"}}]
    sign_in = SignIn(["agent"], "/work", {"PATH": "/mine"}, choose, run, approve)  # type: ignore[arg-type]
    sign_in.configure(raw, v2=False, agent_name="Agent")
    await sign_in.sign_in(RecordingClient(), "needed", login_call="authenticate")  # type: ignore[arg-type]
    assert len(ran) == 1
