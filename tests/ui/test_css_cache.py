"""Parsed stylesheets are shared by every stylesheet of the process
(acp_tui/ui/textual_patches/css_cache.py): a re-parse with the same sources and theme parses nothing again; another theme parses anew;
only the last few themes are kept; a Textual whose parser changed shape is left alone."""

from __future__ import annotations

import os
import pickle
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path

import pytest
import textual.css.stylesheet as textual_stylesheet
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen

from acp_tui.ui.textual_patches import css_cache
from tests.python_probe import run_python

#: Every test here installs the patch in its process: a run with it off leaves them out.
pytestmark = pytest.mark.textual_patch("css-cache")

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


def test_stylesheets_of_one_theme_look_it_up_by_one_key(fresh_cache: None) -> None:
    """Each stylesheet has its own variables (Textual makes them anew at each refresh); an
    equal theme is the key already kept, not an equal one compared pair by pair at each of a
    parse's lookups."""
    first, second = _stylesheet("#ff0000"), _stylesheet("#ff0000")
    assert first._variables is not second._variables
    first.parse()
    second.parse()
    (kept,) = css_cache._parsed
    assert css_cache._theme_of(dict(second._variables)) is kept
    assert hash(kept) == hash(tuple(kept))


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
        "from acp_tui.ui.textual_patches import css_cache\n"
        "from acp_tui.ui.app import make_app\n"
        "from acp_tui.session.launch.settings import AppSettings\n"
        "before = css_cache.installed()\n"
        "make_app(AppSettings())\n"
        "print(before, css_cache.installed())\n"
    )
    assert run_python(probe).split() == ["False", "True"]


def test_a_textual_whose_parser_changed_shape_is_left_alone() -> None:
    probe = (
        "from textual.css.stylesheet import Stylesheet\n"
        "def changed(self, css, read_from, is_default_rules=False, tie_breaker=0, scope='',"
        " more=None): return []\n"
        "Stylesheet._parse_rules = changed\n"
        "from acp_tui.ui.textual_patches import css_cache\n"
        "print(css_cache.install(), Stylesheet._parse_rules is changed)\n"
    )
    assert run_python(probe).split() == ["False", "True"]


# -- between runs (the command line's keep_on_disk) ----------------------------------------


@pytest.fixture
def on_disk(fresh_cache: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setattr(css_cache, "_read_from_disk", set())
    monkeypatch.setattr(css_cache, "_parsed_anew", set())
    css_cache.keep_on_disk(tmp_path / "cache")
    yield tmp_path / "cache"
    css_cache.keep_on_disk(None)


def _next_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the next launch starts from: nothing parsed in the process."""
    monkeypatch.setattr(css_cache, "_parsed", OrderedDict())
    css_cache._read_from_disk.clear()


def test_the_next_run_reads_what_this_one_parsed(
    on_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _stylesheet("#ff0000")
    first.parse()
    css_cache.save_to_disk()
    assert len(list(on_disk.glob("css-*.pickle"))) == 1
    _next_run(monkeypatch)
    monkeypatch.setattr(textual_stylesheet, "parse", _parser_that_fails)
    second = _stylesheet("#ff0000")
    second.parse()  # read from the disk
    assert [rule.css for rule in second.rules] == [rule.css for rule in first.rules]
    # Another theme is another file: parsed anew.
    with pytest.raises(Exception, match="parsed again"):
        _stylesheet("#00ff00").parse()


def test_a_run_that_parsed_nothing_new_writes_nothing(
    on_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _stylesheet("#ff0000").parse()
    css_cache.save_to_disk()
    (kept,) = on_disk.glob("css-*.pickle")
    written = kept.stat().st_ino  # a file written again is a new file (replaced whole)
    _next_run(monkeypatch)
    _stylesheet("#ff0000").parse()
    css_cache.save_to_disk()
    assert kept.stat().st_ino == written


@pytest.mark.parametrize(
    "content",
    [b"", b"not a pickle", pickle.dumps({"key": "not rules"}), pickle.dumps([1, 2])],
    ids=["empty", "garbage", "not rule sets", "not a dict"],
)
def test_a_cache_file_that_is_not_ours_is_ignored_and_replaced(
    on_disk: Path, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    first = _stylesheet("#ff0000")
    first.parse()
    css_cache.save_to_disk()
    (kept,) = on_disk.glob("css-*.pickle")
    kept.write_bytes(content)
    _next_run(monkeypatch)
    second = _stylesheet("#ff0000")
    second.parse()  # parsed, as without a cache
    assert [rule.css for rule in second.rules] == [rule.css for rule in first.rules]
    css_cache.save_to_disk()
    _next_run(monkeypatch)
    monkeypatch.setattr(textual_stylesheet, "parse", _parser_that_fails)
    _stylesheet("#ff0000").parse()  # the file was written again, whole


def test_a_cache_directory_that_cannot_be_written_costs_nothing(
    on_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    on_disk.parent.mkdir(exist_ok=True)
    on_disk.write_text("a file where the directory should be")
    _stylesheet("#ff0000").parse()
    css_cache.save_to_disk()  # says so in the log, raises nothing
    _next_run(monkeypatch)
    _stylesheet("#ff0000").parse()


def _styles_of(screen: Screen[object]) -> list[tuple[str, str | None, str]]:
    return [
        (type(node).__name__, node.id, node.styles.css)
        for node in screen.walk_children(with_self=True)
    ]


@pytest.mark.anyio
async def test_the_chat_screen_styled_from_the_disk_is_styled_as_parsed(
    on_disk: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole app's CSS (every widget's, every screen's), parsed in one run and read back
    in the next: every widget of the chat screen gets the very same styles."""
    from tests.ui.chat_helpers import demo_app, wait_for_session

    seen: list[list[tuple[str, str | None, str]]] = []
    for run in ("parsed", "read"):
        if run == "read":
            css_cache.save_to_disk()
            _next_run(monkeypatch)
            monkeypatch.setattr(textual_stylesheet, "parse", _parser_that_fails)
        app = demo_app(tmp_path / run, tmp_path / run / "state")
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await wait_for_session(pilot)
            await pilot.pause()
            seen.append(_styles_of(screen))
    assert len(seen[0]) > 30 and seen[1] == seen[0]


def test_only_the_files_used_last_are_kept(on_disk: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A person trying theme after theme (or upgrading) leaves one file each: the cache
    directory keeps the last few used, a file just read counting as used."""
    monkeypatch.setattr(css_cache, "KEEP_FILES", 2)
    for accent in ("#000001", "#000002", "#000003"):
        _next_run(monkeypatch)
        _stylesheet(accent).parse()
        css_cache.save_to_disk()
        for file in on_disk.glob("css-*.pickle"):  # older than what comes next
            os.utime(file, (file.stat().st_atime, file.stat().st_mtime - 10))
    assert len(list(on_disk.glob("css-*.pickle"))) == 2
    _next_run(monkeypatch)
    monkeypatch.setattr(textual_stylesheet, "parse", _parser_that_fails)
    _stylesheet("#000003").parse()  # kept: read from the disk
    with pytest.raises(Exception, match="parsed again"):
        _stylesheet("#000001").parse()  # the oldest went


def test_the_cache_file_is_found_without_reading_package_metadata(tmp_path: Path) -> None:
    """Naming the file per installed Textual must not ask for ``textual.__version__``: that
    loads importlib.metadata and reads the installed packages' metadata, 30-50 ms of a launch."""
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from textual.css.stylesheet import Stylesheet\n"
        "from acp_tui.ui.textual_patches import css_cache\n"
        "css_cache.install()\n"
        f"css_cache.keep_on_disk(Path({str(tmp_path / 'cache')!r}))\n"
        "sheet = Stylesheet(variables={'accent': '#ff0000'})\n"
        "sheet.add_source('Widget { color: red; }', read_from=('probe', 'CSS'))\n"
        "sheet.parse()\n"
        "css_cache.save_to_disk()\n"
        "print('importlib.metadata' in sys.modules)\n"
    )
    assert run_python(probe).split() == ["False"]
    assert len(list((tmp_path / "cache").glob("css-*.pickle"))) == 1
