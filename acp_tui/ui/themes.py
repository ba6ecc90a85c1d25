"""Theme data files: small TOML files turned into Textual themes.

Looked up in the themes shipped with the package (``acp_tui/_themes`` in the wheel, the
top-level ``themes/`` folder in a source checkout) and in ``themes/`` next to the user's
config file; a user theme with the same name wins. A file that is not a valid theme is
reported and skipped. A theme file::

    name = "acp-dusk"
    dark = true
    primary = "#7aa2f7"
    secondary = "#bb9af7"
    accent = "#f7768e"
    background = "#16161e"
    surface = "#1f2030"
    panel = "#292b3d"
    foreground = "#c8cce0"
    warning = "#e0af68"
    error = "#f7768e"
    success = "#9ece6a"
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.color import Color, ColorParseError
from textual.theme import Theme

from acp_tui.config.load import config_dir

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["ThemeFileError", "load_theme_file", "load_themes", "register_themes", "theme_dirs"]

#: The acp_tui package (this module lives in its ui/ folder).
PACKAGE_DIR = Path(__file__).resolve().parent.parent


class ThemeFileError(ValueError):
    """A theme file that cannot be used; the message names the file and the problem."""


#: The keys of a theme file: its colours (anything :meth:`Color.parse` takes), then the rest.
COLOUR_KEYS = (
    "primary",
    "secondary",
    "accent",
    "background",
    "surface",
    "panel",
    "foreground",
    "warning",
    "error",
    "success",
    "boost",
)
_KEYS = frozenset({"name", *COLOUR_KEYS, "dark", "variables"})
_NAME_RE = re.compile(r"[A-Za-z0-9_.-]+")


@functools.cache
def _theme_file_model() -> type[BaseModel]:
    """The pydantic model of a theme file, built on first need: only a file that the fast
    check (:func:`_valid_theme_data`) does not pass goes through it, for its precise errors.
    Start-up with valid theme files never loads pydantic."""
    from pydantic import BaseModel, ConfigDict, Field, field_validator

    class ThemeFile(BaseModel):
        """The keys of a theme file (colours: anything Textual parses, e.g. ``"#7aa2f7"``)."""

        model_config = ConfigDict(extra="forbid", strict=True, use_attribute_docstrings=True)

        name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
        """The theme's name, as shown in the palette and written in ``theme = ...``."""
        primary: str
        """Main colour: focus, highlights, the selected row."""
        secondary: str | None = None
        """Second colour."""
        accent: str | None = None
        """Accent: the agent's name, links."""
        background: str | None = None
        """Screen background."""
        surface: str | None = None
        """Background of widgets."""
        panel: str | None = None
        """Background of panels: header, bars."""
        foreground: str | None = None
        """Text colour."""
        warning: str | None = None
        """Warnings."""
        error: str | None = None
        """Errors, the YOLO badge, removed diff lines."""
        success: str | None = None
        """Success, added diff lines."""
        boost: str | None = None
        """Optional boost colour (Textual's default when left out)."""
        dark: bool = True
        """Dark theme (light text on dark background)."""
        variables: dict[str, str] = Field(default_factory=dict)
        """Extra Textual CSS variables, e.g. ``{ "footer-key-foreground" = "#7aa2f7" }``."""

        @field_validator(*COLOUR_KEYS)
        @classmethod
        def _colour(cls, value: str | None) -> str | None:
            if value is not None:
                try:
                    Color.parse(value)
                except ColorParseError:
                    raise ValueError(f"not a colour: {value!r}") from None
            return value

    return ThemeFile


def __getattr__(name: str) -> Any:
    if name == "ThemeFile":
        return _theme_file_model()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _colour_ok(value: object) -> bool:
    if type(value) is not str:
        return False
    try:
        Color.parse(value)
    except ColorParseError:
        return False
    return True


def _valid_theme_data(data: dict[str, Any]) -> dict[str, Any] | None:
    """The fields the ThemeFile model would give for ``data`` when ``data`` is plainly
    valid (exact types, no unknown key, every colour parses); None when in any doubt, and
    the model decides (and words the errors)."""
    if not _KEYS.issuperset(data):
        return None
    name = data.get("name")
    if type(name) is not str or _NAME_RE.fullmatch(name) is None or "primary" not in data:
        return None
    spec: dict[str, Any] = {"name": name}
    for key in COLOUR_KEYS:
        value = data.get(key)
        if key in data and not _colour_ok(value):
            return None
        spec[key] = value
    dark = data.get("dark", True)
    variables = data.get("variables", {})
    if type(dark) is not bool or type(variables) is not dict:
        return None
    if not all(type(key) is str and type(value) is str for key, value in variables.items()):
        return None
    spec["dark"] = dark
    spec["variables"] = dict(variables)
    return spec


def theme_dirs() -> list[Path]:
    """Where theme files are read from, in order (later ones override earlier names)."""
    shipped = PACKAGE_DIR / "_themes"
    if not shipped.is_dir():
        shipped = PACKAGE_DIR.parent / "themes"  # a source checkout
    return [shipped, config_dir() / "themes"]


def load_theme_file(path: Path) -> Theme:
    """One file as a Theme; :class:`ThemeFileError` says what is wrong with it."""
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ThemeFileError(f"{path}: cannot read: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ThemeFileError(f"{path}: TOML syntax error: {error}") from None
    fast = _valid_theme_data(data)
    if fast is not None:
        return Theme(**fast)
    from pydantic import ValidationError

    try:
        spec = _theme_file_model().model_validate(data)
    except ValidationError as error:
        details = "; ".join(
            f"{'.'.join(str(part) for part in item['loc']) or '(top level)'}: "
            + ("unknown key" if item["type"] == "extra_forbidden" else item["msg"])
            for item in error.errors(include_url=False)
        )
        raise ThemeFileError(f"{path}: not a valid theme: {details}") from None
    return Theme(**spec.model_dump())


def load_themes(directories: Iterable[Path] | None = None) -> tuple[list[Theme], list[str]]:
    """Every ``*.toml`` theme in ``directories`` (default :func:`theme_dirs`), and a problem
    for each file skipped. A missing directory is fine."""
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    for directory in theme_dirs() if directories is None else directories:
        try:
            files = sorted(directory.glob("*.toml"))
        except OSError:
            continue
        for path in files:
            try:
                theme = load_theme_file(path)
            except ThemeFileError as error:
                problems.append(str(error))
                continue
            themes.pop(theme.name, None)
            themes[theme.name] = theme
    return list(themes.values()), problems


def register_themes(app: App[Any], directories: Iterable[Path] | None = None) -> list[str]:
    """Register the theme files' themes on ``app``; returns the problems (files skipped)."""
    themes, problems = load_themes(directories)
    for theme in themes:
        app.register_theme(theme)
    return problems


def theme_names() -> list[str]:
    """Every theme a person can name (``--theme``, ``theme =``): Textual's own and the theme
    files', sorted."""
    from textual.theme import BUILTIN_THEMES

    themes, _problems = load_themes()
    return sorted({*BUILTIN_THEMES, *(theme.name for theme in themes)})
