"""The Textual patches' gate and switches (acp_tui/ui/textual_patches): the supported range,
``ACP_TUI_PATCHES``, and what the app does with them."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from acp_tui.session.launch.settings import AppSettings
from acp_tui.ui import textual_patches
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.textual_patches import ENV, PATCHES, Switches, from_environment
from acp_tui.ui.textual_patches.switches import parse, range_text, supported, textual_version
from tests.python_probe import run_python
from tests.ui.chat_helpers import fixture_app, wait_for_session

ALL = frozenset(PATCHES)
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


@pytest.mark.parametrize(
    ("spec", "on"),
    [
        (None, ALL),
        ("", ALL),
        ("all", ALL),
        ("none", frozenset()),
        (" none , ", frozenset()),
        ("-compositor", ALL - {"compositor"}),
        ("-compositor,-css-cache", ALL - {"compositor", "css-cache"}),
        ("compositor", {"compositor"}),
        ("+compositor,restyle", {"compositor", "restyle"}),
        ("none,compositor", {"compositor"}),
        ("none,+compositor,-compositor", frozenset()),
        ("compositor,all,-restyle", ALL - {"restyle"}),
    ],
)
def test_the_switch_turns_patches_on_and_off(spec: str | None, on: frozenset[str]) -> None:
    assert parse(spec) == (on, [])


def test_a_name_that_is_no_patch_is_reported_and_the_rest_applies() -> None:
    on, problems = parse("-compositer,-restyle,\x1b[31m")
    assert on == ALL - {"restyle"}
    assert len(problems) == 2
    assert "compositer" in problems[0] and "compositor" in problems[0]  # the names it knows
    assert "'\\x1b[31m'" in problems[1]  # shown as data, not as an escape sequence


@pytest.mark.parametrize(
    ("version", "ok"),
    [
        ("8.2.0", False),
        ("8.2.7", False),
        ("8.2.8", True),
        ("8.2.9rc1", True),
        ("8.1.1", False),
        ("8.3.0", False),
        ("9.0.0", False),
        ("7.5.0", False),
        ("garbage", False),
        (None, False),
    ],
)
def test_the_gate_accepts_the_supported_range_only(version: str | None, ok: bool) -> None:
    assert supported(version) is ok


def test_outside_the_range_every_patch_is_off_whatever_the_switch_says() -> None:
    switches = from_environment({ENV: "all"}, version="9.0.0")
    assert switches.on == frozenset()
    assert switches.gated is not None and "9.0.0" in switches.gated
    assert range_text() in switches.gated
    inside = from_environment({ENV: "-restyle"}, version="8.2.8")
    assert inside.on == ALL - {"restyle"} and inside.gated is None


def test_the_installed_textual_is_in_the_range_and_read_as_pip_sees_it() -> None:
    from importlib import metadata

    assert textual_version() == metadata.version("textual")
    assert supported(textual_version())


def test_pyproject_pins_textual_to_the_supported_range() -> None:
    dependencies = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    (textual,) = [dep for dep in dependencies if dep.split(">")[0].split("<")[0] == "textual"]
    assert textual.removeprefix("textual") == range_text()


def test_a_switch_that_is_no_patch_raises() -> None:
    with pytest.raises(KeyError):
        Switches.all_on()("no-such-patch")


def test_the_app_decides_its_patches_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV, "-compositor,-nonsense")
    app = make_app(AppSettings())
    assert app.patches.on == from_environment().on
    assert "compositor" not in app.patches.on
    assert textual_patches.switches_of(app) is app.patches
    # The misspelt name is told to the person as the config's problems are (a toast).
    assert any("nonsense" in problem for problem in app.problems)


def test_an_app_with_every_patch_off_installs_none_in_its_process() -> None:
    probe = (
        "import os\n"
        f"os.environ[{ENV!r}] = 'none'\n"
        "from textual.css.stylesheet import Stylesheet\n"
        "original = Stylesheet._parse_rules\n"
        "from acp_tui.ui.app import make_app\n"
        "from acp_tui.session.launch.settings import AppSettings\n"
        "app = make_app(AppSettings())\n"
        "print(sorted(app.patches.on), Stylesheet._parse_rules is original)\n"
    )
    assert run_python(probe) == "[] True"


def _installed(app: AcpTuiApp, screen: ChatScreen) -> dict[str, bool]:
    """Which patches acted on this app and its chat screen (those installed once per process,
    css-cache, are probed in a fresh process above)."""
    from acp_tui.store.entries import AgentMessage
    from acp_tui.store.options import Choice, SessionOption
    from acp_tui.ui.textual_patches import (
        driver,
        early_keys,
        inert_output,
        key_order,
        paint_gate,
        restyle,
    )
    from acp_tui.ui.textual_patches.compositor import CoveredSkipping
    from acp_tui.ui.textual_patches.tall import _LeanStylesCache
    from acp_tui.ui.widgets.option_controls import OptionSelect
    from acp_tui.ui.widgets.transcript_views import AgentMessageView

    option = SessionOption(
        "config:m", "m", "config", "M", "", "mode", "select", (Choice("a", "A"),), "a"
    )
    return {
        "compositor": isinstance(screen._compositor, CoveredSkipping),
        "paint-gate": paint_gate.gate_of(screen) is not None,
        "restyle": restyle._guards.get(screen) is not None,
        "key-order": key_order.of(app) is not None,
        "input-thread": driver._listeners.get(app) is not None,
        "early-keys": app in early_keys._apps,
        "tall-widgets": isinstance(
            AgentMessageView(AgentMessage(1))._styles_cache, _LeanStylesCache
        ),
        "lazy-select": OptionSelect(option).lazy,
        "dead-terminal": app.patches("dead-terminal"),
        # For the process, as the last app made says.
        "inert-output": inert_output.installed(),
    }


@pytest.mark.anyio
@pytest.mark.parametrize("spec", ["all", "none", *(f"-{name}" for name in PATCHES)])
async def test_each_switch_turns_its_patch_off_and_only_it(
    spec: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, spec)
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        installed = _installed(app, screen)
    wanted = parse(spec)[0]
    assert installed == {name: name in wanted for name in installed}
