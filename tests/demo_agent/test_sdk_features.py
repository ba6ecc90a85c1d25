"""The 2026 v1 features the official SDK speaks, with the SDK as the client: elicitation
forms and URLs, authentication (agent and terminal methods, logout), fork, boolean options
and image prompts."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from acp import RequestError, image_block, text_block
from acp.schema import AcceptElicitationResponse, DeclineElicitationResponse
from demo_helpers import Agent, RecordingClient, run_agent
from test_wire_v1 import png

from acp_tui.demo_agent.elicit import FORM_SCHEMA

pytestmark = pytest.mark.anyio

GOOD_ANSWERS: dict[str, Any] = {
    "name": "Ada",
    "email": "ada@example.com",
    "birthday": "1815-12-10",
    "temperature": 19.5,
    "cups": 3,
    "newsletter": True,
    "color": "blue",
    "editor": "zed",
    "languages": ["python", "rust"],
    "snacks": ["nuts"],
}


async def new(agent: Agent, cwd: Path) -> str:
    response = await agent.conn.new_session(cwd=str(cwd), mcp_servers=[])
    await agent.settle()
    return response.session_id


async def say(agent: Agent, session_id: str, *blocks: Any) -> Any:
    prompt = [text_block(b) if isinstance(b, str) else b for b in blocks]
    return await agent.conn.prompt(session_id=session_id, prompt=prompt)


# ---------------------------------------------------------------------- elicitation


async def test_ask_form_accept_decline_cancel(state_dir: Path, work_dir: Path) -> None:
    bad = dict(GOOD_ANSWERS, cups=99, email="nope", languages=[], color="mauve")
    client = RecordingClient(
        elicitation_answers=[
            AcceptElicitationResponse(action="accept", content=GOOD_ANSWERS),
            AcceptElicitationResponse(action="accept", content=bad),
            DeclineElicitationResponse(action="decline"),
            "cancel",
        ]
    )
    async with run_agent(state_dir, client, elicitation=True) as agent:
        sid = await new(agent, work_dir)
        replies = []
        for _ in range(4):
            agent.client.clear()
            response = await say(agent, sid, "/ask")
            assert response.stop_reason == "end_turn"
            replies.append(agent.client.text())
    first = client.elicitations[0]
    assert first["sessionId"] == sid
    schema = first["requestedSchema"]
    assert schema["required"] == FORM_SCHEMA["required"]
    kinds = {name: p["type"] for name, p in schema["properties"].items()}
    assert set(kinds.values()) == {"string", "number", "integer", "boolean", "array"}
    assert schema["properties"]["email"]["format"] == "email"
    assert schema["properties"]["name"]["minLength"] == 1
    assert schema["properties"]["cups"]["maximum"] == 12
    assert schema["properties"]["editor"]["oneOf"][2]["title"] == "Zed"
    assert schema["properties"]["snacks"]["items"]["anyOf"][0]["const"] == "nuts"
    accepted, invalid, declined, cancelled = replies
    assert "**accepted**" in accepted and '`"Ada"`' in accepted
    assert "Every answer fits the schema." in accepted
    for problem in (
        "`cups` is above 12",
        "`email` is not an email address",
        "`languages` is fewer than 1 choices",
        "`color` is not one of red, green, blue",
    ):
        assert problem in invalid
    assert "**declined**" in declined
    assert "**cancelled**" in cancelled


async def test_ask_without_elicitation_says_so(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir) as agent:
        sid = await new(agent, work_dir)
        await say(agent, sid, "/ask")
        await say(agent, sid, "/ask url")
        text = agent.client.text()
    assert agent.client.elicitations == []
    assert "`elicitation.form`" in text and "`elicitation.url`" in text


async def test_ask_url_then_complete(state_dir: Path, work_dir: Path) -> None:
    client = RecordingClient(
        elicitation_answers=[
            AcceptElicitationResponse(action="accept"),
            DeclineElicitationResponse(action="decline"),
        ]
    )
    async with run_agent(state_dir, client, elicitation=True) as agent:
        sid = await new(agent, work_dir)
        await say(agent, sid, "/ask url 0")
        await say(agent, sid, "/ask url 0")
        text = agent.client.text()
    accepted, declined = client.elicitations
    assert declined["elicitationId"] != accepted["elicitationId"]
    assert accepted["url"].startswith("https://example.com/")
    assert accepted["elicitationId"] in accepted["url"]
    assert client.completed_elicitations == [accepted["elicitationId"]]
    assert "did not go to the page (action `decline`)" in text


# ---------------------------------------------------------------------- authentication


async def test_login_requires_authentication_until_the_client_signs_in(
    state_dir: Path, work_dir: Path
) -> None:
    async with run_agent(state_dir) as agent:
        sid = await new(agent, work_dir)
        await say(agent, sid, "/login")
        assert "auth_required" in agent.client.text()
        with pytest.raises(RequestError) as refused:
            await say(agent, sid, "hello?")
        assert refused.value.code == -32000
        with pytest.raises(RequestError) as refused_new:
            await agent.conn.new_session(cwd=str(work_dir), mcp_servers=[])
        assert refused_new.value.code == -32000
        await agent.conn.authenticate(method_id="demo-sign-in")
        assert (await say(agent, sid, "hello again")).stop_reason == "end_turn"
        await agent.raw("logout", {})
        with pytest.raises(RequestError):
            await say(agent, sid, "signed out")
        await agent.conn.authenticate(method_id="demo-sign-in")
        await say(agent, sid, "/login off")
    # Not required any more, in a new agent process either.
    async with run_agent(state_dir) as agent:
        await new(agent, work_dir)


async def test_terminal_method_is_never_accepted_by_authenticate(state_dir: Path) -> None:
    async with run_agent(state_dir, terminal_auth=True, extra_args=("--require-auth",)) as agent:
        methods = [m.model_dump(by_alias=True, exclude_none=True) for m in agent.init.auth_methods]
        with pytest.raises(RequestError) as refused:
            await agent.conn.authenticate(method_id="demo-terminal-login")
        with pytest.raises(RequestError) as unknown:
            await agent.conn.authenticate(method_id="password")
    terminal = next(m for m in methods if m.get("type") == "terminal")
    assert terminal["args"] == ["--login"]
    assert terminal["env"] == {"ACP_TUI_DEMO_LOGIN": "terminal"}
    assert refused.value.code == unknown.value.code == -32602
    assert "MUST NOT" in str(refused.value)


async def test_terminal_login_signs_the_running_agent_in(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir, terminal_auth=True, extra_args=("--require-auth",)) as agent:
        with pytest.raises(RequestError) as refused:
            await agent.conn.new_session(cwd=str(work_dir), mcp_servers=[])
        assert refused.value.code == -32000
        method = next(m for m in agent.init.auth_methods if getattr(m, "type", None) == "terminal")
        # What a client does: the agent's own command plus the method's args and env.
        env = {**os.environ, **(method.env or {})}
        argv = [*agent.argv, *(method.args or [])]
        failed = await anyio.run_process(argv, input=b"\n\n\n", env=env, check=False)
        assert failed.returncode == 1
        with pytest.raises(RequestError):
            await agent.conn.new_session(cwd=str(work_dir), mcp_servers=[])
        done = await anyio.run_process(argv, input=b"Ada Lovelace\n", env=env, check=False)
        assert done.returncode == 0, done.stderr
        assert b"Signed in as Ada Lovelace" in done.stdout
        sid = await new(agent, work_dir)
        await say(agent, sid, "/login status")
        assert "signed in as **Ada Lovelace**" in agent.client.text()
        token = (state_dir / "login-token.json").read_text()
        assert '"method": "terminal"' in token


def test_login_step_on_a_real_tty(state_dir: Path) -> None:
    """The login step talks to a terminal: a pseudo-terminal here, as a client gives it."""
    pty = pytest.importorskip("pty")
    argv = [sys.executable, "-m", "acp_tui.demo_agent", "--state-dir", str(state_dir), "--login"]
    pid, fd = pty.fork()
    if pid == 0:  # the child becomes the login step on the pty
        os.execv(argv[0], argv)
    seen = b""
    while b"Your name:" not in seen:
        seen += os.read(fd, 1024)
    os.write(fd, b"Grace\r")
    while b"Signed in" not in seen:
        try:
            seen += os.read(fd, 1024)
        except OSError:
            break
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0
    assert b"Signed in as Grace" in seen
    assert '"Grace"' in (state_dir / "login-token.json").read_text()


# ---------------------------------------------------------------------- fork, options, images


async def test_fork_with_the_sdk(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir) as agent:
        sid = await new(agent, work_dir)
        await say(agent, sid, "before the fork")
        fork = await agent.conn.fork_session(session_id=sid, cwd=str(work_dir), mcp_servers=[])
        await agent.settle()
        assert fork.session_id != sid
        agent.client.clear()
        await say(agent, fork.session_id, "after the fork")
        assert "turn 2 of this session" in agent.client.text()


async def test_boolean_option_with_the_sdk(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir, booleans=True) as agent:
        sid = await new(agent, work_dir)
        response = await agent.conn.set_config_option(
            config_id="confirm_tools", session_id=sid, value=False
        )
        values = {o.root.id if hasattr(o, "root") else o.id: o for o in response.config_options}
        await say(agent, sid, "/edit no-questions.txt")
    assert values["confirm_tools"].current_value is False
    assert agent.client.permission_requests == []
    assert (work_dir / "no-questions.txt").exists()


async def test_image_prompt_with_the_sdk(state_dir: Path, work_dir: Path) -> None:
    picture = png(32, 16)
    async with run_agent(state_dir) as agent:
        caps = agent.init.agent_capabilities.prompt_capabilities
        assert caps.image and caps.audio and caps.embedded_context
        sid = await new(agent, work_dir)
        await say(
            agent,
            sid,
            "what is this?",
            image_block(base64.b64encode(picture).decode(), "image/png"),
        )
        text = agent.client.text()
    assert f"`image/png`, {len(picture):,} bytes, 32×16 pixels" in text


def test_login_flag_is_documented() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "acp_tui.demo_agent", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "--login" in result.stdout and "--require-auth" in result.stdout
