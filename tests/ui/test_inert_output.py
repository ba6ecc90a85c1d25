"""The last gate (issue 36): the ``inert-output`` patch cleans each line at the step where
Textual turns it into terminal output, keeps the line's cells and the app's own sequences, and
leaves a clean line to Textual's own code."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from acp_tui.ui.app import make_app
from acp_tui.ui.textual_patches import ENV, inert_output
from tests.terminal_bytes import tokens
from tests.ui.chat_helpers import app_settings

CONSOLE = Console(force_terminal=True, color_system="truecolor", width=200)
STYLES = [
    None,
    Style(bold=True),
    Style(color="red", bgcolor="blue"),
    Style(link="https://x.example/a"),
]


@pytest.fixture
def patched() -> Iterator[None]:
    was = inert_output.installed()
    inert_output.install()
    yield
    if not was:
        inert_output.uninstall()


def textual_render(strip: Strip) -> str:
    """What Textual's own code writes for ``strip``."""
    was = inert_output.installed()
    inert_output.uninstall()
    try:
        return Strip(list(strip), strip.cell_length).render(CONSOLE)
    finally:
        if was:
            inert_output.install()


def foreign(output: str) -> list[str]:
    """Tokens of ``output`` that are not an SGR, an OSC 8 link of printable ASCII, or text."""
    found = []
    for token in tokens(output):
        if token.kind == "text":
            continue
        if token.kind == "CSI" and token.data.endswith("m") and token.data.startswith("\x1b["):
            continue
        if token.kind == "OSC" and token.body.startswith("8;") and token.body.isprintable():
            if token.body.isascii():
                continue
        found.append(f"{token.kind} {token.data!r}")
    return found


segments = st.lists(
    st.builds(Segment, st.text(max_size=12), st.sampled_from(STYLES)), min_size=1, max_size=6
)


@given(segments)
def test_no_line_writes_a_control_and_each_keeps_its_cells(parts: list[Segment]) -> None:
    strip = Strip(parts)
    was = inert_output.installed()
    inert_output.install()
    try:
        output = strip.render(CONSOLE)
    finally:
        if not was:
            inert_output.uninstall()
    assert foreign(output) == [], output
    shown = "".join(t.data for t in tokens(output) if t.kind == "text")
    assert cell_len(shown) == cell_len("".join(s.text for s in parts if s.text)) or any(
        "\ud800" <= c <= "\udfff" for s in parts for c in s.text
    )


def test_a_clean_line_is_textuals_own(patched: None) -> None:
    strip = Strip(
        [Segment("plain "), Segment("bold", Style(bold=True)), Segment("link", STYLES[3])]
    )
    assert strip.render(CONSOLE) == textual_render(strip)


def test_a_hostile_line_loses_its_controls_and_keeps_its_styles(patched: None) -> None:
    link = Style(link="https://evil.example/\x1b]52;c;ZXZp\x07é")
    strip = Strip(
        [
            Segment("a\x1b]52;c;ZXZpbA==\x07b", Style(bold=True)),
            Segment("\u202ec\u200bd\U000e0041\ud800\x9b2J"),
            Segment("L", link),
        ]
    )
    output = strip.render(CONSOLE)
    assert foreign(output) == []
    assert "\x1b[1ma]52;c;ZXZpbA==b\x1b[0m" in output  # the text, inert; the bold, ours
    assert "cd\ufffd2J" in output
    assert "https://evil.example/%1B]52;c;ZXZp%07%C3%A9" in output  # the link, percent-encoded


@pytest.mark.parametrize(("spec", "on"), [("all", True), ("-inert-output", False), ("none", False)])
def test_the_switch_decides_for_the_process(
    spec: str, on: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    was = inert_output.installed()
    monkeypatch.setenv(ENV, spec)
    settings, ui = app_settings(["true"], tmp_path)
    make_app(settings, ui=ui)
    try:
        assert inert_output.installed() is on
        hostile = Strip([Segment("x\x1b]2;pwned\x07y")])
        assert ("\x1b]2" in hostile.render(CONSOLE)) is not on
    finally:
        inert_output.install() if was else inert_output.uninstall()
