"""The chat screen's tools over the session on screen: copy the last reply, export the
transcript, the agent's stderr, the protocol inspector and the context details.

A mixin of :class:`~acp_tui.ui.screens.chat.screen.ChatScreen` (typed as a
:class:`~acp_tui.ui.screens.chat.host.ChatHost`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tui.config import locations
from acp_tui.services.path_gate import PathRefused
from acp_tui.store.entries import AgentMessage
from acp_tui.text.safety import encodable
from acp_tui.ui.export import transcript_markdown, write_export
from acp_tui.ui.screens.chat.common import data_dir
from acp_tui.ui.widgets.gauge import ContextGauge

if TYPE_CHECKING:
    from acp_tui.ui.screens.chat.host import ChatHost
else:
    ChatHost = object


class ChatTools(ChatHost):
    """Copy, export and inspect."""

    def action_copy_last_reply(self) -> None:
        state = self.store.get(self.session_id) if self.session_id else None
        reply = next(
            (e.text for e in reversed(state.transcript) if isinstance(e, AgentMessage))
            if state
            else iter(()),
            None,
        )
        if not reply:
            self.notify("No reply to copy yet.")
            return
        self.app.copy_to_clipboard(encodable(reply))
        self.notify("Copied the last reply to the clipboard.")

    def action_export_transcript(self) -> None:
        state = self.store.get(self.session_id) if self.session_id else None
        if state is None:
            return
        folder = locations.exports_dir(data_dir(self.settings))
        try:
            path = write_export(folder, state, transcript_markdown(state))
        except (OSError, PathRefused) as error:
            self.notify(f"Export failed: {error}", severity="error", markup=False)
            return
        # The whole path, on the app's toast: a chat toast is cut to 100 characters, and the
        # person needs all of it to find the file.
        self.app.notify(f"Transcript exported to {path}", timeout=15)

    def action_show_stderr(self) -> None:
        from acp_tui.ui.screens.inspector import TextLogScreen

        process = self.link.process if self.link else None
        lines = list(process.stderr_tail) if process else []
        where = f" ({process.log_path})" if process and process.log_path else ""
        self.app.push_screen(TextLogScreen(f"Agent stderr{where}", lines))

    def action_show_inspector(self) -> None:
        from acp_tui.ui.screens.inspector import InspectorScreen

        client = self.link.client if self.link else None
        if client is None:
            self.notify("No connection yet.")
            return
        self.app.push_screen(
            InspectorScreen(
                client.connection,
                agent_argv=self.settings.agent_argv,
                cwd=self.settings.cwd,
                folder=locations.recordings_dir(data_dir(self.settings)),
            )
        )

    def action_context_details(self) -> None:
        from acp_tui.ui.screens.context import ContextDetailsScreen

        self.app.push_screen(ContextDetailsScreen(self.query_one(ContextGauge)))
