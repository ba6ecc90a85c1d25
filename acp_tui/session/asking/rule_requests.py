"""What rules are matched against, for one agent: its permission requests and the client's
own questions, as :class:`~acp_tui.session.asking.rules.RuleRequest`; and the rule a request
suggests (the editor's draft, "Always allow this for this project…").

:class:`AgentRules` is made by the factory (:class:`acp_tui.session.launch.factory.
AgentParts`) for each agent, over the app's one :class:`~acp_tui.session.asking.rule_book.
RuleBook`. A permission request is read as the dialog reads it: the tool call the store
knows, with the request's own fields over it (its kind, title, command line from the store's
typed views, locations).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from acp_tui.services import outside
from acp_tui.services.paths import OutsideRequest
from acp_tui.session.asking.permissions import PendingPermission
from acp_tui.session.asking.rule_book import RuleBook
from acp_tui.session.asking.rules import (
    READ_OUTSIDE,
    RUN_ENV,
    RUN_OUTSIDE,
    WRITE_OUTSIDE,
    Decision,
    Rule,
    RuleRequest,
    short_path,
)
from acp_tui.store.entries import ToolCall
from acp_tui.store.tool_content import command_line
from acp_tui.text.safety import escaped_line
from acp_tui.wire.constants import TOOL_KINDS

__all__ = ["AgentRules", "agent_names", "question_kinds", "question_subject"]

#: Finds the tool call the store knows: (session id, tool call id) -> the entry or None.
ToolCallLookup = Callable[[str, str], ToolCall | None]
#: A session's folders, its cwd first (the controller's, or the agent's cwd alone).
RootsLookup = Callable[[str | None], tuple[Path, ...]]

_OPERATIONS = {"read": READ_OUTSIDE, "write": WRITE_OUTSIDE, "terminal": RUN_OUTSIDE}


def _real(path: str | Path, base: Path) -> Path:
    return Path(os.path.realpath(os.path.join(base, os.path.expanduser(str(path)))))


def question_kinds(request: OutsideRequest) -> frozenset[str]:
    """The kinds a rule must name to answer this question."""
    kinds: set[str] = set()
    if request.outside:
        kinds.add(_OPERATIONS.get(request.operation, RUN_OUTSIDE))
    if request.risky_env:
        kinds.add(RUN_ENV)
    return frozenset(kinds or {_OPERATIONS.get(request.operation, RUN_OUTSIDE)})


def question_subject(request: OutsideRequest) -> str:
    """What a question is about, in one escaped line: its command, or its file."""
    if request.operation == "terminal":
        what = command_line({"command": request.command, "args": list(request.args)})
        return "$ " + escaped_line(what or request.command, 200)
    return escaped_line(str(request.path), 200)


def _command_prefix(command: str) -> str:
    """The start of a command a rule would allow: its program and first word that is not an
    option (``npm test`` of ``npm test --watch``), then ``*``."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    keep = words[:1]
    if len(words) > 1 and not words[1].startswith("-"):
        keep.append(words[1])
    return (shlex.join(keep) if keep else command.strip()) + "*"


@dataclass(frozen=True, slots=True)
class AgentRules:
    """The rules as they apply to one agent's requests."""

    book: RuleBook
    #: Every name the agent goes by (its configured name, label, own name, program, command).
    agent_names: Callable[[], tuple[str, ...]]
    roots: RootsLookup
    tool_call: ToolCallLookup

    # -- permission requests --

    def _roots(self, session_id: str | None) -> tuple[Path, tuple[Path, ...]]:
        roots = tuple(Path(os.path.realpath(root)) for root in self.roots(session_id))
        return (roots[0] if roots else Path(os.path.realpath(os.getcwd()))), roots

    def view(self, pending: PendingPermission) -> ToolCall:
        """The tool call as the dialog shows it: the store's, with the request's fields over."""
        known = self.tool_call(pending.session_id, pending.tool_call_id or "")
        if known is not None:
            return known.with_fields(pending.tool_call)
        return ToolCall.from_fields(pending.tool_call)

    def permission_request(self, pending: PendingPermission) -> RuleRequest:
        tool_call = self.view(pending)
        cwd, roots = self._roots(pending.session_id)
        kind = tool_call.tool_kind if tool_call.tool_kind in TOOL_KINDS else "other"
        return RuleRequest(
            kind=kind,
            title=tool_call.title,
            command=tool_call.command,
            paths=tuple(_real(loc.path, cwd) for loc in tool_call.file_locations),
            cwd=cwd,
            roots=roots,
            agent=self.agent_names(),
        )

    def judge(self, pending: PendingPermission) -> Rule | None:
        return self.book.decide(self.permission_request(pending))

    def fired(self, rule: Rule) -> None:
        self.book.fired(rule)

    # -- the client's own questions --

    def question_request(self, request: OutsideRequest) -> RuleRequest:
        cwd, roots = self._roots(request.session_id)
        command = None
        if request.operation == "terminal":
            command = command_line({"command": request.command, "args": list(request.args)})
        return RuleRequest(
            kind="",
            questions=question_kinds(request),
            title=outside.title(request),
            command=command,
            paths=(Path(os.path.realpath(request.path)),),
            cwd=cwd,
            roots=roots or tuple(Path(os.path.realpath(r)) for r in request.roots),
            agent=self.agent_names(),
        )

    def judge_question(self, request: OutsideRequest) -> Rule | None:
        return self.book.decide(self.question_request(request))

    # -- drafts --

    def draft(self, pending: PendingPermission, decision: Decision) -> Rule:
        """The rule the dialog's "Always allow / deny this…" starts from: this request's kind,
        its command's start (``npm test*``) or its files, in this project."""
        request = self.permission_request(pending)
        command = _command_prefix(request.command) if request.command else None
        paths: list[str] = []
        if command is None:
            for path in request.paths:
                inside = request.inside(path) and (
                    path == request.cwd or path.is_relative_to(request.cwd)
                )
                paths.append(
                    path.relative_to(request.cwd).as_posix() if inside else short_path(path)
                )
        title = request.title if command is None and not paths and request.title else None
        return Rule(
            decision=decision,
            kinds=(request.kind,),
            command=command,
            paths=tuple(dict.fromkeys(paths)),
            title=title,
            project=short_path(request.cwd),
        )

    def draft_question(self, request: OutsideRequest, decision: Decision) -> Rule:
        """The rule a question suggests: its kinds, the file (or the command), in this project."""
        asked = self.question_request(request)
        if request.operation == "terminal" and asked.command:
            return Rule(
                decision=decision,
                kinds=tuple(sorted(asked.questions)),
                command=_command_prefix(asked.command),
                project=short_path(asked.cwd),
            )
        return Rule(
            decision=decision,
            kinds=tuple(sorted(asked.questions)),
            paths=tuple(short_path(p) for p in asked.paths),
            project=short_path(asked.cwd),
        )


def agent_names(
    name: str | None, label: str, own_name: str | None, argv: Sequence[str]
) -> tuple[str, ...]:
    """Every name an agent goes by, for a rule's ``agent`` glob."""
    names = [name, label, own_name]
    if argv:
        names += [os.path.basename(argv[0]), shlex.join(argv)]
    return tuple(dict.fromkeys(n for n in names if n))
