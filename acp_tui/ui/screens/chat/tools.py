"""The chat view's tools over the session on screen: copy the last reply or code block, export the
transcript, the agent's stderr, the protocol inspector and the context details.

:class:`ChatTools` is a plain object the screen owns: ``push`` shows a screen, ``copy`` puts
text on the clipboard, ``gauge`` is the view's context gauge (the details read it), ``announce``
is the app's toast (not cut short: a path is read whole).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from textual.screen import Screen

from acp_tui.config import locations
from acp_tui.services.path_gate import PathRefused
from acp_tui.session.export.formats import (
    FORMAT_NAMES,
    SUFFIXES,
    ExportFormat,
    redacted_title,
    render,
)
from acp_tui.session.export.markdown import write_export
from acp_tui.session.launch.settings import AppSettings
from acp_tui.store.entries import AgentMessage
from acp_tui.text.redaction import Finding, Redactor, compile_patterns
from acp_tui.text.safety import encodable
from acp_tui.ui.models import Notify
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.render.source_text import last_code_block
from acp_tui.ui.screens.armed import DialogOrigin, TypingForwarder
from acp_tui.ui.screens.chat.common import data_dir
from acp_tui.ui.screens.redaction_review import RedactionReview
from acp_tui.ui.widgets.gauge import ContextGauge

__all__ = ["ChatTools", "in_thread", "system_prompt_state"]


#: ``in_thread(work, done)``: ``work()`` in a thread, then ``done(its result)`` on the loop.
InThread = Callable[[Callable[[], Any], Callable[[Any], None]], None]


def _at_once(work: Callable[[], Any], done: Callable[[Any], None]) -> None:
    done(work())


def in_thread(
    screen: Screen[Any], work: Callable[[], Any], done: Callable[[Any], None], notify: Notify
) -> None:
    """The chat's :data:`InThread`: ``work`` in a thread of the screen's worker, ``done`` on
    the loop; an exception is said (nothing is written), never the end of the app."""

    async def run() -> None:
        try:
            result = await asyncio.to_thread(work)
        except Exception as error:
            notify(f"Export failed: {error}", severity="error", markup=False)
            return
        done(result)

    screen.run_worker(run(), group="export", exit_on_error=False)


def system_prompt_state(sent: bool | None) -> str:
    """Whether the system prompt goes with the sessions, in a few words."""
    if sent is None:
        return "sent once the agent says it takes one"
    return "sent with each session" if sent else "not sent: the agent does not take it"


class ChatTools:
    """Copy, export and inspect."""

    def __init__(
        self,
        model: ChatModel,
        settings: AppSettings,
        *,
        push: Callable[..., object],
        copy: Callable[[str], None],
        gauge: Callable[[], ContextGauge],
        announce: Notify,
        origin: Callable[[str | None], DialogOrigin] | None = None,
        forward_typing: TypingForwarder | None = None,
        in_thread: InThread | None = None,
    ) -> None:
        self.model = model
        self.settings = settings
        #: Shows a screen (and calls back with its answer, when given one).
        self.push = push
        self.origin = origin
        self.forward_typing = forward_typing
        #: Runs work in a thread, then its result through a callback on the app's loop
        #: (None: at once, here).
        self.in_thread: InThread = in_thread or _at_once
        self.copy = copy
        self.gauge = gauge
        self.announce = announce

    def _last_reply(self) -> str | None:
        state = self.model.state()
        if state is None:
            return None
        return next(
            (e.text for e in reversed(state.transcript) if isinstance(e, AgentMessage) and e.text),
            None,
        )

    def copy_last_reply(self) -> None:
        reply = self._last_reply()
        if not reply:
            self.model.notify("No reply to copy yet.")
            return
        self.copy(encodable(reply))
        self.model.notify("Copied the last reply to the clipboard.")

    def copy_last_code(self) -> None:
        """The last code block of the last reply that has one, as sent (its code only)."""
        state = self.model.state()
        replies = (
            [e.text for e in reversed(state.transcript) if isinstance(e, AgentMessage)]
            if state
            else []
        )
        code = next((found for text in replies if (found := last_code_block(text))), None)
        if code is None:
            self.model.notify("No code block to copy yet.")
            return
        self.copy_code(code)

    def copy_code(self, code: str) -> None:
        """``code`` (a code block's, clicked or asked for) to the clipboard, and say so."""
        self.copy(encodable(code))
        lines = code.count("\n") + 1
        self.model.notify(f"Copied the code block ({lines} line{'s' if lines != 1 else ''}).")

    def export_transcript(self, fmt: ExportFormat = "md") -> None:
        """Export the session on screen, redacted: what the redaction engine finds is listed
        in the review first (each kept or undone), and only then written. With nothing
        found, it is written at once (its note says so). Rendering and redacting run in a
        thread (:attr:`in_thread`): a long session takes seconds, the screen none of them."""
        state = self.model.state()
        if state is None:
            return
        patterns, problems = compile_patterns(self.settings.redact_patterns)
        for problem in problems:
            self.model.notify(f"[export] {problem}", severity="warning", markup=False)
        redactor = Redactor(patterns)
        lookup = self.model.store.get

        def first_pass() -> list[Finding]:
            render(state, lookup, fmt, redactor)
            return list(redactor.findings)

        self.in_thread(first_pass, partial(self._review, state.id, fmt, redactor))

    def _review(
        self, session_id: str, fmt: ExportFormat, redactor: Redactor, findings: list[Finding]
    ) -> None:
        """The findings of the first pass: to the review (nothing found: written now)."""
        if not findings:
            self._write_export(session_id, fmt, redactor)
            return

        def reviewed(undone: frozenset[int] | None) -> None:
            if undone is None:
                self.model.notify("Export cancelled: nothing was written.")
                return
            redactor.reset(findings[number] for number in undone)
            self._write_export(session_id, fmt, redactor)

        origin = self.origin(session_id) if self.origin else None
        if origin is not None:  # the pane shows no secret, the session's title included
            scrub = Redactor(redactor.patterns).scrub
            origin = replace(
                origin,
                session=scrub(origin.session, "title") if origin.session else origin.session,
                parent=scrub(origin.parent, "title") if origin.parent else origin.parent,
            )
        review = RedactionReview(
            findings, what=FORMAT_NAMES[fmt], origin=origin, forward_typing=self.forward_typing
        )
        self.push(review, reviewed)

    def _write_export(self, session_id: str, fmt: ExportFormat, redactor: Redactor) -> None:
        """Render the session again (as it is now: what came since the review is redacted
        too) and write it through the path gate; a toast says where."""
        state = self.model.store.get(session_id)
        if state is None:
            return
        folder = locations.exports_dir(data_dir(self.settings))
        lookup = self.model.store.get

        def write() -> Path | str:
            text = render(state, lookup, fmt, redactor)
            try:
                return write_export(
                    folder, state, text, SUFFIXES[fmt], title=redacted_title(state, redactor)
                )
            except (OSError, PathRefused) as error:
                return str(error)

        self.in_thread(write, partial(self._written, redactor))

    def _written(self, redactor: Redactor, written: Path | str) -> None:
        if isinstance(written, str):
            self.model.notify(f"Export failed: {written}", severity="error", markup=False)
            return
        # The whole path, on the app's toast: a chat toast is cut to 100 characters, and the
        # person needs all of it to find the file.
        found = len(redactor.findings)
        kept = sum(1 for finding in redactor.findings if redactor.is_undone(finding))
        what = f"{found - kept} redacted" + (f", {kept} kept" if kept else "")
        self.announce(f"Transcript exported ({what}) to {written}", timeout=15)

    def show_stderr(self) -> None:
        from acp_tui.ui.screens.inspector import TextLogScreen

        controller = self.model.controller
        process = controller.process if controller else None
        lines = list(process.stderr_tail) if process else []
        where = f" ({process.log_path})" if process and process.log_path else ""
        self.push(TextLogScreen(f"Agent stderr{where}", lines))

    def show_inspector(self) -> None:
        from acp_tui.ui.screens.inspector import InspectorScreen

        controller = self.model.controller
        traffic = controller.traffic() if controller else None
        if traffic is None:
            self.model.notify("No connection yet.")
            return
        self.push(
            InspectorScreen(traffic, folder=locations.recordings_dir(data_dir(self.settings)))
        )

    def show_system_prompt(self) -> None:
        """The system prompt in force for this agent's sessions, whole, and whether it goes
        with them."""
        from acp_tui.ui.screens.inspector import TextLogScreen

        controller = self.model.controller
        prompt = controller.system_prompt if controller else None
        if controller is None or prompt is None:
            self.model.notify("No system prompt is set (--system-prompt, or system_prompt).")
            return
        where = f"From {prompt.origin}" + (f": {prompt.path}" if prompt.path else "")
        self.push(
            TextLogScreen(
                f"System prompt: {prompt.mode}, {system_prompt_state(controller.system_prompt_sent)}",
                [where, "", *(prompt.text.splitlines() or [""])],
            )
        )

    def context_details(self) -> None:
        from acp_tui.ui.screens.context import ContextDetailsScreen

        self.push(ContextDetailsScreen(self.gauge()))
