"""The one factory: what every face runs an agent with.

:class:`AgentParts` builds, for one :class:`~acp_tui.session.launch.spec.AgentSpec`, the store,
the queue of messages, the permission broker and the elicitation queue, which a face keeps
across the agent's restarts, and makes the :class:`~acp_tui.session.agent.controller.
SessionController` of each start (:meth:`AgentParts.controller`). The TUI's chat screen, the
headless commands and an agent started only to list its sessions all build theirs here; they
differ only in the hooks they hand in (how each reaches the person).

Given the app's :class:`~acp_tui.session.asking.rule_book.RuleBook`, the parts apply the
permission rules to this agent (:attr:`AgentParts.rules`): the broker checks them before the
dialog, and the client's own questions (a file or a command outside the project) are put to
them before the face's ``approve_outside``. A question a rule answered is told through
``on_question_ruled``, else as a notice in its session's transcript.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path

from acp_tui.services.paths import ApproveOutside, OutsideRequest
from acp_tui.session.agent.controller import SessionController
from acp_tui.session.agent.events import FaceHooks, ProcessSetup
from acp_tui.session.asking.dialog_queue import AnsweredCallback, QueueCallback
from acp_tui.session.asking.elicitation_queue import ElicitationQueue
from acp_tui.session.asking.permissions import PermissionBroker, Policy
from acp_tui.session.asking.rule_book import RuleBook
from acp_tui.session.asking.rule_requests import AgentRules, agent_names, question_subject
from acp_tui.session.asking.rules import Rule
from acp_tui.session.asking.write_reviews import WriteReviews
from acp_tui.session.checkpoints.book import Checkpoints
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.prompts.queue import PromptQueue, QueueKey
from acp_tui.session.spend.feed import SpendFeed
from acp_tui.store import SessionStore
from acp_tui.store.entries import ToolCall
from acp_tui.store.search_feed import SearchFeed
from acp_tui.store.search_writer import SearchWriter
from acp_tui.store.spend_writer import SpendWriter

__all__ = ["AgentParts", "QuestionRuled"]

log = logging.getLogger(__name__)

#: A question of the client's a rule answered: the question, the rule, the line to show.
QuestionRuled = Callable[[OutsideRequest, Rule, str], None]


class AgentParts:
    """One agent as a face runs it: its spec, and what outlives each of its processes."""

    def __init__(
        self,
        spec: AgentSpec,
        *,
        policy: Policy = "ask",
        process: ProcessSetup | None = None,
        on_answered: AnsweredCallback | None = None,
        on_permissions_changed: QueueCallback | None = None,
        on_elicitations_changed: QueueCallback | None = None,
        on_queue_changed: Callable[[QueueKey], None] | None = None,
        rules: RuleBook | None = None,
        on_question_ruled: QuestionRuled | None = None,
        search: SearchWriter | None = None,
        spend: SpendWriter | None = None,
    ) -> None:
        self.spec = spec
        self.process = process or ProcessSetup()
        #: Every session the agent told of, and their transcripts.
        self.store = SessionStore()
        #: Messages that cannot go out yet, per session (they survive a restart).
        self.prompts = (
            PromptQueue(on_change=on_queue_changed) if on_queue_changed else PromptQueue()
        )
        #: Where permission requests go: answered by ``policy``, or shown one at a time.
        self.broker = PermissionBroker(
            policy, on_answered=on_answered, on_queue_changed=on_permissions_changed
        )
        #: Where ``elicitation/create`` requests go (offered once a presenter is set).
        self.elicitations = ElicitationQueue(
            on_answered=on_answered, on_queue_changed=on_elicitations_changed
        )
        #: Writes waiting for review (``review_writes``; shown one at a time like the
        #: permission requests; answered by the policy where nobody can review).
        self.write_reviews = WriteReviews(
            "ask" if spec.review_writes == "ask" else "auto",
            fallback="allow" if policy == "yolo" else "deny",
            on_answered=on_answered,
        )
        #: Snapshots of its sessions' files at each turn (None: off for this agent).
        self.checkpoints = (
            Checkpoints(spec.checkpoints, agent=spec.key) if spec.checkpoints.enabled else None
        )
        #: The latest controller (its sessions' folders, the agent's own name).
        self.latest: SessionController | None = None
        self.on_question_ruled = on_question_ruled
        #: The permission rules as they apply to this agent (None: no rules).
        self.rules = (
            AgentRules(rules, self._agent_names, self._roots, self._tool_call)
            if rules is not None
            else None
        )
        self.broker.rules = self.rules
        #: What its sessions say, fed to the app's search index (None: no index, or the
        #: agent's ``index = false``).
        self.search = (
            SearchFeed(self.store, search, agent=spec.key, label=self.search_label).attach()
            if search is not None and spec.index
            else None
        )
        #: Where the costs its sessions report are recorded (None: no ledger).
        self.spend = (
            SpendFeed(
                spend,
                self.store,
                agent=spec.key,
                name=spec.name or "",
                label=self.search_label,
                cwd=lambda: spec.cwd,
            )
            if spend is not None
            else None
        )

    def search_label(self) -> str:
        """What the search results call the agent: its label, else its own name, else its
        command."""
        spec = self.spec
        info = self.latest.agent if self.latest is not None else None
        if spec.label:
            return spec.label
        if info is not None and info.display_name:
            return info.display_name
        return spec.name or (Path(spec.argv[0]).name if spec.argv else spec.key)

    def budget_names(self) -> tuple[str, ...]:
        """What a budget's ``agent`` may call this agent: its configured name, its label."""
        spec = self.spec
        return tuple(name for name in (spec.name, spec.label, self.search_label()) if name)

    def _agent_names(self) -> tuple[str, ...]:
        spec = self.spec
        info = self.latest.agent if self.latest is not None else None
        return agent_names(spec.name, spec.label, info.name if info else None, spec.argv)

    def _roots(self, session_id: str | None) -> tuple[Path, ...]:
        if self.latest is None:
            return (Path(self.spec.cwd),)
        return self.latest.state.roots.roots(session_id)

    def _tool_call(self, session_id: str, tool_call_id: str) -> ToolCall | None:
        state = self.store.get(session_id)
        entry = state.tool_index.get(tool_call_id) if state is not None else None
        return entry if isinstance(entry, ToolCall) else None

    def _ruled(self, approve: ApproveOutside) -> ApproveOutside:
        """``approve`` (the face's question to the person), after the rules that name it."""
        rules = self.rules
        assert rules is not None

        async def approve_by_rules(request: OutsideRequest) -> bool:
            if self.broker.policy == "deny":  # --deny-all: no rule says yes
                return await approve(request)
            try:
                rule = rules.judge_question(request)
            except Exception:  # a rule must never keep a question from the person
                log.exception("the permission rules failed; asking instead")
                rule = None
            if rule is not None:
                rules.fired(rule)
                if rule.decision != "ask":
                    self._question_ruled(request, rule)
                    return rule.decision == "allow"
            return await approve(request)

        return approve_by_rules

    def _question_ruled(self, request: OutsideRequest, rule: Rule) -> None:
        verb = "Allowed" if rule.decision == "allow" else "Denied"
        line = f"{verb} by rule: {rule.describe()} — {question_subject(request)}"
        if self.on_question_ruled is not None:
            self.on_question_ruled(request, rule, line)
            return
        session_id = request.session_id
        if isinstance(session_id, str) and self.store.get(session_id) is not None:
            self.store.add_notice(session_id, line, severity="info")

    def controller(self, face: FaceHooks | None = None) -> SessionController:
        """The controller of one start of the agent (its caller runs it). Permission requests
        go to ``face.permission_handler``, else to the broker."""
        face = face or FaceHooks()
        if face.permission_handler is None:
            face = dataclasses.replace(face, permission_handler=self.broker.request)
        if face.approve_outside is not None and self.rules is not None:
            face = dataclasses.replace(face, approve_outside=self._ruled(face.approve_outside))
        self.latest = SessionController(
            self.spec,
            store=self.store,
            face=face,
            process=self.process,
            prompts=self.prompts,
            elicitations=self.elicitations,
            checkpoints=self.checkpoints,
            write_reviews=self.write_reviews,
            spend=self.spend,
        )
        return self.latest
