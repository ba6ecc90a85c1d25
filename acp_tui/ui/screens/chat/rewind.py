"""The chat view's rewind: where it starts, and the steps it goes through.

:class:`RewindActions` is a plain object the screen owns. A rewind starts from the palette
("Rewind…"), from Escape twice on an empty prompt while no turn runs (as Claude Code), or
from Enter on one of the person's messages in the transcript (that turn preselected). Then:
the turn and what to rewind (:class:`~acp_tui.ui.screens.rewind.RewindPicker`); for the
code, the plan and its review, applied only once the person confirms
(:class:`~acp_tui.ui.screens.rewind.ReviewDialog`); for the conversation, a new session from
before that turn (:mod:`acp_tui.session.agent.rewind_talk`), and, to edit the message, its
text put in the prompt. "Changes of this turn" (palette) reviews the last turn's changes and
takes back the files or hunks chosen; "Undo tool call: …" (palette, the newest few tool calls
that wrote through acp-tui) does the same for one tool call's writes.

The controller does the work (acp_tui.session.agent.checkpointing); this only presents it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual.app import SystemCommand

from acp_tui.session.agent.controller import SessionController
from acp_tui.session.agent.rewind_talk import rewind_conversation
from acp_tui.session.checkpoints.rewind import RewindError, RewindPlan
from acp_tui.session.errors import SessionError
from acp_tui.store.entries import ToolCall
from acp_tui.text.safety import one_line
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.screens.chat.modals import ChatDialogs
from acp_tui.ui.screens.rewind import Pick, ReviewDialog, RewindPicker
from acp_tui.ui.widgets.change_review import ReviewFile

__all__ = ["ESCAPE_TWICE", "RewindActions"]

#: Seconds within which a second Escape counts as Esc Esc.
ESCAPE_TWICE = 0.8
#: The newest tool calls with writes offered in the palette, one command each.
TOOL_CALLS_OFFERED = 5


def review_files(plan: RewindPlan) -> list[ReviewFile]:
    """The plan's files as the review shows them."""
    files: list[ReviewFile] = []
    for planned in plan.files:
        note = ""
        if planned.conflict:
            note = (
                "▲ Changed since that turn (by you, or outside the agent's turns): kept as it "
                "is unless you keep it here."
            )
        action: str = planned.action
        if plan.kind == "revert" and planned.change is not None:
            action = (
                "created"
                if planned.change.created
                else "deleted"
                if planned.change.deleted
                else "modified"
            )
        files.append(ReviewFile(planned.display, action, planned.change, planned.conflict, note))
    return files


class RewindActions:
    """Rewind and "Changes of this turn" for the chat view (see the module docstring).
    ``set_draft`` puts text in the prompt; ``prompt_text`` is what it holds."""

    def __init__(
        self,
        model: ChatModel,
        *,
        dialogs: ChatDialogs,
        run_worker: Callable[..., Any],
        set_draft: Callable[[str], None],
        prompt_text: Callable[[], str],
    ) -> None:
        self.model = model
        self.dialogs = dialogs
        self.run_worker = run_worker
        self.set_draft = set_draft
        self.prompt_text = prompt_text
        self._escaped_at = float("-inf")

    # ------------------------------------------------------------------ where it starts

    def palette_commands(self) -> Iterable[SystemCommand]:
        controller = self.model.controller
        if (
            controller is None
            or not controller.checkpoints.enabled
            or self.model.session_id is None
        ):
            return
        yield SystemCommand(
            "Rewind…",
            "Go back to before a turn: the files, the conversation, or both (Esc Esc)",
            lambda: self.open(),
        )
        yield SystemCommand(
            "Changes of this turn",
            "Every file the last turn changed, as diffs: take back files or hunks",
            lambda: self.changes_of_turn(),
        )
        yield from self._tool_call_commands(controller, self.model.session_id)

    def _tool_call_commands(
        self, controller: SessionController, session_id: str
    ) -> Iterable[SystemCommand]:
        state = self.model.store.get(session_id)
        titles = {
            entry.tool_call_id: entry.title
            for entry in (state.transcript if state is not None else [])
            if isinstance(entry, ToolCall)
        }
        calls = controller.checkpoints.tool_calls_with_writes(session_id)[:TOOL_CALLS_OFFERED]
        for turn, call, paths in calls:
            names = ", ".join(Path(path).name for path in paths[:3])
            title = one_line(titles.get(call) or names, 60)
            yield SystemCommand(
                f"Undo tool call: {title}",
                f"Turn {turn}: take back what it wrote through acp-tui ({one_line(names, 80)})",
                lambda call=call: self.undo_tool_call(call),
            )

    def undo_tool_call(self, tool_call_id: str) -> None:
        self.run_worker(self._undo_call(tool_call_id), name="undo a tool call", group="rewind")

    async def _undo_call(self, tool_call_id: str) -> None:
        usable = self._usable()
        if usable is None:
            return
        controller, session_id = usable
        try:
            plan = await controller.checkpoints.plan_tool_call_revert(session_id, tool_call_id)
        except RewindError as error:
            self.model.notify(f"Cannot undo the tool call: {error}", severity="error")
            return
        if not plan.files and not plan.left:
            self.model.notify("Nothing to undo: its files are as they were before it.")
            return
        await self._review_and_apply(
            controller,
            session_id,
            plan,
            f"Undo a tool call of turn {plan.turn}: choose what to take back",
            "Take back",
            kept=True,
        )

    def escape(self, busy: bool) -> bool:
        """Escape on the chat view while no turn runs: a second one in a moment, on an empty
        prompt, opens the rewind. Whether it was taken."""
        if busy or self.prompt_text().strip():
            self._escaped_at = float("-inf")
            return False
        now = time.monotonic()
        if now - self._escaped_at <= ESCAPE_TWICE:
            self._escaped_at = float("-inf")
            self.open()
            return True
        self._escaped_at = now
        return False

    def from_entry(self, entry_id: int) -> None:
        """Enter on a message of the person's: rewind to before it."""
        controller = self.model.controller
        found = controller.checkpoints.turn_of_entry(entry_id) if controller is not None else None
        if found is None:
            self.open(entry=entry_id)
            return
        self.open(preselect=found[1])

    def open(self, preselect: int | None = None, *, entry: int | None = None) -> None:
        self.run_worker(self._rewind(preselect, entry), name="rewind", group="rewind")

    def changes_of_turn(self, number: int | None = None) -> None:
        self.run_worker(self._changes(number), name="changes of a turn", group="rewind")

    # ------------------------------------------------------------------ the steps

    def _usable(self) -> tuple[SessionController, str] | None:
        model = self.model
        controller, session_id = model.controller, model.session_id
        if controller is None or session_id is None:
            model.notify("Nothing to rewind: this session has no turn yet.", severity="warning")
            return None
        if not controller.checkpoints.enabled:
            model.notify(
                "Checkpoints are off for this agent (checkpoints = false, or "
                "--no-checkpoints): nothing to rewind the files to.",
                severity="warning",
            )
            return None
        return controller, session_id

    async def _rewind(self, preselect: int | None, entry: int | None) -> None:
        usable = self._usable()
        if usable is None:
            return
        controller, session_id = usable
        turns = await controller.checkpoints.turns(session_id)
        if not turns:
            self.model.notify(
                "No checkpoints in this session yet: one is taken before each message you "
                "send from now on.",
                severity="warning",
            )
            return
        if preselect is None and entry is not None:
            preselect = next(
                (
                    t.number
                    for t in turns
                    if controller.checkpoints.entry_of_turn(session_id, t.number) == entry
                ),
                None,
            )
        pick: Pick | None = await self.dialogs.answer_of(
            RewindPicker(turns, origin=self.dialogs.origin(session_id), preselect=preselect)
        )
        if pick is None:
            return
        record = next(t for t in turns if t.number == pick.turn)
        if pick.scope == "changes":
            await self._changes(pick.turn)
            return
        if pick.scope in ("both", "code", "edit-code"):
            if not await self._code(controller, session_id, pick.turn):
                return
        if record.kind == "rewind" or pick.scope == "code":
            return
        await self._conversation(controller, session_id, pick)

    async def _code(self, controller: SessionController, session_id: str, number: int) -> bool:
        """Plan, review and apply a rewind of the files; whether it went ahead."""
        try:
            plan = await controller.checkpoints.plan_rewind(session_id, number)
        except RewindError as error:
            self.model.notify(f"Cannot rewind the files: {error}", severity="error")
            return False
        title = f"Rewind files to before turn {number}"
        return await self._review_and_apply(
            controller, session_id, plan, title, "Rewind", kept=True
        )

    async def _review_and_apply(
        self,
        controller: SessionController,
        session_id: str,
        plan: RewindPlan,
        title: str,
        confirm: str,
        *,
        kept: bool,
    ) -> bool:
        choices = await self.dialogs.answer_of(
            ReviewDialog(
                title,
                review_files(plan),
                confirm_label=confirm,
                notes=plan.left,
                kept=kept,
                origin=self.dialogs.origin(session_id),
            )
        )
        if choices is None:
            return False
        chosen: dict[Path, frozenset[int] | None] = {}
        for planned, choice in zip(plan.files, choices, strict=True):
            if choice is False or choice is True:
                continue
            chosen[planned.path] = choice
        result = await controller.checkpoints.apply(plan, chosen)
        done = len(result.done)
        summary = f"{title}: {done} file{'s' if done != 1 else ''} put back"
        details = [*result.done, *(f"left: {line}" for line in result.left)]
        if result.record is not None:
            details.append(f"(undo it: Rewind… → the “↶” row of checkpoint {result.record})")
        self.model.store.add_notice(
            session_id,
            summary,
            severity="warning" if result.left else "info",
            description="\n".join(details) or None,
        )
        self.model.notify(summary, timeout=6)
        return True

    async def _conversation(
        self, controller: SessionController, session_id: str, pick: Pick
    ) -> None:
        entry_id = controller.checkpoints.entry_of_turn(session_id, pick.turn)
        state = self.model.store.get(session_id)
        text = ""
        if state is not None and entry_id is not None:
            entry = next((e for e in state.transcript if e.id == entry_id), None)
            text = getattr(entry, "text", "") or ""
        self.model.focus_prompt_on_open = True
        try:
            new_id = await rewind_conversation(
                controller, session_id, pick.turn, entry_id, index=self.model.index
            )
        except SessionError as error:
            self.model.notify(f"Cannot rewind the conversation: {error}", severity="error")
            return
        self.model.show(new_id)  # a new session (a draft) is not shown by itself
        if pick.scope in ("edit", "edit-code") and text:
            self.set_draft(text)

    async def _changes(self, number: int | None) -> None:
        usable = self._usable()
        if usable is None:
            return
        controller, session_id = usable
        turns = [t for t in await controller.checkpoints.turns(session_id) if t.kind == "turn"]
        if number is None:
            ended = [t for t in turns if t.ended is not None]
            if not ended:
                self.model.notify("No finished turn with checkpoints yet.", severity="warning")
                return
            number = ended[-1].number
        try:
            plan = await controller.checkpoints.plan_turn_revert(session_id, number)
        except RewindError as error:
            self.model.notify(f"Cannot show the turn's changes: {error}", severity="error")
            return
        await self._review_and_apply(
            controller,
            session_id,
            plan,
            f"Changes of turn {number}: choose what to take back",
            "Take back",
            kept=False,
        )
