"""The chat view's review before the write lands (:mod:`acp_tui.session.asking.write_reviews`).

:class:`ChatWriteReviews` is a plain object the screen owns: it shows each write waiting for
review in the review dialog rewind uses (:class:`~acp_tui.ui.screens.rewind.ReviewDialog`
over :class:`~acp_tui.ui.widgets.change_review.ChangeReview`: one machinery), one at a time
and only for the session on screen, like the permission requests; offers Ctrl+P → "Review
writes: on/off" for the session on screen; and marks the header while it is on.

The dialog arms like every dialog that acts: until it is armed a key is typing and goes on
to the prompt. "Write" writes the hunks kept; Escape or Cancel rejects the whole write; ``e``
opens the highlighted hunk's new text in ``$VISUAL`` / ``$EDITOR`` (else ``vi``), and what
comes back replaces it (the review shows the edited change, and the agent is told).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App, SystemCommand
from textual.widget import Widget

from acp_tui.services import children
from acp_tui.services.hunks import FileChange, split_keepends
from acp_tui.session.asking.write_reviews import PendingWrite, WriteReviews
from acp_tui.ui.external_editor import editor_command
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.render.hints import KeyHints
from acp_tui.ui.screens.armed import DialogOrigin, TypingForwarder, present_dialog
from acp_tui.ui.screens.rewind import ReviewDialog
from acp_tui.ui.widgets.change_review import ChangeReview, ReviewFile

__all__ = ["ChatWriteReviews"]


class ChatWriteReviews:
    """The reviews of one chat view (see the module docstring)."""

    def __init__(
        self,
        model: ChatModel,
        reviews: WriteReviews,
        *,
        app: Callable[[], App[Any]],
        origin: Callable[[str | None], DialogOrigin],
        forward_typing: TypingForwarder,
        mark: Callable[[bool], None],
        answered: Callable[[str, str], None],
    ) -> None:
        self.model = model
        self.reviews = reviews
        self.app = app
        self.origin = origin
        self.forward_typing = forward_typing
        self.mark = mark
        self._marked: bool | None = None
        #: The review on screen (its "k of n" follows the queue).
        self._shown: Any = None
        reviews.on_answered = answered
        reviews.on_queue_changed = self._queue_changed

    def present(self, ready: Callable[[PendingWrite], bool]) -> None:
        """From now on (the screen is mounted) a review may show, when ``ready`` says so."""
        self.reviews.ready = ready
        self.reviews.set_presenter(self.present_review)
        self.refresh()

    async def present_review(
        self, pending: PendingWrite, position: int, total: int
    ) -> frozenset[int] | None:
        hunks = len(pending.change.hunks)
        # One line that fits 80 columns: the dialog's title does not wrap.
        title = (
            f"Keep or reject each change ({hunks} hunk{'s' if hunks != 1 else ''}): "
            "only what you keep is written"
        )
        dialog = WriteReviewDialog(pending, title, self.origin(pending.session_id))
        dialog.forward_typing = self.forward_typing
        self._shown = dialog
        dialog.call_after_refresh(self._queue_changed, position, total)
        try:
            choices = await present_dialog(self.app(), dialog)
        finally:
            self._shown = None
        if dialog.edited:
            pending.change, pending.edited = dialog.change, True
        if choices is None:
            return None
        choice = choices[0] if choices else False
        if choice is None:
            return pending.change.all_hunks()
        if choice is False or choice is True:
            return frozenset()
        return frozenset(choice)

    def _queue_changed(self, position: int, total: int) -> None:
        """Another write queued or went: the review on screen says "k of n"."""
        dialog = self._shown
        if dialog is None or not dialog.is_mounted:
            return
        for frame in dialog.query("ReviewDialog > Vertical"):
            frame.border_subtitle = f"{position} of {total}" if total > 1 else ""

    # -- on and off --

    def is_on(self) -> bool:
        return self.reviews.reviews(self.model.session_id)

    def toggle(self) -> None:
        session_id = self.model.session_id
        on = not self.is_on()
        if session_id is None:
            self.reviews.mode = "ask" if on else "auto"
        else:
            self.reviews.set_mode(session_id, "ask" if on else "auto")
        self.refresh()
        self.model.notify(
            "Review writes: on. Each file the agent writes through acp-tui is shown first."
            if on
            else "Review writes: off. The agent's writes land at once.",
            markup=False,
        )

    def refresh(self) -> None:
        """The header's mark follows the session on screen."""
        on = self.is_on()
        if on != self._marked:
            self._marked = on
            self.mark(on)

    def palette_commands(self) -> Iterable[SystemCommand]:
        on = self.is_on()
        yield SystemCommand(
            f"Review writes: {'on' if on else 'off'}",
            "Turn "
            + ("off" if on else "on")
            + ": show each file the agent writes as a diff first, keep or reject each hunk",
            self.toggle,
        )


def run_editor(app: App[Any], text: str, suffix: str) -> str | None:
    """``text`` edited in the person's editor (the app suspended meanwhile); None when the
    editor failed or could not start."""
    command = editor_command()  # the prompt's editor: $VISUAL, $EDITOR, vi
    with tempfile.TemporaryDirectory(prefix="acp-tui-hunk-") as folder:
        path = Path(folder) / f"hunk{suffix}"
        path.write_text(text, encoding="utf-8")
        try:
            with app.suspend():
                done = children.run([*command, str(path)], check=False)
        except Exception:  # no terminal to give (headless), or no such editor
            return None
        if done.returncode != 0:
            return None
        return path.read_text(encoding="utf-8", errors="replace")


class WriteReviewDialog(ReviewDialog):
    """The review of one write: rewind's review dialog, with ``e`` to edit a hunk."""

    def __init__(
        self, pending: PendingWrite, title: str, origin: DialogOrigin | None = None, **kw: Any
    ) -> None:
        self.action = "new" if pending.change.created else "write"
        self.shown_path = pending.display
        super().__init__(
            title,
            [ReviewFile(pending.display, self.action, pending.change)],
            confirm_label="Write",
            origin=origin,
            **kw,
        )
        #: The change shown (the person's edit, once they made one).
        self.change = pending.change
        self.edited = False
        #: Edits a hunk's text (the person's editor; tests give their own).
        self.edit_text: Callable[[str], str | None] = lambda text: run_editor(
            self.app, text, Path(pending.display).suffix
        )

    def dialog_key(self, event: events.Key) -> None:
        if event.key == "e" and self.change.hunks:
            self.answer_key(event, self.edit_hunk)
            return
        super().dialog_key(event)

    def _hint_text(self) -> KeyHints:
        if not self.armed:
            return super()._hint_text()
        parts = ["Space keep/reject", "→ hunks", "e edit hunk", "a all", "n none"]
        return KeyHints([*parts, "y write", "Esc reject"])

    def edit_hunk(self) -> None:
        review = self.query_one(ChangeReview)
        index = min(getattr(review, "_hunk", 0), len(self.change.hunks) - 1)
        hunk = self.change.hunks[index]
        edited = self.edit_text("".join(hunk.new_lines()))
        if edited is None:
            self.notify("The editor did not finish: the hunk is as it was.", markup=False)
            return
        lines = split_keepends(self.change.new)
        lines[hunk.new_start : hunk.new_end] = split_keepends(edited)
        change = FileChange.compute(self.change.old, "".join(lines))
        if change == self.change:
            return
        self.change, self.edited = change, True
        self.files = [ReviewFile(self.shown_path, self.action, change)]
        self.run_worker(self._show_change(review, ChangeReview(self.files, id="review")))

    async def _show_change(self, old: ChangeReview, fresh: ChangeReview) -> None:
        buttons = self.query_one("#buttons")
        await old.remove()
        if isinstance(buttons.parent, Widget):
            await buttons.parent.mount(fresh, before=buttons)
