"""Packaging: the wheel built from this tree holds the app, its themes and the demo agent and
no tests; ``pipx install`` and ``uv tool install`` of that wheel (not of the source tree) give
an ``acp-tui`` that runs anywhere: ``--version`` from the package metadata, a headless turn
with the demo agent, the shipped themes.

Each installer gets its own temporary home (no PATH, config or cache of the person running the
tests is touched), and the installed tool runs from a folder outside this tree, with no
PYTHONPATH, so it cannot import the source by accident."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import acp_tui
from acp_tui.cli.parse import parse

ROOT = Path(__file__).resolve().parent.parent
THEMES = sorted(path.name for path in (ROOT / "themes").glob("*.toml"))
#: Installers and builds fetch from the package index: generous, only a hang reaches it.
INSTALL_TIMEOUT = 600
REAL_CACHE = Path.home() / ".cache"


def tool(name: str) -> str:
    """A command installed beside this interpreter (the test extra brings pipx and uv)."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    assert found, f"{name} is not installed: pip install '.[test]'"
    return found


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """This environment without anything that points Python at the source tree, with its own
    home and config dirs."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")
        and not key.startswith("PIPX_")
        and not key.startswith("UV_")
    }
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        XDG_STATE_HOME=str(home / "state"),
        XDG_CACHE_HOME=str(home / "cache"),
        ACP_TUI_CONFIG=str(home / "config" / "acp-tui" / "config.toml"),
    )
    # The installers' download caches stay the person's own (tests/conftest.py moved
    # XDG_CACHE_HOME, HOME is moved here): a second run need not download everything again.
    env["PIP_CACHE_DIR"] = os.environ.get("PIP_CACHE_DIR", str(REAL_CACHE / "pip"))
    env["UV_CACHE_DIR"] = os.environ.get("UV_CACHE_DIR", str(REAL_CACHE / "uv"))
    env.update(extra)
    return env


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"{argv} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("dist")
    env = dict(os.environ, UV_CACHE_DIR=os.environ.get("UV_CACHE_DIR", str(REAL_CACHE / "uv")))
    run([tool("uv"), "build", "--wheel", "--out-dir", str(out), str(ROOT)], out, env)
    (built,) = out.glob("acp_tui-*.whl")
    yield built


# ---------------------------------------------------------------------- the wheel


def test_the_wheel_holds_the_app_themes_and_demo_agent_and_no_tests(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert wheel.name == f"acp_tui-{acp_tui.__version__}-py3-none-any.whl"
    # Every module of the package, and nothing compiled or cached.
    sources = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "acp_tui").rglob("*.py"))
    assert sources and set(sources) <= set(names)
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".pyo"))]
    # Textual's stylesheets beside their screens.
    for css in (ROOT / "acp_tui").rglob("*.tcss"):
        assert str(css.relative_to(ROOT)) in names
    # The themes (from themes/ in the tree) and the demo agent.
    assert THEMES and [f"acp_tui/_themes/{name}" for name in THEMES] == sorted(
        n for n in names if n.startswith("acp_tui/_themes/")
    )
    for module in ("__init__.py", "__main__.py", "agent.py", "main.py"):
        assert f"acp_tui/demo_agent/{module}" in names
    # No tests, benchmarks or scripts: only the package and its metadata.
    assert not [n for n in names if n.startswith(("tests/", "bench/", "scripts/"))]
    assert all(n.startswith(("acp_tui/", "acp_tui-")) for n in names), names
    metadata = zipfile.ZipFile(wheel).read(
        f"acp_tui-{acp_tui.__version__}.dist-info/entry_points.txt"
    )
    assert b"acp-tui = acp_tui.cli.main:main" in metadata


def test_version_is_read_from_the_package_metadata(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(
        importlib.metadata, "version", lambda name: "9.8.7" if name == "acp-tui" else "?"
    )
    with pytest.raises(SystemExit) as exit_info:
        parse(["--version"])
    assert exit_info.value.code in (0, None)
    assert capsys.readouterr().out == "acp-tui 9.8.7\n"


# ---------------------------------------------------------------------- installed tools


def check_installed_tool(bin_dir: Path, venv: Path, work: Path, env: dict[str, str]) -> None:
    """The installed ``acp-tui`` runs from its own environment: its version, a headless turn
    with the demo agent, and the themes it ships."""
    command = bin_dir / "acp-tui"
    assert command.exists(), f"no acp-tui in {bin_dir}: {sorted(os.listdir(bin_dir))}"
    version = run([str(command), "--version"], work, env).stdout
    assert version == f"acp-tui {acp_tui.__version__}\n"

    done = run([str(command), "ask", "hello from a wheel", "--demo"], work, env)
    assert "> hello from a wheel" in done.stdout
    assert "stop: end_turn" in done.stderr

    python = venv / "bin" / "python"
    probe = (
        "import acp_tui, acp_tui.demo_agent\n"
        "from acp_tui.ui.themes import load_themes\n"
        "themes, problems = load_themes()\n"
        "print(acp_tui.__file__)\n"
        "print(sorted(t.name for t in themes))\n"
        "print(problems)\n"
    )
    where, themes, problems = run([str(python), "-c", probe], work, env).stdout.splitlines()
    assert Path(where).resolve().is_relative_to(venv.resolve()), where
    assert not Path(where).resolve().is_relative_to(ROOT), "the source tree was imported"
    assert themes == str(sorted(f"acp-{Path(name).stem}" for name in THEMES))
    assert problems == "[]"


def test_pipx_installs_the_wheel(wheel: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = clean_env(
        tmp_path / "home",
        PIPX_HOME=str(tmp_path / "pipx"),
        PIPX_BIN_DIR=str(tmp_path / "bin"),
        PIPX_MAN_DIR=str(tmp_path / "man"),
    )
    run([tool("pipx"), "install", "--python", sys.executable, str(wheel)], work, env)
    check_installed_tool(tmp_path / "bin", tmp_path / "pipx" / "venvs" / "acp-tui", work, env)


def test_uv_tool_installs_the_wheel(wheel: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = clean_env(
        tmp_path / "home",
        UV_TOOL_DIR=str(tmp_path / "tools"),
        UV_TOOL_BIN_DIR=str(tmp_path / "bin"),
        # The interpreter running the tests, never one uv would download.
        UV_PYTHON_DOWNLOADS="never",
    )
    run([tool("uv"), "tool", "install", "--python", sys.executable, str(wheel)], work, env)
    check_installed_tool(tmp_path / "bin", tmp_path / "tools" / "acp-tui", work, env)
