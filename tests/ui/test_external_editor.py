"""The prompt in the person's editor (issue 42): which editor, and what comes back."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_tui.ui.external_editor import edit_in_editor, editor_command


@pytest.mark.parametrize(
    ("env", "command"),
    [
        ({"VISUAL": "code --wait", "EDITOR": "nano"}, ["code", "--wait"]),
        ({"VISUAL": "  ", "EDITOR": "nano -w"}, ["nano", "-w"]),
        ({"EDITOR": "'/opt/my editor/bin/ed'"}, ["/opt/my editor/bin/ed"]),
        ({}, ["vi"]),
    ],
)
def test_visual_then_editor_then_vi(env: dict[str, str], command: list[str]) -> None:
    assert editor_command(env) == command


class FakeApp:
    """An app whose suspend hands over nothing (the editor here needs no terminal)."""

    suspended = 0

    @contextlib.contextmanager
    def suspend(self) -> Iterator[None]:
        self.suspended += 1
        yield


def _editor(tmp_path: Path, body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "editor.py"
    script.write_text("import sys\nfrom pathlib import Path\npath = Path(sys.argv[-1])\n" + body)
    monkeypatch.setenv("VISUAL", f"{sys.executable} {script}")


def test_the_text_round_trips_and_the_editors_last_newline_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _editor(tmp_path, "path.write_text(path.read_text().upper() + '\\nline two\\n')", monkeypatch)
    app: Any = FakeApp()
    result = edit_in_editor(app, "first line", tmp_path)
    assert result.text == "FIRST LINE\nline two"
    assert result.problem is None
    assert app.suspended == 1


def test_an_editor_that_fails_changes_nothing_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _editor(tmp_path, "path.write_text('lost')\nraise SystemExit(3)", monkeypatch)
    result = edit_in_editor(FakeApp(), "keep", tmp_path)  # type: ignore[arg-type]
    assert result.text is None
    assert result.problem is not None and "status 3" in result.problem


def test_an_editor_that_is_not_there_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", str(tmp_path / "no-such-editor"))
    result = edit_in_editor(FakeApp(), "keep", tmp_path)  # type: ignore[arg-type]
    assert result.text is None
    assert result.problem is not None and "no-such-editor" in result.problem
    assert "$EDITOR" in result.problem
