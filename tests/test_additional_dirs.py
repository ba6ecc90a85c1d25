"""Additional directories: from the command line and the config, over the wire to agents that
take them (new, load, resume), remembered per session, and inside the session's containment."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.cli.parse import parse
from acp_tui.cli.tui import settings_from_invocation
from acp_tui.config.schema import Config
from acp_tui.services.errors import ServiceError
from acp_tui.session.agent.controller import ControllerEvents, SessionController
from acp_tui.session.agent.events import FaceHooks
from acp_tui.session.agent.roots import SessionRoots, dirs_to_send, resolve_dirs
from acp_tui.session.launch.settings import AppSettings
from acp_tui.session.launch.spec import AgentSpec, LaunchOptions
from acp_tui.store import SessionStore
from acp_tui.store.local_index import LocalIndex
from acp_tui.store.options import LEGACY_MODEL, session_options
from acp_tui.ui.screens.launcher import build_choices, settings_for_choice

pytestmark = pytest.mark.anyio

#: A raw agent: writes what it receives to argv[1]; argv[2] is "dirs" to advertise
#: additionalDirectories, anything else not to. Sessions have the legacy ``models`` state.
RECORDING_AGENT = r"""
import json, sys
log = open(sys.argv[1], "a")
dirs = sys.argv[2] == "dirs"
models = {"availableModels": [{"modelId": "small", "name": "Small"}, {"modelId": "large"}],
          "currentModelId": "small"}
def answer(msg, result):
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
for line in sys.stdin:
    msg = json.loads(line)
    log.write(line); log.flush()
    method = msg.get("method")
    if method == "initialize":
        session = {"resume": {}}
        if dirs:
            session["additionalDirectories"] = {}
        answer(msg, {"protocolVersion": 1, "agentCapabilities": {
            "loadSession": True, "sessionCapabilities": session}})
    elif method == "session/new":
        answer(msg, {"sessionId": "s1", "models": models})
    elif method in ("session/load", "session/resume"):
        answer(msg, {"models": models})
    elif method == "session/set_model":
        answer(msg, {})
"""


def received(log: Path, method: str) -> list[dict[str, Any]]:
    messages = [json.loads(line) for line in log.read_text().splitlines()]
    return [m["params"] for m in messages if m.get("method") == method]


async def run_link(tmp_path: Path, advertise: bool, dirs: list[str], job: Any) -> list[str]:
    agent = tmp_path / "agent.py"
    agent.write_text(RECORDING_AGENT)
    log = tmp_path / "received.jsonl"
    errors: list[str] = []
    controller = SessionController(
        AgentSpec(
            [sys.executable, str(agent), str(log), "dirs" if advertise else "none"],
            cwd=str(tmp_path),
            additional_dirs=dirs,
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
        await job(controller)
        controller.request_stop()
    return errors


async def test_dirs_go_out_on_new_load_and_resume_and_a_reopen_sends_the_sessions_own(
    tmp_path: Path,
) -> None:
    lib, docs, other = (tmp_path / name for name in ("lib", "docs", "other"))
    for path in (lib, docs, other):
        path.mkdir()

    async def job(controller: SessionController) -> None:
        session_id = await controller.new_session()
        assert controller.store.get(session_id).additional_dirs == [str(lib), str(docs)]  # type: ignore[union-attr]
        # Containment follows the session's directories.
        assert controller.roots.roots(session_id) == (tmp_path, lib, docs)
        # A session remembered with other directories: reopened with them, then this run's.
        controller.store.set_additional_dirs("old", [str(other)])
        await controller.open_session("old")
        assert controller.roots.roots("old") == (tmp_path, other, lib, docs)

    errors = await run_link(tmp_path, True, [str(lib), str(docs)], job)
    assert errors == []
    log = tmp_path / "received.jsonl"
    assert received(log, "session/new")[0]["additionalDirectories"] == [str(lib), str(docs)]
    reopened = received(log, "session/load") + received(log, "session/resume")
    assert reopened[0]["additionalDirectories"] == [str(other), str(lib), str(docs)]


async def test_an_agent_without_the_capability_gets_no_dirs_and_the_person_is_told(
    tmp_path: Path,
) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()

    async def job(controller: SessionController) -> None:
        session_id = await controller.new_session()
        assert controller.roots.roots(session_id) == (tmp_path,)

    errors = await run_link(tmp_path, False, [str(lib)], job)
    assert "additionalDirectories" not in received(tmp_path / "received.jsonl", "session/new")[0]
    assert any("does not take additional directories" in e and str(lib) in e for e in errors)


async def test_legacy_models_state_is_a_model_picker_set_with_set_model(tmp_path: Path) -> None:
    async def job(controller: SessionController) -> None:
        session_id = await controller.new_session(model="large")
        state = controller.store.get(session_id)
        model = next(o for o in session_options(state) if o.key == LEGACY_MODEL)
        assert model.current == "large" and [c.value for c in model.choices] == ["small", "large"]

    await run_link(tmp_path, True, [], job)
    assert received(tmp_path / "received.jsonl", "session/set_model") == [
        {"sessionId": "s1", "modelId": "large"}
    ]


async def test_reads_and_writes_in_an_additional_directory_need_no_yes(tmp_path: Path) -> None:
    cwd, lib, outside = tmp_path / "cwd", tmp_path / "lib", tmp_path / "outside"
    for path in (cwd, lib, outside):
        path.mkdir()
    (lib / "a.txt").write_text("in lib")
    (outside / "b.txt").write_text("outside")
    asked: list[Path] = []

    async def approve(request: Any) -> bool:
        asked.append(request.path)
        return False

    roots = SessionRoots(str(cwd), approve)
    roots.set("s1", str(cwd), [str(lib)])
    assert await roots.read_text_file({"sessionId": "s1", "path": str(lib / "a.txt")}) == {
        "content": "in lib"
    }
    await roots.write_text_file({"sessionId": "s1", "path": str(lib / "new.txt"), "content": "x"})
    assert (lib / "new.txt").read_text() == "x" and asked == []
    with pytest.raises(ServiceError):
        await roots.read_text_file({"sessionId": "s1", "path": str(outside / "b.txt")})
    assert asked == [outside / "b.txt"]
    # Another session (or none named) is judged by its own directories.
    with pytest.raises(ServiceError):
        await roots.read_text_file({"sessionId": "s2", "path": str(lib / "a.txt")})
    assert roots.guard_for({"sessionId": "s1"}).is_inside(lib / "x")
    assert not roots.guard_for({}).is_inside(lib / "x")


def test_dirs_are_resolved_checked_and_merged(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "file").write_text("")
    good, problems = resolve_dirs(["lib", "./lib", "missing", "file"], str(tmp_path))
    assert good == [str(tmp_path / "lib")]
    assert problems == [
        f"{tmp_path / 'missing'}: no such directory",
        f"{tmp_path / 'file'}: not a directory",
    ]
    assert dirs_to_send(["/a", "/b"], ["/b", "/c"]) == ["/a", "/b", "/c"]
    assert dirs_to_send(None, []) == []


def test_add_dir_is_repeatable_relative_and_must_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "docs").mkdir()
    monkeypatch.chdir(tmp_path)
    invocation = parse(["--add-dir", "lib", "--add-dir", str(tmp_path / "docs"), "--demo"])
    assert invocation.options.add_dirs == [str(tmp_path / "lib"), str(tmp_path / "docs")]
    settings = settings_from_invocation(invocation)
    assert settings.agent is not None
    assert settings.agent.additional_dirs == (str(tmp_path / "lib"), str(tmp_path / "docs"))
    with pytest.raises(SystemExit) as exit_info:
        parse(["--add-dir", "nowhere", "--demo"])
    assert exit_info.value.code == 2
    assert f"--add-dir nowhere: {tmp_path / 'nowhere'}: no such directory" in (
        capsys.readouterr().err
    )


def test_an_agents_additional_directories_from_the_config(tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    config = Config.model_validate(
        {
            "agents": {
                "claude": {
                    "command": "claude-agent-acp",
                    "cwd": str(tmp_path),
                    "additional_directories": ["shared", "gone"],
                }
            }
        }
    )
    problems: list[str] = []
    settings = settings_from_invocation(parse(["--agent", "claude"]), config, problems)
    assert settings.agent is not None
    assert settings.agent.additional_dirs == (str(tmp_path / "shared"),)
    assert problems == [
        f"agents.claude.additional_directories: {tmp_path / 'gone'}: no such directory; left out"
    ]
    # From the launcher too, with the command line's after the agent's own.
    choice = next(c for c in build_choices(config, [], ["demo"]) if c.key == "config:claude")
    base = AppSettings(options=LaunchOptions(add_dirs=("/extra",)))
    chosen, _ = settings_for_choice(base, choice, config)
    assert chosen.agent is not None
    assert chosen.agent.additional_dirs == (str(tmp_path / "shared"), "/extra")


def test_the_index_keeps_options_and_dirs_and_upgrades_an_older_file(tmp_path: Path) -> None:
    path = tmp_path / "sessions.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(
        "CREATE TABLE sessions (agent TEXT NOT NULL, session_id TEXT NOT NULL, cwd TEXT,"
        " title TEXT, first_prompt TEXT, created REAL NOT NULL, updated REAL NOT NULL,"
        " mode TEXT, model TEXT, PRIMARY KEY (agent, session_id));"
        "INSERT INTO sessions VALUES ('a', 'old', '/p', 'Old', 'hi', 1, 2, 'code', 'm1');"
    )
    old.commit()
    old.close()
    with LocalIndex(path, "a") as index:
        assert index.ok
        before = index.get("old")
        assert before is not None and before.model == "m1" and before.options == {}
        assert index.remember("old", options={"config:effort": "high", "config:b": True})
        # A later report without an option keeps what was remembered for it.
        assert index.remember("old", options={"config:b": False}, additional_dirs=["/lib"])
        after = index.get("old")
        assert after is not None
        assert after.options == {"config:effort": "high", "config:b": False}
        assert after.additional_dirs == ("/lib",)
        assert after.title == "Old"
    store = SessionStore()
    with LocalIndex(path, "a") as index:
        store.apply_index_records(index.sessions())
    assert store.get("old").additional_dirs == ["/lib"]  # type: ignore[union-attr]
