"""Parsed stylesheets are shared by every stylesheet of the process (acp_tui/ui/css_cache.py):
a re-parse with the same sources and theme parses nothing again; another theme parses anew;
only the last few themes are kept; a Textual whose parser changed shape is left alone."""

from __future__ import annotations

from collections import OrderedDict

import pytest
import textual.css.stylesheet as textual_stylesheet
from textual.css.stylesheet import Stylesheet

from acp_tui.ui import css_cache
from tests.python_probe import run_python

CSS = "Widget { background: $accent; color: red; }"


def _stylesheet(accent: str, css: str = CSS) -> Stylesheet:
    sheet = Stylesheet(variables={"accent": accent})
    sheet.add_source(css, read_from=("test_css_cache.py", "CSS"))
    return sheet


def _parser_that_fails(*args: object, **kwargs: object) -> object:
    raise AssertionError("parsed again")


@pytest.fixture
def fresh_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    assert css_cache.install()
    monkeypatch.setattr(css_cache, "_parsed", OrderedDict())


def test_a_second_stylesheet_of_the_same_sources_parses_nothing_again(
    fresh_cache: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _stylesheet("#ff0000")
    first.parse()
    monkeypatch.setattr(textual_stylesheet, "parse", _parser_that_fails)
    second = _stylesheet("#ff0000")
    second.parse()  # served from the cache
    assert [rule.selectors for rule in second.rules] == [rule.selectors for rule in first.rules]
    second.reparse()  # Textual's re-parse: a fresh stylesheet, the same sources


def test_another_theme_or_other_css_is_parsed_anew(
    fresh_cache: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _stylesheet("#ff0000").parse()
    monkeypatch.setattr(textual_stylesheet, "parse", _parser_that_fails)
    with pytest.raises(Exception, match="parsed again"):
        _stylesheet("#00ff00").parse()
    with pytest.raises(Exception, match="parsed again"):
        _stylesheet("#ff0000", css="Widget { color: blue; }").parse()


def test_new_variables_set_on_a_stylesheet_are_a_new_theme(
    fresh_cache: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual replaces a stylesheet's variables (set_variables) when the theme changes: the
    cache's key, worked out once per variables, follows."""
    sheet = _stylesheet("#ff0000")
    sheet.parse()
    monkeypatch.setattr(textual_stylesheet, "parse", _parser_that_fails)
    sheet.reparse()  # the same variables: nothing parsed
    sheet.set_variables({"accent": "#0000ff"})
    with pytest.raises(Exception, match="parsed again"):
        sheet.reparse()


def test_only_the_last_themes_are_kept(fresh_cache: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(css_cache, "_limit", [2])
    for accent in ("#000001", "#000002", "#000001", "#000003"):
        _stylesheet(accent).parse()
    kept = [dict(theme)["accent"] for theme in css_cache._parsed]
    assert kept == ["#000001", "#000003"]  # #000002 was the least recently used


def test_the_app_installs_it() -> None:
    probe = (
        "from acp_tui.ui import css_cache\n"
        "from acp_tui.ui.app import make_app\n"
        "from acp_tui.session.settings import AppSettings\n"
        "before = css_cache.installed()\n"
        "make_app(AppSettings(agent_argv=['true']))\n"
        "print(before, css_cache.installed())\n"
    )
    assert run_python(probe).split() == ["False", "True"]


def test_a_textual_whose_parser_changed_shape_is_left_alone() -> None:
    probe = (
        "from textual.css.stylesheet import Stylesheet\n"
        "def changed(self, css, read_from, is_default_rules=False, tie_breaker=0, scope='',"
        " more=None): return []\n"
        "Stylesheet._parse_rules = changed\n"
        "from acp_tui.ui import css_cache\n"
        "print(css_cache.install(), Stylesheet._parse_rules is changed)\n"
    )
    assert run_python(probe).split() == ["False", "True"]
