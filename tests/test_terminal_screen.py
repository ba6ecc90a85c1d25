"""Terminal output drawn as a terminal draws it (issue 42): colours, carriage returns, erasing;
bounded; and nothing of an escape sequence or a hiding character comes out."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from acp_tui.text.terminal_screen import Run, TerminalScreen, exit_words, render_text


def test_colours_and_attributes_are_kept_as_names() -> None:
    screen = TerminalScreen(60)
    screen.feed(b"\x1b[01;34mdir\x1b[0m  \x1b[38;5;208morange\x1b[0m \x1b[1;92mok\x1b[0m\r\n")
    (line,) = screen.lines()
    assert Run("dir", fg="blue", bold=True) in line
    assert Run("orange", fg="#ff8700") in line
    assert Run("ok", fg="bright_green", bold=True) in line
    assert screen.text() == "dir  orange ok"


def test_a_progress_bar_redraws_its_line() -> None:
    screen = TerminalScreen(40)
    for percent in range(0, 101, 10):
        screen.feed(f"\rdownloading {percent:3d}%".encode())
    screen.feed(b"\r\nerase me\x1b[2K\rkept\r\n")
    assert screen.text() == "downloading 100%\nkept"


def test_a_character_split_between_two_reads_arrives_whole() -> None:
    screen = TerminalScreen(40)
    screen.feed("— x".encode()[:2])
    screen.feed("— x".encode()[2:])
    assert screen.text() == "— x"


def test_the_output_is_bounded_and_says_so() -> None:
    screen = TerminalScreen(40, rows=10, history=50)
    for number in range(5000):
        screen.feed(b"line %d\r\n" % number)
    lines = screen.text().splitlines()
    assert len(lines) <= 60
    assert lines[-1] == "line 4999"
    assert screen.truncated


@given(st.binary(max_size=400))
def test_no_control_or_hiding_character_comes_out(data: bytes) -> None:
    screen = TerminalScreen(30, rows=5, history=5)
    screen.feed(b"\xe2\x80\xae" + data + b"\x1b]0;title\x07\x1b[31m\xe2\x80\x8bx")
    for line in screen.lines():
        for run in line:
            assert all(char.isprintable() for char in run.text), run


def test_text_read_from_a_pipe_starts_each_line_at_the_left() -> None:
    assert render_text("one\ntwo\n").text() == "one\ntwo"


def test_how_a_command_ended_in_words() -> None:
    assert [exit_words(code) for code in (None, 0, 3, -2, -9)] == [
        "running",
        "exit 0",
        "exit 3",
        "ended by SIGINT",
        "ended by SIGKILL",
    ]
