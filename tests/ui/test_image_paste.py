"""Ctrl+V in the prompt (issue 42): an image on the clipboard is saved in acp-tui's folder and
mentioned (attached when sent); without one, the text paste is as it was; a terminal paste of
nothing says why no image came when no tool can read one."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.events import Paste

from acp_tui.services.clipboard import ClipboardImage
from acp_tui.ui.widgets import image_paste
from tests.ui.test_prompt import PromptApp, _editor, _type

pytestmark = pytest.mark.anyio


async def _paste_with(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    image: ClipboardImage | None,
    tools: list[str],
    *,
    key: bool = True,
) -> tuple[str, list[str]]:
    monkeypatch.setattr(image_paste, "clipboard_image", lambda: image)
    monkeypatch.setattr(image_paste, "clipboard_tools", lambda: tools)
    app = PromptApp(cwd=tmp_path)
    async with app.run_test() as pilot:
        editor = _editor(app)
        editor.images.directory = tmp_path / "data" / "pasted"
        app.copy_to_clipboard("copied text")
        await _type(pilot, "look")
        if key:
            await pilot.press("ctrl+v")
        else:
            editor.text_area.post_message(Paste(""))
        await app.workers.wait_for_complete()
        await pilot.pause()
        return editor.text, [str(toast.message) for toast in app._notifications]


async def test_an_image_is_saved_and_mentioned(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    png = ClipboardImage(b"\x89PNG\r\n\x1a\n-data", "image/png")
    text, _toasts = await _paste_with(monkeypatch, tmp_path, png, ["xclip"])
    (saved,) = (tmp_path / "data" / "pasted").iterdir()
    assert saved.read_bytes() == png.data and saved.suffix == ".png"
    assert saved.stat().st_mode & 0o777 == 0o600
    assert text == f"look @{saved} "


async def test_without_an_image_ctrl_v_pastes_text_as_before(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    text, toasts = await _paste_with(monkeypatch, tmp_path, None, ["xclip"])
    assert text == "lookcopied text"
    assert toasts == []
    assert not (tmp_path / "data" / "pasted").exists()


async def test_an_empty_terminal_paste_without_a_tool_says_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    text, toasts = await _paste_with(monkeypatch, tmp_path, None, [], key=False)
    assert text == "look"
    assert any("xclip" in toast and "wl-paste" in toast for toast in toasts), toasts
