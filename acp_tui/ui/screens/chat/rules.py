"""The chat view's permission rules: the palette's "Permission rules" list, and the rule the
permission dialog offers to make from a request ("Always allow this for this project…",
"Always deny…").

:class:`ChatRules` is a plain object the screen owns, given the view's model, its agent's
rules (:class:`~acp_tui.session.asking.rule_requests.AgentRules`, None: no rules) and broker,
and how to push a screen. The session layer decides; this only presents: a rule saved from
the dialog is put to the broker (:meth:`PermissionBroker.apply_rules`), which answers the
request by it, and the dialog closes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from acp_tui.session.asking.permissions import PendingPermission, PermissionBroker
from acp_tui.session.asking.rule_requests import AgentRules
from acp_tui.session.asking.rules import Decision
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.models.rules import RulesModel
from acp_tui.ui.screens.armed import DialogOrigin, TypingForwarder

if TYPE_CHECKING:
    from acp_tui.ui.screens.permission import RuleOffer

__all__ = ["ChatRules"]

#: Pushes a screen over the view, with what to do with its answer.
Push = Callable[[Screen[Any], Callable[[Any], None]], object]


class ChatRules:
    """The rules as the chat view shows them; ``origin`` names a dialog's agent and session."""

    def __init__(
        self,
        model: ChatModel,
        *,
        rules: AgentRules | None,
        broker: PermissionBroker,
        push: Push,
        origin: Callable[[str | None], DialogOrigin],
        default_cwd: str,
        forward_typing: TypingForwarder | None = None,
    ) -> None:
        self.model = model
        self.rules = rules
        self.broker = broker
        self.push = push
        self.origin = origin
        self.default_cwd = default_cwd
        #: Where typing at an editor opened from a dialog goes until it arms (the prompt).
        self.forward_typing = forward_typing

    def _cwd(self, session_id: str | None) -> Path:
        state = self.model.store.get(session_id) if session_id else None
        return Path(os.path.realpath(state.cwd if state and state.cwd else self.default_cwd))

    def list_model(self, session_id: str | None = None) -> RulesModel | None:
        if self.rules is None:
            return None
        sid = session_id if session_id is not None else self.model.session_id
        return RulesModel(self.rules.book, lambda: self._cwd(sid))

    # -- the palette --

    def show_rules(self) -> None:
        """Ctrl+P → Permission rules."""
        from acp_tui.ui.screens.rules import RulesScreen

        model = self.list_model()
        if model is None:
            self.model.notify("Permission rules are off here.", markup=False)
            return
        self.push(RulesScreen(model, origin=self.origin(self.model.session_id)), lambda _: None)

    # -- the dialog --

    def offer(self, pending: PendingPermission) -> RuleOffer | None:
        """What the dialog of ``pending`` offers besides the agent's options."""
        from acp_tui.ui.screens.permission import RuleOffer

        if self.rules is None:
            return None
        return RuleOffer(make=lambda decision: self.make(pending, decision), note=pending.rule_note)

    def make(self, pending: PendingPermission, decision: Decision) -> None:
        """Open the editor on a rule for ``pending``; once saved, the broker answers the
        request by the rules if one now decides it."""
        from acp_tui.ui.screens.rule_editor import RuleEditorScreen

        rules = self.rules
        model = self.list_model(pending.session_id)
        if rules is None or model is None:
            return
        draft = rules.draft(pending, decision)
        project = model.project

        def save(values: dict[str, str], to_project: bool) -> str | None:
            checked = model.check(values, in_project=to_project)
            if isinstance(checked, str):
                return checked
            return model.add(checked, in_project=to_project)

        def saved(rule: object) -> None:
            if rule is None:
                return
            if not self.broker.apply_rules(pending) and not pending.answered:
                self.model.notify(
                    "Rule saved. It does not decide this request: answer it here.",
                    markup=False,
                )

        verb = "allow" if decision == "allow" else "deny"
        self.push(
            RuleEditorScreen(
                draft,
                save,
                heading=f"Always {verb}…",
                about=(
                    f"Requests like this one will be {verb}ed without asking"
                    + (
                        " (once each: the agent's own memory is not used)."
                        if verb == "allow"
                        else "."
                    )
                    + " Edit the rule before saving; empty fields match anything."
                ),
                project_label=str(project / ".acp-tui" / "rules.toml") if project else None,
                origin=self.origin(pending.session_id),
                forward_typing=self.forward_typing,
            ),
            saved,
        )
