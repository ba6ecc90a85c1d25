"""The permission broker: the one place ``session/request_permission`` requests go through.

The JSON-RPC layer runs each incoming request in its own task and calls
``await broker.request(params)``; the broker answers with a ``RequestPermissionResponse`` dict:
``{"outcome": {"outcome": "selected", "optionId": "..."}}`` or
``{"outcome": {"outcome": "cancelled"}}``.

Policies:

- ``"ask"`` (the default): requests queue first in, first out, and are shown one at a time
  through the *presenter* the UI registers with :meth:`PermissionBroker.set_presenter`::

      async def present(pending: PendingPermission, position: int, total: int) -> str | None

  It returns the chosen ``optionId``, or ``None`` for "cancelled". ``position`` and ``total``
  count the current burst of requests ("2 of 3"); when another request arrives while a dialog is
  open, ``on_queue_changed(position, total)`` fires so the dialog can update its count.
  Requests wait in the queue until a presenter is registered.
- ``"yolo"``: ``allow_once``, else ``allow_always``, is selected without asking (when
  the agent offered none, the request is asked like in ``"ask"`` mode, or cancelled when no
  presenter is registered).
- ``"deny"``: ``reject_once``, else ``reject_always``, else cancelled.

Between ``"deny"`` and the others come the permission rules (:attr:`PermissionBroker.rules`,
see :mod:`acp_tui.session.asking.rules`): a rule that allows picks the agent's
``allow_once`` option, one that denies its ``reject_once`` (never an "always" option: the
agent's own memory must not outlive the rule), one that asks shows the dialog whatever the
policy. When the agent offers no such option, the rule cannot answer: an allow rule leaves
the request to the policy, a deny rule to the dialog, and the dialog says why it is asked.
A request a rule answered is echoed ``Allowed by rule: execute `npm test*` in ~/proj — …``.

:meth:`PermissionBroker.cancel_session` answers every pending request of a session with
``cancelled`` (the spec requires it after ``session/cancel``); the one on screen is closed by
cancelling the presenter's coroutine, so a presenter must close its dialog when it is cancelled
(``acp_tui.ui.screens.permission.present_permission`` does). :meth:`PermissionBroker.cancel_all`
does the same for every session (the agent died).

Every answer is echoed through ``on_answered(session_id, text)``, e.g.
``"Allowed once: Write src/app.py"``, for the transcript.

Pure Python + anyio: no Textual, no Rich.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import anyio

from acp_tui.session.asking.dialog_queue import AnsweredCallback, DialogQueue, QueueCallback
from acp_tui.session.asking.rules import Rule
from acp_tui.text.safety import one_line

log = logging.getLogger(__name__)

Policy = Literal["ask", "yolo", "deny"]
POLICIES: tuple[Policy, ...] = ("ask", "yolo", "deny")

ALLOW_ONCE = "allow_once"
ALLOW_ALWAYS = "allow_always"
REJECT_ONCE = "reject_once"
REJECT_ALWAYS = "reject_always"
OPTION_KINDS = (ALLOW_ONCE, ALLOW_ALWAYS, REJECT_ONCE, REJECT_ALWAYS)

#: What a person reads for each option kind (also the verb of the echo line).
KIND_LABELS: dict[str, str] = {
    ALLOW_ONCE: "allow once",
    ALLOW_ALWAYS: "allow always",
    REJECT_ONCE: "reject once",
    REJECT_ALWAYS: "reject always",
}
_ECHO_VERBS: dict[str, str] = {
    ALLOW_ONCE: "Allowed once",
    ALLOW_ALWAYS: "Allowed always",
    REJECT_ONCE: "Rejected once",
    REJECT_ALWAYS: "Rejected always",
}

#: Longest tool-call label used in echo lines.
ECHO_LABEL_LIMIT = 200

CANCELLED: dict[str, Any] = {"outcome": {"outcome": "cancelled"}}

Presenter = Callable[["PendingPermission", int, int], Awaitable[str | None]]


# --- the request ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PermissionChoice:
    """One usable option of a request, in the agent's order."""

    option_id: str
    name: str
    kind: str  # one of OPTION_KINDS, or whatever unknown string the agent sent ("" if none)

    @property
    def is_allow(self) -> bool:
        return self.kind in (ALLOW_ONCE, ALLOW_ALWAYS)

    @property
    def is_reject(self) -> bool:
        return self.kind in (REJECT_ONCE, REJECT_ALWAYS)


_ids = itertools.count(1)


def _ambiguous_ids(options: list[Any]) -> set[str]:
    """Option ids the agent gave to options of different kinds ("x" for Reject and for Allow):
    the answer names only the id, so whichever of them the person picks, the agent may read
    the other. None of them is offered."""
    kinds: dict[str, set[Any]] = {}
    for item in options:
        if isinstance(item, Mapping) and isinstance(item.get("optionId"), str):
            kind = item.get("kind")
            kinds.setdefault(item["optionId"], set()).add(kind if isinstance(kind, str) else "")
    return {option_id for option_id, seen in kinds.items() if len(seen) > 1}


@dataclass(eq=False, slots=True)
class PendingPermission:
    """A request waiting for an answer. Built by the broker from the raw params, never raises."""

    session_id: str
    params: dict[str, Any]
    tool_call: dict[str, Any]
    options: list[PermissionChoice]
    problem: str | None = None  # why the request has no usable options, if it has none
    serial: int = field(default_factory=lambda: next(_ids))
    result: dict[str, Any] | None = None
    #: The rule that answered it (allowed or denied it).
    rule: Rule | None = None
    #: Why a rule sent it to the dialog (the dialog shows it): an ``ask`` rule, or one the
    #: agent's options could not carry out.
    rule_note: str | None = None
    _done: anyio.Event = field(default_factory=anyio.Event)
    _scope: anyio.CancelScope | None = None

    @classmethod
    def from_params(cls, params: Any) -> PendingPermission:
        if not isinstance(params, Mapping):
            return cls("", {}, {}, [], problem="the request parameters are not an object")
        raw = dict(params)
        session_id = raw.get("sessionId")
        tool_call = raw.get("toolCall")
        tool_call = dict(tool_call) if isinstance(tool_call, Mapping) else {}
        options_raw = raw.get("options")
        options: list[PermissionChoice] = []
        problem: str | None = None
        if not isinstance(options_raw, list):
            problem = "the agent sent no list of options"
        else:
            seen: set[str] = set()
            ambiguous = _ambiguous_ids(options_raw)
            for item in options_raw:
                if not isinstance(item, Mapping):
                    continue
                option_id = item.get("optionId")
                if (
                    not isinstance(option_id, str)
                    or not option_id
                    or option_id in seen
                    or option_id in ambiguous
                ):
                    continue
                seen.add(option_id)
                name = item.get("name")
                kind = item.get("kind")
                options.append(
                    PermissionChoice(
                        option_id=option_id,
                        name=name if isinstance(name, str) and name.strip() else option_id,
                        kind=kind if isinstance(kind, str) else "",
                    )
                )
            if not options:
                problem = (
                    "the agent offered no options"
                    if not options_raw
                    else "one optionId named options of different kinds"
                    if ambiguous
                    else "none of the agent's options had an optionId"
                )
        return cls(
            session_id=session_id if isinstance(session_id, str) else "",
            params=raw,
            tool_call=tool_call,
            options=options,
            problem=problem,
        )

    @property
    def tool_call_id(self) -> str | None:
        value = self.tool_call.get("toolCallId")
        return value if isinstance(value, str) else None

    @property
    def label(self) -> str:
        """What the request is about, in one sanitised line: the title, else kind, else id."""
        for key in ("title", "kind", "toolCallId"):
            value = self.tool_call.get(key)
            if isinstance(value, str) and value.strip():
                return one_line(value, ECHO_LABEL_LIMIT)
        return "tool call"

    @property
    def answered(self) -> bool:
        return self.result is not None

    def option(self, option_id: str) -> PermissionChoice | None:
        for choice in self.options:
            if choice.option_id == option_id:
                return choice
        return None

    def first_of(self, *kinds: str) -> PermissionChoice | None:
        """The first option (agent's order) of the first kind in ``kinds`` that is offered."""
        for kind in kinds:
            for choice in self.options:
                if choice.kind == kind:
                    return choice
        return None

    async def wait(self) -> dict[str, Any]:
        await self._done.wait()
        assert self.result is not None
        return self.result


# --- the broker -----------------------------------------------------------------------------


class RuleJudge(Protocol):
    """The rules as the broker uses them (:class:`acp_tui.session.asking.rule_requests.
    AgentRules`)."""

    def judge(self, pending: PendingPermission) -> Rule | None: ...

    def fired(self, rule: Rule) -> None: ...


#: The option kind each rule decision picks.
_RULE_PICKS: dict[str, str] = {"allow": ALLOW_ONCE, "deny": REJECT_ONCE}


class PermissionBroker(DialogQueue[PendingPermission, str | None]):
    """Queues permission requests, applies the policy, and echoes every answer."""

    kind = "permission"

    def __init__(
        self,
        policy: Policy = "ask",
        *,
        on_answered: AnsweredCallback | None = None,
        on_queue_changed: QueueCallback | None = None,
    ) -> None:
        super().__init__(on_answered=on_answered, on_queue_changed=on_queue_changed)
        self.policy = policy
        #: The permission rules, checked after the ``deny`` policy and before the others.
        self.rules: RuleJudge | None = None

    # -- configuration --

    @property
    def policy(self) -> Policy:
        return self._policy

    @policy.setter
    def policy(self, value: Policy) -> None:
        if value not in POLICIES:
            raise ValueError(f"unknown permission policy {value!r}; expected one of {POLICIES}")
        self._policy = value

    def set_presenter(self, presenter: Presenter | None) -> None:
        """Register (or, with ``None``, remove) the coroutine that shows a request."""
        self._presenter = presenter
        self._wake_all()

    # -- state --

    @property
    def queue_length(self) -> int:
        return len(self._queue)

    def pending_for(self, session_id: str) -> list[PendingPermission]:
        return [p for p in self._queue if p.session_id == session_id]

    # -- the entry point --

    async def request(self, params: Any) -> dict[str, Any]:
        """Answer one ``session/request_permission``; never raises for malformed params."""
        pending = await self.answer(params)
        return pending.result or CANCELLED

    async def answer(self, params: Any) -> PendingPermission:
        """:meth:`request`, answering the request itself: its ``result``, and the ``rule``
        that answered it, if one did."""
        pending = PendingPermission.from_params(params)
        await self._answer(pending)
        return pending

    async def _answer(self, pending: PendingPermission) -> None:
        if not pending.options:
            reason = pending.problem or "no usable options"
            self._finish(pending, None, f"Cancelled ({reason}): {pending.label}")
            return
        if self._policy != "deny":
            rule = self._judge(pending)
            if rule is not None:
                if self._answer_by(pending, rule):
                    return
                if rule.decision != "allow":  # ask, or a deny the agent gave no way to say
                    await self._ask(pending)
                    return
        await self._by_policy(pending)

    async def _by_policy(self, pending: PendingPermission) -> None:
        if self._policy == "yolo":
            # Allow this once, as --deny-all rejects once: "always" would leave a rule in the
            # agent's settings (claude-agent-acp wrote one for `ask --allow`), or switch its
            # mode (its plan's "bypass permissions"). Among one kind, the agent's order.
            first = pending.first_of(ALLOW_ONCE, ALLOW_ALWAYS) or next(
                (c for c in pending.options if c.is_allow), None
            )
            if first is not None:
                self._finish(pending, first, f"Auto-allowed (--yolo): {pending.label}")
                return
            if self._presenter is None:
                self._finish(pending, None, f"Cancelled (--yolo, no allow option): {pending.label}")
                return
        elif self._policy == "deny":
            choice = pending.first_of(REJECT_ONCE, REJECT_ALWAYS)
            text = (
                f"Auto-rejected (--deny-all): {pending.label}"
                if choice is not None
                else f"Cancelled (--deny-all, no reject option): {pending.label}"
            )
            self._finish(pending, choice, text)
            return
        await self._ask(pending)

    async def _ask(self, pending: PendingPermission) -> None:
        try:
            await self._wait_for_answer(pending)
        finally:
            if not pending.answered:  # our own task was cancelled (e.g. the connection closed)
                self._finish(pending, None, f"Cancelled: {pending.label}")
            self._remove(pending)

    # -- rules --

    def _judge(self, pending: PendingPermission) -> Rule | None:
        if self.rules is None:
            return None
        try:
            return self.rules.judge(pending)
        except Exception:  # a rule must never keep a request from the person
            log.exception("the permission rules failed; asking instead")
            return None

    def _answer_by(self, pending: PendingPermission, rule: Rule) -> bool:
        """Answer ``pending`` as ``rule`` says, if the agent offers the option it picks;
        else note why the dialog asks. Returns whether it was answered."""
        described = rule.describe()
        kind = _RULE_PICKS.get(rule.decision)
        choice = pending.first_of(kind) if kind is not None else None
        if kind is None:
            pending.rule_note = f"Asked by rule: {described}"
        elif choice is None:
            pending.rule_note = (
                f"The rule {described} would {rule.decision} this, but the agent offers no "
                f"'{KIND_LABELS[kind]}' option"
            )
            return False
        else:
            pending.rule = rule
            verb = "Allowed" if rule.decision == "allow" else "Denied"
            self._finish(pending, choice, f"{verb} by rule: {described} — {pending.label}")
        assert self.rules is not None
        try:
            self.rules.fired(rule)
        except Exception:
            log.exception("counting a rule failed")
        return pending.answered

    def apply_rules(self, pending: PendingPermission) -> bool:
        """The rules changed while ``pending`` waited (one was made from its dialog): answer
        it now if one allows or denies it (its dialog closes). Returns whether it was."""
        if pending.answered:
            return False
        rule = self._judge(pending)
        if rule is None or rule.decision == "ask":
            return False
        return self._answer_by(pending, rule)

    def _answer_shown(self, pending: PendingPermission, answer: str | None) -> None:
        if pending.answered:  # cancel_session / cancel_all got there first
            return
        choice = pending.option(answer) if isinstance(answer, str) else None
        self._finish(pending, choice, self._echo_text(choice, pending))

    # -- cancellation --

    def cancel_session(self, session_id: str) -> int:
        """Answer every pending request of ``session_id`` with ``cancelled`` and close its
        dialog if it is on screen. Returns how many were answered."""
        return self._cancel([p for p in self._queue if p.session_id == session_id])

    def cancel_all(self) -> int:
        """Answer every pending request with ``cancelled`` (the agent died or the app quits)."""
        return self._cancel(list(self._queue))

    def _cancel(self, victims: list[PendingPermission]) -> int:
        count = 0
        for pending in victims:
            if pending.answered:
                continue
            self._finish(pending, None, f"Cancelled: {pending.label}")
            count += 1
        return count

    # -- internals --

    @staticmethod
    def _echo_text(choice: PermissionChoice | None, pending: PendingPermission) -> str:
        if choice is None:
            return f"Cancelled: {pending.label}"
        verb = _ECHO_VERBS.get(choice.kind)
        if verb is None:
            return f"Chose {one_line(choice.name, 80)!r}: {pending.label}"
        if sum(option.kind == choice.kind for option in pending.options) > 1:
            # Options of one kind differ by what they do ("Yes, and auto-accept edits" or
            # "Yes, and bypass permissions", all allow_always): the kind alone says neither.
            return f"{verb} ({one_line(choice.name, 80)!r}): {pending.label}"
        return f"{verb}: {pending.label}"

    def _finish(
        self, pending: PendingPermission, choice: PermissionChoice | None, echo: str
    ) -> None:
        if pending.answered:
            return
        pending.result = (
            {"outcome": {"outcome": "selected", "optionId": choice.option_id}}
            if choice is not None
            else {"outcome": {"outcome": "cancelled"}}
        )
        pending._done.set()
        if pending._scope is not None:
            pending._scope.cancel()  # closes the dialog on screen
        if pending in self._queue:
            self._remove(pending)
        self._wake_all()
        self._echo(pending.session_id, echo)
