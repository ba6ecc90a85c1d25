"""The client's system prompt: which one is in force (command line, project, agent), read
through the path gate, sent with every session setup request to agents that take it in its
mode, and the person told once where it is not sent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.cli.agents import launch_options
from acp_tui.cli.parse import parse
from acp_tui.config.schema import Config
from acp_tui.session.agent.controller import ControllerEvents, SessionController
from acp_tui.session.agent.events import FaceHooks
from acp_tui.session.agent.ops import fork
from acp_tui.session.launch.resolve import resolve_agent
from acp_tui.session.launch.spec import AgentSource, AgentSpec, LaunchOptions
from acp_tui.session.launch.system_prompt import (
    MAX_BYTES,
    SystemPrompt,
    SystemPromptProblem,
    read_system_prompt,
    system_prompt_for,
)
from acp_tui.store import SessionStore
from acp_tui.store.entries import AgentMessage

#: A raw agent: writes what it receives to argv[1]; argv[2] says what it advertises of
#: ``sessionCapabilities.systemPrompt``: ``none``, ``append`` or ``override``.
RECORDING_AGENT = r"""
import json, sys
log = open(sys.argv[1], "a")
kind = sys.argv[2]
def answer(msg, result):
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
for line in sys.stdin:
    msg = json.loads(line)
    log.write(line); log.flush()
    method = msg.get("method")
    if method == "initialize":
        session = {"resume": {}, "fork": {}}
        if kind == "append":
            session["systemPrompt"] = {}
        elif kind == "override":
            session["systemPrompt"] = {"mode": {"override": {}}}
        answer(msg, {"protocolVersion": 1, "agentCapabilities": {
            "loadSession": True, "sessionCapabilities": session}})
    elif method in ("session/new", "session/fork"):
        answer(msg, {"sessionId": "s%d" % msg["id"]})
    elif method in ("session/load", "session/resume"):
        answer(msg, {})
"""

SETUP_METHODS = ("session/new", "session/load", "session/resume", "session/fork")


def _config(data: dict[str, Any]) -> Config:
    return Config.model_validate(data)


# ---------------------------------------------------------------- which one is in force


def test_the_command_line_wins_over_the_project_which_wins_over_the_agent(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / "src").mkdir(parents=True)
    config = _config(
        {
            "agents": {"claude": {"command": "c", "system_prompt": "agent's"}},
            "projects": {str(project): {"system_prompt": "project's"}},
        }
    )

    def text(cwd: Path, **given: Any) -> str | None:
        prompt, problems = system_prompt_for(config, agent="claude", cwd=str(cwd), **given)
        assert problems == []
        return prompt.text if prompt else None

    assert text(tmp_path) == "agent's"
    assert text(project) == "project's"
    assert text(project / "src") == "project's"  # below the project too
    assert text(project, given="mine") == "mine"
    # Another agent of the config, in no project: none.
    assert system_prompt_for(config, agent="other", cwd=str(tmp_path)) == (None, [])


def test_the_deepest_project_wins_and_a_sibling_with_a_shared_prefix_is_not_inside(
    tmp_path: Path,
) -> None:
    (tmp_path / "app" / "web").mkdir(parents=True)
    (tmp_path / "apple").mkdir()
    config = _config(
        {
            "projects": {
                str(tmp_path / "app"): {"system_prompt": "app"},
                str(tmp_path / "app" / "web"): {"system_prompt": "web"},
            }
        }
    )
    for cwd, expected in (("app/web", "web"), ("app", "app"), ("apple", None)):
        prompt, _ = system_prompt_for(config, agent=None, cwd=str(tmp_path / cwd))
        assert (prompt.text if prompt else None) == expected, cwd


def test_modes_from_the_table_and_from_the_command_line(tmp_path: Path) -> None:
    config = _config(
        {"agents": {"a": {"command": "a", "system_prompt": {"text": "x", "mode": "override"}}}}
    )
    prompt, _ = system_prompt_for(config, agent="a", cwd=str(tmp_path))
    assert prompt == SystemPrompt("x", "override", "agents.a")
    # --system-prompt-mode sets the mode of whichever is in force.
    prompt, _ = system_prompt_for(config, agent="a", cwd=str(tmp_path), given_mode="append")
    assert prompt is not None and prompt.mode == "append" and prompt.text == "x"
    assert prompt.wire() == {"mode": "append", "content": [{"type": "text", "text": "x"}]}
    with pytest.raises(ValueError, match="mode"):
        _config({"agents": {"a": {"command": "a", "system_prompt": {"text": "x", "mode": "y"}}}})


def test_files_are_read_from_where_each_setting_says(tmp_path: Path, monkeypatch: Any) -> None:
    config_dir, project, here = tmp_path / "conf", tmp_path / "proj", tmp_path / "here"
    for folder in (config_dir, project, here):
        folder.mkdir()
    (config_dir / "p.md").write_text("from the config's folder")
    (project / "p.md").write_text("from the project")
    (here / "p.md").write_text("from the current directory")
    monkeypatch.chdir(here)
    config = _config(
        {
            "agents": {"a": {"command": "a", "system_prompt": "@p.md"}},
            "projects": {str(project): {"system_prompt": "@p.md"}},
        }
    )
    found = system_prompt_for(config, agent="a", cwd=str(tmp_path), config_dir=str(config_dir))
    assert found[0] is not None and found[0].text == "from the config's folder"
    assert found[0].path == str(config_dir / "p.md")
    found = system_prompt_for(config, agent="a", cwd=str(project), config_dir=str(config_dir))
    assert found[0] is not None and found[0].text == "from the project"
    found = system_prompt_for(config, agent="a", cwd=str(project), given="@p.md")
    assert found[0] is not None and found[0].text == "from the current directory"


@pytest.mark.parametrize(
    ("setup", "says"),
    [
        (lambda d: None, "does not exist"),
        (lambda d: (d / "p.md").mkdir(), "is a directory"),
        (lambda d: os.mkfifo(d / "p.md"), "named pipe"),
        (lambda d: (d / "p.md").write_bytes(b"x" * (MAX_BYTES + 1)), "more than 256 KiB"),
        (lambda d: (d / "p.md").write_bytes(b"\xff\xfe caf\xe9"), "not UTF-8"),
    ],
    ids=["missing", "directory", "fifo", "too big", "not utf-8"],
)
def test_a_file_that_cannot_be_used_is_a_problem_said_and_nothing_is_sent(
    tmp_path: Path, setup: Any, says: str
) -> None:
    setup(tmp_path)
    config = _config({"agents": {"a": {"command": "a", "system_prompt": "@p.md"}}})
    # (A FIFO is never opened to wait on: this returns, or the test would hang.)
    prompt, problems = system_prompt_for(
        config, agent="a", cwd=str(tmp_path), config_dir=str(tmp_path)
    )
    assert prompt is None
    assert len(problems) == 1 and says in problems[0] and problems[0].startswith("agents.a:")
    assert "no system prompt is sent" in problems[0]


def test_an_empty_prompt_is_none_and_a_bare_at_is_refused(tmp_path: Path) -> None:
    assert read_system_prompt("  \n", "append", origin="x", base=str(tmp_path)) is None
    (tmp_path / "empty.md").write_text("")
    assert read_system_prompt("@empty.md", "append", origin="x", base=str(tmp_path)) is None
    with pytest.raises(SystemPromptProblem, match="names no file"):
        read_system_prompt("@", "append", origin="x", base=str(tmp_path))


def test_the_resolver_puts_it_in_the_spec_for_every_face(tmp_path: Path) -> None:
    """One resolver: a configured agent, a command line and the demo agent all get theirs
    there, and a problem comes back with the spec (the faces say it)."""
    config = _config(
        {
            "agents": {"a": {"command": "a", "system_prompt": "A"}, "b": {"command": "b"}},
            "projects": {str(tmp_path / "p"): {"system_prompt": "@missing.md"}},
        }
    )
    (tmp_path / "p").mkdir()
    here = LaunchOptions(cwd=str(tmp_path))
    assert resolve_agent(AgentSource.configured("a"), config, here).spec.system_prompt == (
        SystemPrompt("A", "append", "agents.a")
    )
    assert resolve_agent(AgentSource.configured("b"), config, here).spec.system_prompt is None
    given = LaunchOptions(cwd=str(tmp_path), system_prompt="cli", system_prompt_mode="override")
    spec = resolve_agent(AgentSource.command(["x"]), config, given).spec
    assert spec.system_prompt == SystemPrompt("cli", "override", "--system-prompt")
    resolved = resolve_agent(
        AgentSource.configured("a"), config, LaunchOptions(cwd=str(tmp_path / "p"))
    )
    assert resolved.spec.system_prompt is None
    assert any("missing.md" in problem for problem in resolved.problems)


def test_the_command_line_flags_reach_the_launch_options_for_the_tui_and_ask(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.md").write_text("text")
    for argv in (
        ["--system-prompt", "@p.md", "--system-prompt-mode", "override", "--demo"],
        ["ask", "hi", "--system-prompt", "@p.md", "--system-prompt-mode", "override", "--demo"],
    ):
        options = launch_options(parse(argv).options)
        assert (options.system_prompt, options.system_prompt_mode) == ("@p.md", "override")
    # A file that cannot be read stops the command at once, saying why (exit 2).
    for argv in (
        ["--system-prompt", "@nope.md", "--demo"],
        ["ask", "hi", "--system-prompt", "@nope.md", "--demo"],
    ):
        with pytest.raises(SystemExit) as stop:
            parse(argv)
        assert stop.value.code == 2
        assert "--system-prompt: nope.md: does not exist" in capsys.readouterr().err


# ---------------------------------------------------------------- on the wire


def received(log: Path) -> dict[str, list[dict[str, Any]]]:
    messages = [json.loads(line) for line in log.read_text().splitlines()]
    out: dict[str, list[dict[str, Any]]] = {}
    for message in messages:
        if "method" in message:
            out.setdefault(message["method"], []).append(message.get("params") or {})
    return out


async def _every_setup_call(
    tmp_path: Path, advertise: str, prompt: SystemPrompt | None
) -> tuple[dict[str, list[dict[str, Any]]], list[str], bool | None]:
    agent = tmp_path / "agent.py"
    agent.write_text(RECORDING_AGENT)
    log = tmp_path / f"received-{advertise}.jsonl"
    errors: list[str] = []
    controller = SessionController(
        AgentSpec(
            [sys.executable, str(agent), str(log), advertise],
            cwd=str(tmp_path),
            system_prompt=prompt,
        ),
        store=SessionStore(),
        face=FaceHooks(events=ControllerEvents(on_error=errors.append)),
    )

    async def opener(controller: SessionController) -> None:
        return None

    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run, opener)
        with anyio.fail_after(30):
            await controller.ready.wait()
            first = await controller.new_session()
            await controller.open_session("old-load")  # no transcript: loaded
            controller.store.register_session("old-resume")
            controller.store.prompt_sent("old-resume", [{"type": "text", "text": "hi"}])
            await controller.open_session("old-resume")  # a transcript here: resumed
            await fork(controller, first)
        sent = controller.system_prompt_sent
        controller.request_stop()
    return received(log), errors, sent


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["append", "override"])
async def test_it_goes_with_new_load_resume_and_fork_where_the_mode_is_taken(
    tmp_path: Path, mode: str
) -> None:
    prompt = SystemPrompt("Answer in French.", mode, "--system-prompt")  # type: ignore[arg-type]
    calls, errors, sent = await _every_setup_call(tmp_path, "override", prompt)
    assert errors == [] and sent is True
    for method in SETUP_METHODS:
        assert [p.get("systemPrompt") for p in calls[method]] == [prompt.wire()], method


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("advertise", "mode", "says"),
    [
        ("none", "append", "does not take one"),
        ("append", "override", "takes one only to append"),
    ],
)
async def test_where_it_is_not_taken_nothing_is_sent_and_the_person_is_told_once(
    tmp_path: Path, advertise: str, mode: str, says: str
) -> None:
    prompt = SystemPrompt("x", mode, "agents.a")  # type: ignore[arg-type]
    calls, errors, sent = await _every_setup_call(tmp_path, advertise, prompt)
    assert sent is False
    for method in SETUP_METHODS:
        assert calls[method] and all("systemPrompt" not in p for p in calls[method]), method
    assert len(errors) == 1, errors
    assert errors[0].startswith("System prompt not sent: ")
    assert says in errors[0] and f"(yours: {mode}, from agents.a)" in errors[0]


@pytest.mark.anyio
async def test_none_in_force_sends_none_and_says_nothing(tmp_path: Path) -> None:
    calls, errors, sent = await _every_setup_call(tmp_path, "override", None)
    assert errors == [] and sent is False
    assert all("systemPrompt" not in p for m in SETUP_METHODS for p in calls[m])


def test_the_demo_agent_echoes_what_it_received_over_real_pipes(tmp_path: Path) -> None:
    """``acp-tui ask --system-prompt @FILE --demo "/system"``, a real process: the demo
    agent advertises both modes and quotes the prompt it received."""
    (tmp_path / "rules.md").write_text("Line one.\nLine two.")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "acp_tui",
            "ask",
            "/system",
            "--cwd",
            str(tmp_path),
            "--system-prompt",
            f"@{tmp_path / 'rules.md'}",
            "--system-prompt-mode",
            "override",
            "--demo",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "system prompt for this session (override, 19 characters)" in done.stdout
    assert "> Line one.\n> Line two." in done.stdout


@pytest.mark.anyio
async def test_a_branch_of_a_demo_session_gets_it_too(tmp_path: Path) -> None:
    from acp_tui.demo_agent import demo_agent_argv

    controller = SessionController(
        AgentSpec(
            demo_agent_argv(state_dir=str(tmp_path / "data"), chunk_delay=0),
            cwd=str(tmp_path),
            system_prompt=SystemPrompt("Be brief.", "append", "--system-prompt"),
        ),
        store=SessionStore(),
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run, None)
        with anyio.fail_after(60):
            await controller.ready.wait()
            while controller.current_session_id is None:
                await anyio.sleep(0.05)
            branch = await fork(controller, controller.current_session_id)
            controller.send_prompt(branch, "/system")
            while not any("Be brief." in r for r in _replies(controller.store, branch)):
                await anyio.sleep(0.05)
        controller.request_stop()
    assert "(append, 9 characters)" in _replies(controller.store, branch)[-1]


def _replies(store: SessionStore, session_id: str) -> list[str]:
    state = store.get(session_id)
    assert state is not None
    return [e.text for e in state.transcript if isinstance(e, AgentMessage)]
