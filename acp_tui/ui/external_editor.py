"""The prompt in the person's own editor (``$VISUAL``, else ``$EDITOR``, else ``vi``).

The app steps aside the documented Textual way (``App.suspend()``: the terminal goes back to
the state it was in before the app started), the editor runs in the foreground on a
temporary file holding the prompt's text, and the app resumes when it exits; what the file
holds then replaces the prompt. An editor that exits with an error, or cannot be started,
leaves the prompt as it was, and says why.

The editor runs from the event loop, blocking it, as Textual's own ``suspend`` example does:
nothing may paint over the editor while it runs. What an agent sends meanwhile waits in its
pipe and is read on return.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported

from acp_tui.services import children

__all__ = ["EditorResult", "edit_in_editor", "edit_prompt", "editor_command"]


@dataclass(frozen=True, slots=True)
class EditorResult:
    """The edited text (None: the prompt stays as it was), or what went wrong."""

    text: str | None
    problem: str | None = None


def editor_command(environ: Mapping[str, str] | None = None) -> list[str]:
    """The editor's command line: ``$VISUAL``, else ``$EDITOR`` (either may carry arguments,
    ``code --wait``), else ``vi``."""
    env = os.environ if environ is None else environ
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if value:
            try:
                words = shlex.split(value)
            except ValueError:
                words = value.split()
            if words:
                return words
    return ["vi"]


def edit_in_editor(app: App[Any], text: str, cwd: Path | None = None) -> EditorResult:
    """Suspend ``app``, edit ``text`` in the editor, resume: the text as the editor left it
    (one final newline, which editors add, taken off)."""
    command = editor_command()
    with tempfile.TemporaryDirectory(prefix="acp-tui-prompt-") as folder:
        path = Path(folder) / "prompt.md"
        path.write_text(text, encoding="utf-8")
        try:
            with app.suspend():
                status = children.run(
                    [*command, str(path)],
                    cwd=cwd if cwd is not None and cwd.is_dir() else None,
                    check=False,
                ).returncode
        except (SuspendNotSupported, RuntimeError):  # RuntimeError: no driver (not running)
            return EditorResult(None, "this display cannot hand the terminal over to an editor")
        except OSError as error:
            return EditorResult(
                None,
                f"could not start the editor {shlex.join(command)}: {error.strerror or error}; "
                "set $VISUAL or $EDITOR",
            )
        if status != 0:
            return EditorResult(
                None,
                f"the editor exited with status {status}; the prompt is as it was",
            )
        try:
            edited = path.read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            return EditorResult(None, f"could not read what the editor saved: {error}")
    if edited.endswith("\n"):
        edited = edited[:-1]
    return EditorResult(edited)


def edit_prompt(
    app: App[Any],
    text: str,
    cwd: Path,
    replace: Callable[[str], None],
    notify: Callable[..., None],
) -> None:
    """Alt+E: ``text`` in the editor; ``replace`` gets what it saved (an editor that fails
    changes nothing, and ``notify`` says why)."""
    result = edit_in_editor(app, text, cwd)
    if result.problem is not None:
        notify(result.problem, severity="warning", timeout=8, markup=False)
    elif result.text is not None:
        replace(result.text)
