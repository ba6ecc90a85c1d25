"""``terminal/create`` is confirmed like a file outside the project (issue 17): a working
directory outside the session's directories, or an environment that changes which code runs
(PATH, the loaders' variables, interpreter and shell start-up hooks...), needs the person's
yes, asked once with the cwd, command, args and every variable set. A refusal starts nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from acp_tui.services.errors import PERMISSION_DENIED, ServiceError
from acp_tui.services.paths import OutsideRequest, PathGuard
from acp_tui.services.terminal_commands import risky_env
from acp_tui.services.terminals import TerminalManager

pytestmark = pytest.mark.anyio
SESSION = "sess-1"


class Person:
    """The approve callback: records what it was shown, answers ``allow``."""

    def __init__(self, allow: bool) -> None:
        self.allow = allow
        self.asked: list[OutsideRequest] = []

    async def __call__(self, request: OutsideRequest) -> bool:
        self.asked.append(request)
        return self.allow


def env(**values: str) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in values.items()]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


RISKY = [
    {"PATH": "/tmp/evil:/usr/bin"},
    {"LD_PRELOAD": "/tmp/evil.so"},
    {"LD_LIBRARY_PATH": "/tmp"},
    {"LD_AUDIT": "/tmp/a.so"},
    {"DYLD_INSERT_LIBRARIES": "/tmp/evil.dylib"},
    {"PYTHONPATH": "/tmp"},
    {"PYTHONSTARTUP": "/tmp/s.py"},
    {"NODE_OPTIONS": "--require /tmp/evil.js"},
    {"BASH_ENV": "/tmp/evil.sh"},
    {"ENV": "/tmp/evil.sh"},
    {"BASH_FUNC_ls%%": "() { echo evil; }"},
    {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor"},
    {"GIT_SSH_COMMAND": "evil"},
    {"PERL5OPT": "-Mevil"},
    {"JAVA_TOOL_OPTIONS": "-javaagent:/tmp/evil.jar"},
]


@pytest.mark.parametrize("variables", RISKY, ids=[next(iter(v)) for v in RISKY])
async def test_an_environment_that_changes_what_runs_is_asked_and_refused(
    project: Path, variables: dict[str, str]
) -> None:
    person = Person(allow=False)
    async with TerminalManager(guard=PathGuard([project], person)) as manager:
        with pytest.raises(ServiceError) as refused:
            await manager.create(
                {
                    "sessionId": SESSION,
                    "command": "git",
                    "args": ["status"],
                    "env": env(CI="1", **variables),
                }
            )
        assert refused.value.code == PERMISSION_DENIED
        assert manager.terminal_ids == []  # nothing started
    [request] = person.asked
    assert request.operation == "terminal" and not request.outside
    assert (request.command, request.args) == ("git", ("status",))
    assert request.path == project.resolve()
    assert request.env == (("CI", "1"), *variables.items())  # every variable, in order
    assert set(request.risky_env) <= set(variables) and request.risky_env
    assert "CI" not in request.risky_env


async def test_allowed_it_runs_with_that_environment(project: Path) -> None:
    person = Person(allow=True)
    async with TerminalManager(guard=PathGuard([project], person)) as manager:
        created = await manager.create(
            {
                "sessionId": SESSION,
                "command": "sh",
                "args": ["-c", "echo $PYTHONPATH"],
                "env": env(PYTHONPATH="/somewhere"),
            }
        )
        ref = {"sessionId": SESSION, "terminalId": created["terminalId"]}
        await manager.wait_for_exit(ref)
        assert (await manager.output(ref))["output"] == "/somewhere\n"
    assert [r.risky_env for r in person.asked] == [("PYTHONPATH",)]


async def test_a_working_directory_outside_is_asked_with_the_whole_command(
    project: Path, tmp_path: Path
) -> None:
    person = Person(allow=False)
    async with TerminalManager(guard=PathGuard([project], person)) as manager:
        with pytest.raises(ServiceError) as refused:
            await manager.create(
                {"sessionId": SESSION, "command": "rm", "args": ["-rf", "."], "cwd": str(tmp_path)}
            )
        assert refused.value.code == PERMISSION_DENIED
        assert "outside" in refused.value.message
    [request] = person.asked
    assert request.outside and request.path == tmp_path.resolve()
    assert (request.command, request.args, request.env) == ("rm", ("-rf", "."), ())


async def test_harmless_variables_inside_the_project_are_not_asked(project: Path) -> None:
    person = Person(allow=False)
    async with TerminalManager(guard=PathGuard([project], person)) as manager:
        created = await manager.create(
            {
                "sessionId": SESSION,
                "command": "sh",
                "args": ["-c", "echo $LANG $RUST_LOG"],
                # PATH set to what it already is changes nothing.
                "env": env(LANG="C.UTF-8", RUST_LOG="debug", PATH=os.environ["PATH"]),
            }
        )
        ref = {"sessionId": SESSION, "terminalId": created["terminalId"]}
        await manager.wait_for_exit(ref)
        assert (await manager.output(ref))["output"] == "C.UTF-8 debug\n"
    assert person.asked == []


def test_risky_env_names_and_families() -> None:
    current = {"PATH": "/usr/bin", "LD_PRELOAD": ""}
    assert risky_env({"PATH": "/usr/bin"}, current) == []
    assert risky_env({"PATH": "/x:/usr/bin"}, current) == ["PATH"]
    assert risky_env({"LD_BIND_NOW": "1", "DYLD_X": "y", "TERM": "xterm"}, current) == [
        "LD_BIND_NOW",
        "DYLD_X",
    ]
