"""The chat view's tools over the session on screen: copy the last reply or code block, export the
transcript, the agent's stderr, the protocol inspector and the context details.

:class:`ChatTools` is a plain object the screen owns: ``push`` shows a screen, ``copy`` puts
text on the clipboard, ``gauge`` is the view's context gauge (the details read it), ``announce``
is the app's toast (not cut short: a path is read whole).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.screen import Screen

from acp_tui.config import locations
from acp_tui.services.path_gate import PathRefused
from acp_tui.session.export.markdown import transcript_markdown, write_export
from acp_tui.session.launch.settings import AppSettings
from acp_tui.store.entries import AgentMessage
from acp_tui.text.safety import encodable
from acp_tui.ui.models import Notify
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.render.source_text import last_code_block
from acp_tui.ui.screens.chat.common import data_dir
from acp_tui.ui.widgets.gauge import ContextGauge

__all__ = ["ChatTools", "system_prompt_state"]


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
        push: Callable[[Screen[Any]], object],
        copy: Callable[[str], None],
        gauge: Callable[[], ContextGauge],
        announce: Notify,
    ) -> None:
        self.model = model
        self.settings = settings
        self.push = push
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

    def export_transcript(self) -> None:
        state = self.model.state()
        if state is None:
            return
        folder = locations.exports_dir(data_dir(self.settings))
        try:
            path = write_export(folder, state, transcript_markdown(state, self.model.store.get))
        except (OSError, PathRefused) as error:
            self.model.notify(f"Export failed: {error}", severity="error", markup=False)
            return
        # The whole path, on the app's toast: a chat toast is cut to 100 characters, and the
        # person needs all of it to find the file.
        self.announce(f"Transcript exported to {path}", timeout=15)

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
