from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from acp_tui.services.errors import (
    INVALID_PARAMS,
    PERMISSION_DENIED,
    RESOURCE_NOT_FOUND,
    ServiceError,
)
from acp_tui.services.paths import OutsideRequest, PathGuard
from acp_tui.services.terminal_output import OutputBuffer
from acp_tui.services.terminals import TerminalManager

pytestmark = pytest.mark.anyio

PY = sys.executable
SESSION = "sess-1"


@pytest.fixture
async def manager() -> AsyncIterator[TerminalManager]:
    async with TerminalManager(kill_grace=1.0) as tm:
        yield tm


async def create(tm: TerminalManager, command: str, *args: str, **extra: object) -> str:
    params: dict[str, object] = {"sessionId": SESSION, "command": command, **extra}
    if args:
        params["args"] = list(args)
    result = await tm.create(params)
    assert set(result) == {"terminalId"}
    return result["terminalId"]


def ref(terminal_id: str) -> dict[str, str]:
    return {"sessionId": SESSION, "terminalId": terminal_id}


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def wait_output(tm: TerminalManager, terminal_id: str, needle: str) -> str:
    with anyio.fail_after(60):
        while needle not in (output := (await tm.output(ref(terminal_id)))["output"]):
            await anyio.sleep(0.02)
    return output


async def test_output_and_exit_code(manager: TerminalManager) -> None:
    tid = await create(
        manager, PY, "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"
    )
    assert await manager.wait_for_exit(ref(tid)) == {"exitCode": 3, "signal": None}
    result = await manager.output(ref(tid))
    assert sorted(result["output"].splitlines()) == ["err", "out"]
    assert result["truncated"] is False
    assert result["exitStatus"] == {"exitCode": 3, "signal": None}


async def test_output_while_running_has_no_exit_status(manager: TerminalManager) -> None:
    tid = await create(manager, PY, "-u", "-c", "print('ready'); import time; time.sleep(30)")
    await wait_output(manager, tid, "ready")
    result = await manager.output(ref(tid))
    assert "exitStatus" not in result
    state = manager.get(tid)
    assert state.running and state.exit_status is None
    await manager.kill(ref(tid))


@pytest.mark.parametrize("char", ["é", "€", "😀"])
async def test_output_limit_cuts_at_utf8_boundary(manager: TerminalManager, char: str) -> None:
    limit = 101
    tid = await create(
        manager,
        PY,
        "-c",
        f"import sys; sys.stdout.write('start' + {char!r} * 5000)",
        outputByteLimit=limit,
    )
    await manager.wait_for_exit(ref(tid))
    result = await manager.output(ref(tid))
    output = result["output"]
    assert result["truncated"] is True
    assert len(output.encode()) <= limit
    width = len(char.encode())
    assert len(output.encode()) > limit - width
    assert output == char * len(output)


async def test_output_under_limit_not_truncated(manager: TerminalManager) -> None:
    tid = await create(manager, PY, "-c", "print('é' * 10, end='')", outputByteLimit=20)
    await manager.wait_for_exit(ref(tid))
    assert await manager.output(ref(tid)) == {
        "output": "é" * 10,
        "truncated": False,
        "exitStatus": {"exitCode": 0, "signal": None},
    }


def test_buffer_split_characters_across_chunks() -> None:
    data = "aé€😀" * 50
    encoded = data.encode()
    buffer = OutputBuffer(limit=37)
    for i in range(0, len(encoded), 3):  # chunks cut through characters
        buffer.append(encoded[i : i + 3])
        text = buffer.text()
        assert "\ufffd" not in text
        assert len(text.encode()) <= 37
        assert encoded[: i + 3].decode("utf-8", errors="ignore").endswith(text)
    assert data.endswith(buffer.text(final=True))
    assert buffer.truncated


def test_buffer_zero_limit() -> None:
    buffer = OutputBuffer(limit=0)
    buffer.append(b"abc")
    assert buffer.text(final=True) == "" and buffer.truncated


def test_buffer_invalid_bytes_stay_within_limit() -> None:
    buffer = OutputBuffer(limit=10)
    buffer.append(b"\xff" * 100)
    text = buffer.text(final=True)
    assert len(text.encode()) <= 10 and set(text) == {"\ufffd"}


async def test_ten_megabytes_stay_bounded(manager: TerminalManager) -> None:
    limit = 64 * 1024
    script = "import sys\nline = ('x' * 99 + '\\n').encode()\nfor _ in range(100_000): sys.stdout.buffer.write(line)\nsys.stdout.buffer.write(b'END')"
    tid = await create(manager, PY, "-c", script, outputByteLimit=limit)
    with anyio.fail_after(60):
        assert (await manager.wait_for_exit(ref(tid)))["exitCode"] == 0
    result = await manager.output(ref(tid))
    assert result["truncated"] is True
    assert result["output"].endswith("x\nEND")
    assert len(result["output"].encode()) <= limit
    buffer = manager._terminals[tid].buffer
    assert buffer.total_bytes == 10_000_003
    assert buffer.peak_bytes <= limit


async def test_default_limit_bounds_memory() -> None:
    async with TerminalManager(default_output_limit=1000) as tm:
        tid = await create(tm, PY, "-c", "print('y' * 100_000, end='')")
        await tm.wait_for_exit(ref(tid))
        result = await tm.output(ref(tid))
        assert result["output"] == "y" * 1000 and result["truncated"] is True


@pytest.mark.parametrize("asked", [10**30, 2**63, 5000])
async def test_an_agent_cannot_raise_the_output_limit_past_the_cap(asked: int) -> None:
    """Round 3: ``outputByteLimit: 10**30`` on a chatty command kept every byte it wrote (the
    client's memory grew without bound). The manager's cap holds whatever the agent asks."""
    async with TerminalManager(max_output_limit=1000) as tm:
        tid = await create(tm, PY, "-c", "print('y' * 100_000, end='')", outputByteLimit=asked)
        await tm.wait_for_exit(ref(tid))
        result = await tm.output(ref(tid))
        assert result["output"] == "y" * 1000 and result["truncated"] is True
        assert tm._terminals[tid].buffer.peak_bytes <= 1000


async def test_kill_reports_signal_and_stays_queryable(manager: TerminalManager) -> None:
    tid = await create(manager, PY, "-u", "-c", "print('started'); import time; time.sleep(60)")
    # Unbuffered, print writes "started" and "\n" apart: a kill between the two (a loaded
    # machine) would rightly leave "started" alone, so wait for the whole line.
    await wait_output(manager, tid, "started\n")
    assert await manager.kill(ref(tid)) == {}
    with anyio.fail_after(60):
        status = await manager.wait_for_exit(ref(tid))
    assert status == {"exitCode": None, "signal": "SIGKILL"}
    result = await manager.output(ref(tid))
    assert result["output"] == "started\n"
    assert result["exitStatus"] == status
    state = manager.get(tid)
    assert not state.running and state.exit_status is not None
    assert state.exit_status.signal == "SIGKILL"
    assert await manager.kill(ref(tid)) == {}  # killing an exited terminal is harmless


async def test_kill_reaches_children(manager: TerminalManager, tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    tid = await create(manager, "/bin/sh", "-c", f"sleep 60 & echo $! > {pidfile}; echo go; wait")
    await wait_output(manager, tid, "go")
    child = int(pidfile.read_text())
    assert alive(child)
    await manager.kill(ref(tid))
    with anyio.fail_after(60):
        while alive(child):
            await anyio.sleep(0.02)


async def test_wait_for_exit_signal_from_inside(manager: TerminalManager) -> None:
    tid = await create(manager, PY, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)")
    assert await manager.wait_for_exit(ref(tid)) == {"exitCode": None, "signal": "SIGTERM"}


async def test_release_then_not_found(manager: TerminalManager) -> None:
    tid = await create(manager, PY, "-c", "import time; time.sleep(60)")
    pid = manager._terminals[tid].process.pid
    assert await manager.release(ref(tid)) == {}
    assert not alive(pid)
    for method in (manager.output, manager.wait_for_exit, manager.kill, manager.release):
        with pytest.raises(ServiceError) as info:
            await method(ref(tid))
        assert info.value.code == RESOURCE_NOT_FOUND
    assert tid not in manager
    with pytest.raises(KeyError):
        manager.get(tid)


async def test_release_after_exit(manager: TerminalManager) -> None:
    tid = await create(manager, PY, "-c", "print(1)")
    await manager.wait_for_exit(ref(tid))
    assert await manager.release(ref(tid)) == {}
    assert manager.terminal_ids == []


async def test_release_wakes_a_waiter(manager: TerminalManager) -> None:
    tid = await create(manager, PY, "-c", "import time; time.sleep(60)")
    results: list[dict[str, object]] = []

    async def waiter() -> None:
        results.append(await manager.wait_for_exit(ref(tid)))

    async with anyio.create_task_group() as tg:
        tg.start_soon(waiter)
        await anyio.wait_all_tasks_blocked()  # the waiter is waiting
        await manager.release(ref(tid))
    assert results == [{"exitCode": None, "signal": "SIGKILL"}]


async def test_unknown_terminal_and_other_session(manager: TerminalManager) -> None:
    with pytest.raises(ServiceError) as info:
        await manager.output(ref("term_nope"))
    assert info.value.code == RESOURCE_NOT_FOUND
    tid = await create(manager, PY, "-c", "pass")
    with pytest.raises(ServiceError) as info:
        await manager.output({"sessionId": "other", "terminalId": tid})
    assert info.value.code == RESOURCE_NOT_FOUND


async def test_env_and_cwd_applied(manager: TerminalManager, tmp_path: Path) -> None:
    os.environ["ACP_TUI_TEST_INHERITED"] = "inherited"
    try:
        tid = await create(
            manager,
            PY,
            "-c",
            "import os; print(os.getcwd()); print(os.environ['GREETING']); print(os.environ['ACP_TUI_TEST_INHERITED'])",
            env=[{"name": "GREETING", "value": "hello world"}],
            cwd=str(tmp_path),
        )
    finally:
        del os.environ["ACP_TUI_TEST_INHERITED"]
    await manager.wait_for_exit(ref(tid))
    lines = (await manager.output(ref(tid)))["output"].splitlines()
    assert lines == [str(tmp_path.resolve()), "hello world", "inherited"]
    assert manager.get(tid).cwd == str(tmp_path.resolve())


async def test_cwd_containment(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "sub").mkdir(parents=True)
    (root / "escape").symlink_to(tmp_path)
    async with TerminalManager(guard=PathGuard([root])) as tm:
        tid = await create(tm, "pwd")
        await tm.wait_for_exit(ref(tid))
        assert (await tm.output(ref(tid)))["output"] == f"{root.resolve()}\n"
        tid = await create(tm, "pwd", cwd=str(root / "sub"))
        await tm.wait_for_exit(ref(tid))
        assert (await tm.output(ref(tid)))["output"] == f"{(root / 'sub').resolve()}\n"
        for cwd in (str(tmp_path), str(root / "escape"), "/"):
            with pytest.raises(ServiceError) as info:
                await create(tm, "pwd", cwd=cwd)
            assert info.value.code == PERMISSION_DENIED
        with pytest.raises(ServiceError) as info:
            await create(tm, "pwd", cwd="relative/dir")
        assert info.value.code == INVALID_PARAMS
        with pytest.raises(ServiceError) as info:
            await create(tm, "pwd", cwd=str(root / "missing"))
        assert info.value.code == RESOURCE_NOT_FOUND
        assert len(tm.terminal_ids) == 2  # refusals leave no terminal behind

        async def approve(request: OutsideRequest) -> bool:
            return request.operation == "terminal" and request.command == "pwd"

        tid = await tm.create(
            {"sessionId": SESSION, "command": "pwd", "cwd": str(tmp_path)},
            guard=PathGuard([root], approve),
        )
        await tm.wait_for_exit(ref(tid["terminalId"]))


async def test_command_with_spaces_runs_in_shell(manager: TerminalManager) -> None:
    tid = await create(manager, "echo one two | tr a-z A-Z")
    assert await manager.wait_for_exit(ref(tid)) == {"exitCode": 0, "signal": None}
    assert (await manager.output(ref(tid)))["output"] == "ONE TWO\n"
    assert manager.get(tid).command_line == "echo one two | tr a-z A-Z"


async def test_command_with_args_is_not_a_shell(manager: TerminalManager) -> None:
    tid = await create(manager, "echo", "$HOME", "a b;c")
    await manager.wait_for_exit(ref(tid))
    assert (await manager.output(ref(tid)))["output"] == "$HOME a b;c\n"
    assert manager.get(tid).command_line == "echo '$HOME' 'a b;c'"


async def test_bash_lc_style(manager: TerminalManager) -> None:
    tid = await create(manager, "/bin/sh", "-c", "exit 7")
    assert await manager.wait_for_exit(ref(tid)) == {"exitCode": 7, "signal": None}


async def test_command_not_found(manager: TerminalManager) -> None:
    with pytest.raises(ServiceError) as info:
        await create(manager, "definitely-not-a-command-xyz")
    assert info.value.code == RESOURCE_NOT_FOUND
    tid = await create(manager, "definitely-not-a-command-xyz --flag")  # via the shell
    assert (await manager.wait_for_exit(ref(tid)))["exitCode"] == 127


@pytest.mark.parametrize(
    "params",
    [
        {"command": ""},
        {"command": 3},
        {"command": "echo", "args": "hi"},
        {"command": "echo", "args": [1]},
        {"command": "echo", "env": {"A": "b"}},
        {"command": "echo", "env": [{"name": "A=B", "value": "x"}]},
        {"command": "echo", "env": [{"name": "A", "value": 1}]},
        {"command": "echo", "outputByteLimit": -1},
        {"command": "echo", "outputByteLimit": "10"},
    ],
)
async def test_invalid_create_params(manager: TerminalManager, params: dict[str, object]) -> None:
    with pytest.raises(ServiceError) as info:
        await manager.create({"sessionId": SESSION, **params})
    assert info.value.code == INVALID_PARAMS
    assert manager.terminal_ids == []


async def test_on_output_hook_and_snapshot() -> None:
    seen: list[str] = []
    async with TerminalManager(on_output=seen.append) as tm:
        tid = await create(tm, PY, "-c", "print('hi')")
        await tm.wait_for_exit(ref(tid))
        state = tm.get(tid)
        assert state.terminal_id == tid
        assert state.output == "hi\n"
        assert state.truncated is False
        assert state.exit_status is not None and state.exit_status.exit_code == 0
        assert not state.running
        assert PY in state.command_line
    assert seen and set(seen) == {tid}


async def test_kill_all_leaves_no_process_alive(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    stubborn = "trap '' TERM; sleep 60 & echo $! >> {f}; echo $$ >> {f}; echo up; wait"
    pids: list[int] = []
    async with TerminalManager(kill_grace=0.5) as tm:
        tids = [
            await create(tm, "/bin/sh", "-c", f"sleep 60 & echo $! >> {pidfile}; echo up; wait"),
            await create(tm, "/bin/sh", "-c", stubborn.format(f=pidfile)),
            await create(tm, PY, "-u", "-c", "print('up'); import time; time.sleep(60)"),
        ]
        for tid in tids:
            await wait_output(tm, tid, "up")
            pids.append(tm._terminals[tid].process.pid)
        pids.extend(int(line) for line in pidfile.read_text().split())
        assert all(alive(pid) for pid in pids)
        with anyio.fail_after(60):
            await tm.kill_all()
        for tid in tids:
            assert not tm.get(tid).running
    with anyio.fail_after(60):
        while any(alive(pid) for pid in pids):
            await anyio.sleep(0.02)


async def test_leaving_the_context_kills_everything(tmp_path: Path) -> None:
    async with TerminalManager(kill_grace=0.5) as tm:
        tid = await create(tm, PY, "-c", "import time; time.sleep(60)")
        pid = tm._terminals[tid].process.pid
    with anyio.fail_after(60):
        while alive(pid):
            await anyio.sleep(0.02)


async def test_start_with_external_task_group() -> None:
    tm = TerminalManager()
    async with anyio.create_task_group() as tg:
        tm.start(tg)
        tid = await create(tm, PY, "-c", "import time; time.sleep(60)")
        pid = tm._terminals[tid].process.pid
        await tm.aclose()
    assert not alive(pid)


async def test_not_started_is_internal_error() -> None:
    with pytest.raises(ServiceError) as info:
        await TerminalManager().create({"sessionId": SESSION, "command": "true"})
    assert info.value.code == -32603
