"""Shell mode in the chat view: ``!cmd`` runs ``cmd`` in the session's directory on a real
terminal (:mod:`acp_tui.services.shell`), its output streamed into the transcript as a shell
block (:class:`acp_tui.store.entries.ShellRun`), drawn by a terminal emulator. Escape (or
Ctrl+C) stops it. The output goes to the agent only when attached: ``!!cmd`` attaches it as
it ends, the block's button attaches it afterwards; it then goes with the next message sent
(an embedded resource where the agent takes one, else text).

:class:`ShellMode` is a plain object the screen owns: ``post`` moves a call from the reader
thread onto the app's (``App.call_from_thread``), ``columns`` is the transcript's width.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from acp_tui.config.shell_log import ShellLog
from acp_tui.services.shell import ShellCommand
from acp_tui.session.prompts.attachments import BuiltPrompt
from acp_tui.store.entries import ShellRun
from acp_tui.text.terminal_screen import TerminalScreen, exit_words
from acp_tui.ui.models.chat import ChatModel

__all__ = ["ShellMode"]


class ShellMode:
    """The shell-mode commands of one chat view (see the module docstring)."""

    def __init__(
        self,
        model: ChatModel,
        *,
        cwd: Callable[[], str],
        post: Callable[..., Any],
        columns: Callable[[], int],
        to_bottom: Callable[[], None],
        log: ShellLog | None = None,
    ) -> None:
        self.model = model
        self.cwd = cwd
        self.post = post
        self.columns = columns
        self.to_bottom = to_bottom
        #: Where ended commands are kept, to be shown again when the session is reopened.
        self.log = log
        if log is not None:
            model.store.shell_records = log.records
        #: Commands running now, with the session each one's block is in.
        self._running: list[tuple[ShellCommand, ShellRun, str]] = []
        #: Blocks whose output goes with the next message, by session.
        self._attached: dict[str, list[ShellRun]] = {}
        #: Blocks to attach as soon as their command ends (``!!``).
        self._attach_at_end: set[int] = set()

    @property
    def running(self) -> bool:
        return bool(self._running)

    def run(self, command: str, attach: bool) -> bool:
        """Run ``command`` in a block of the session on screen. False: there is no session
        yet to hold the block (the person is told; the prompt keeps the text)."""
        session_id = self.model.session_id
        if session_id is None or not command.strip():
            self.model.notify(
                "Shell mode runs in a session: send a message or press "
                f"{self.model.keys('new-session', 'Ctrl+N')} first.",
                severity="warning",
            )
            return False
        self.to_bottom()
        columns = max(40, self.columns())
        screen = TerminalScreen(columns)
        cwd = self.cwd()
        store = self.model.store
        entry = store.add_shell_run(session_id, command, cwd, screen)
        if attach:
            self._attach_at_end.add(entry.id)
        shell = ShellCommand(
            command,
            Path(cwd),
            on_output=lambda data: self._from_thread(self._output, session_id, entry, data),
            on_exit=lambda code: self._from_thread(self._ended, session_id, entry, code),
            columns=columns,
        )
        try:
            shell.start()
        except OSError as error:
            said = f"could not run it: {error.strerror or error}\r\n".encode()
            store.shell_output(session_id, entry, said, exit_code=127)
            return True
        self._running.append((shell, entry, session_id))
        return True

    def _from_thread(self, call: Callable[..., None], *args: Any) -> None:
        # The app may be gone (quitting while a command prints): nothing to show it on.
        with contextlib.suppress(RuntimeError):
            self.post(call, *args)

    def _output(self, session_id: str, entry: ShellRun, data: bytes) -> None:
        self.model.store.shell_output(session_id, entry, data)

    def _ended(self, session_id: str, entry: ShellRun, code: int) -> None:
        self.model.store.shell_output(session_id, entry, exit_code=code)
        if self.log is not None:
            record = {"after": entry.after, "command": entry.command, "cwd": entry.cwd}
            record.update(exit_code=code, columns=entry.screen.columns)
            self.log.add(session_id, {**record, "output": entry.screen.ansi()})
        self._running = [item for item in self._running if item[1] is not entry]
        if entry.id in self._attach_at_end:
            self._attach_at_end.discard(entry.id)
            self.attach(session_id, entry)

    def stop(self) -> bool:
        """Stop the commands running in the session on screen (Escape, Ctrl+C)."""
        session_id = self.model.session_id
        stopped = False
        for shell, _entry, where in self._running:
            if where == session_id:
                shell.stop()
                stopped = True
        return stopped

    def running_here(self) -> bool:
        session_id = self.model.session_id
        return any(where == session_id for _shell, _entry, where in self._running)

    def kill_all(self) -> None:
        """The view goes away: nothing it started outlives it."""
        for shell, _entry, _where in self._running:
            shell.kill()

    def attach(self, session_id: str, entry: ShellRun) -> None:
        """``entry``'s output goes with the next message sent in ``session_id``."""
        if entry.attached:
            return
        self.model.store.shell_output(session_id, entry, attached=True)
        self._attached.setdefault(session_id, []).append(entry)
        self.model.notify(
            "The output of that command goes with your next message.", severity="information"
        )

    def attach_entry(self, entry: ShellRun) -> None:
        """Attach a block of the session on screen (its button)."""
        session_id = self.model.session_id
        if session_id is not None:
            self.attach(session_id, entry)

    def with_attachments(self, built: BuiltPrompt, session_id: str | None) -> BuiltPrompt:
        """``built`` with the outputs attached in ``session_id`` after its blocks (once)."""
        controller = self.model.controller
        entries = self._attached.get(session_id or "", [])
        if built.refused is not None or not entries or controller is None:
            return built
        del self._attached[session_id or ""]
        for entry in entries:
            built.blocks.extend(
                controller.shell_output_blocks(
                    entry.command, entry.screen.text(), exit_words(entry.exit_code)
                )
            )
        return built
