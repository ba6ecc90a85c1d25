"""Theme data files: the shipped ones load, a broken one is reported and skipped, user
themes override shipped ones, and a theme picked in the palette is remembered."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from acp_tui.session.launch.settings import AppSettings
from acp_tui.ui.app import make_app
from acp_tui.ui.preferences import UiSettings
from acp_tui.ui.themes import ThemeFileError, load_theme_file, load_themes, theme_dirs

GOOD = """\
name = "my-theme"
dark = false
primary = "#336699"
secondary = "#996633"
accent = "#cc3366"
background = "#fafafa"
surface = "#f0f0f0"
panel = "#e0e0e0"
foreground = "#202020"
warning = "#aa7700"
error = "#bb2222"
success = "#228822"
"""


def test_shipped_themes_load() -> None:
    shipped = theme_dirs()[0]
    files = sorted(shipped.glob("*.toml"))
    assert len(files) >= 2
    themes, problems = load_themes([shipped])
    assert problems == []
    names = {theme.name for theme in themes}
    assert {"acp-dusk", "acp-paper", "acp-ember"} <= names
    paper = next(theme for theme in themes if theme.name == "acp-paper")
    assert paper.dark is False and paper.primary == "#2f5d8a"


def test_valid_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(GOOD)
    theme = load_theme_file(path)
    assert theme.name == "my-theme" and theme.dark is False
    assert theme.background == "#fafafa" and theme.success == "#228822"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('name = "x"\nprimary = "#123456\n', "TOML syntax error"),
        ('name = "x"\nprimary = "not-a-colour"\n', "not a colour: 'not-a-colour'"),
        ('name = "x"\n', "primary: Field required"),
        ('name = "x"\nprimary = "#123456"\nprimray = "#000"\n', "primray: unknown key"),
        ('name = "x y"\nprimary = "#123456"\n', "name:"),
        ('name = "x"\nprimary = "#123456"\ndark = "yes"\n', "dark:"),
    ],
)
def test_broken_files_say_why(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "broken.toml"
    path.write_text(text)
    with pytest.raises(ThemeFileError) as info:
        load_theme_file(path)
    assert str(path) in str(info.value)
    assert expected in str(info.value)


def test_broken_file_is_skipped_and_reported(tmp_path: Path) -> None:
    (tmp_path / "a-good.toml").write_text(GOOD)
    (tmp_path / "b-bad.toml").write_text('name = "bad"\nprimary = "nope"\n')
    themes, problems = load_themes([tmp_path, tmp_path / "missing"])
    assert [theme.name for theme in themes] == ["my-theme"]
    assert len(problems) == 1 and "b-bad.toml" in problems[0]


def test_user_theme_overrides_a_shipped_one(tmp_path: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    (user / "dusk.toml").write_text('name = "acp-dusk"\nprimary = "#ff0000"\n')
    themes, _ = load_themes([theme_dirs()[0], user])
    dusk = [theme for theme in themes if theme.name == "acp-dusk"]
    assert len(dusk) == 1 and dusk[0].primary == "#ff0000"


def _user_themes_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config.toml"
    monkeypatch.setenv("ACP_TUI_CONFIG", str(config))
    (tmp_path / "themes").mkdir()
    return tmp_path / "themes"


@pytest.mark.anyio
async def test_app_registers_themes_and_reports_broken_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    themes = _user_themes_dir(tmp_path, monkeypatch)
    (themes / "mine.toml").write_text(GOOD)
    (themes / "broken.toml").write_text("name = [\n")
    app = make_app(AppSettings(), ui=UiSettings(theme="my-theme"), choices=[])
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.theme == "my-theme"
        assert "acp-dusk" in app.available_themes and "nord" in app.available_themes
        messages = [n.message for n in app._notifications]
        assert len(messages) == 1 and "broken.toml" in messages[0]


@pytest.mark.anyio
async def test_unknown_theme_name_is_reported(tmp_path: Path) -> None:
    app = make_app(AppSettings(), ui=UiSettings(theme="no-such"), choices=[])
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.theme == "textual-dark"
        assert any("'no-such' not found" in n.message for n in app._notifications)


@pytest.mark.anyio
async def test_theme_picked_is_remembered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _user_themes_dir(tmp_path, monkeypatch)
    config = tmp_path / "config.toml"
    config.write_text('# mine\nsidebar = false\n\n[agents.x]\ncommand = "x"\n')
    app = make_app(
        AppSettings(),
        ui=UiSettings(theme="nord"),
        choices=[],
        remember_theme=True,
    )
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "theme" not in tomllib.loads(config.read_text())  # starting is not choosing
        app.theme = "acp-ember"  # what the palette's theme picker does
        await pilot.pause()
    text = config.read_text()
    assert text.startswith("# mine\nsidebar = false\n")
    assert tomllib.loads(text) == {
        "sidebar": False,
        "theme": "acp-ember",
        "agents": {"x": {"command": "x"}},
    }


@pytest.mark.anyio
async def test_tests_and_scripts_do_not_remember_themes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _user_themes_dir(tmp_path, monkeypatch)
    app = make_app(AppSettings(), choices=[])
    async with app.run_test() as pilot:
        app.theme = "dracula"
        await pilot.pause()
    assert not (tmp_path / "config.toml").exists()
