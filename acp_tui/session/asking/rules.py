"""Permission rules: what one rule says, and whether it matches a request. No I/O here.

A :class:`Rule` answers a request before any dialog opens: ``allow`` (the agent's
``allow_once`` option), ``deny`` (its ``reject_once``) or ``ask`` (the dialog, whatever the
policy). It matches on any of: the *kinds* of request (a tool call's kind, or one of the
client's own questions, :data:`QUESTION_KINDS`), the agent (a glob on any name it goes by),
the tool call's title (a glob), the command line (a glob on the whole command), the paths
(globs relative to the project, or absolute) and the project (a directory and everything
under it; none: everywhere). Every field left out matches anything. How rules are ordered is
:func:`first_match`'s: deny rules first, then the others, each group in its order.

What matches is a :class:`RuleRequest`, made from a permission request or a question by
:mod:`acp_tui.session.asking.rule_requests`. Three things keep a broad rule from saying yes
to more than the person meant:

- A request that reaches outside the session's folders (the client's own questions: a file
  outside, a command run outside or with an environment that changes what runs; a tool call
  with a location outside) is matched only by a rule that names it: a question by its kind in
  :attr:`Rule.kinds`, a path outside by an absolute glob (``/…``, ``~/…``). A glob relative
  to the project never reaches outside it, however broad.
- In an ``allow`` rule's command, ``*`` never matches the shell's control characters
  (:data:`SHELL_CONTROL`): ``npm test*`` allows ``npm test --watch``, never
  ``npm test; rm -rf ~``. A ``deny`` or ``ask`` rule's command matches the whole command or
  any command in it (``rm *`` denies ``ls && rm -rf x``).
- An ``allow`` rule's paths must match every path of the request; a ``deny`` or ``ask``
  rule's, any of them.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

from acp_tui.text.safety import one_line
from acp_tui.wire.constants import TOOL_KINDS

__all__ = [
    "ALL_KINDS",
    "DECISIONS",
    "QUESTION_KINDS",
    "SHELL_CONTROL",
    "Decision",
    "Rule",
    "RuleRequest",
    "command_matches",
    "first_match",
    "path_matches",
    "short_path",
    "text_matches",
]

Decision = Literal["allow", "deny", "ask"]
DECISIONS: tuple[Decision, ...] = get_args(Decision)

#: The client's own questions (acp_tui.services.outside): a file read or written outside
#: the session's folders, a command run outside them, a command whose environment changes
#: what runs (PATH, LD_PRELOAD...). A rule answers one only if its kinds name it.
READ_OUTSIDE = "read-outside"
WRITE_OUTSIDE = "write-outside"
RUN_OUTSIDE = "run-outside"
RUN_ENV = "run-env"
QUESTION_KINDS: tuple[str, ...] = (READ_OUTSIDE, WRITE_OUTSIDE, RUN_OUTSIDE, RUN_ENV)
#: Every kind a rule may name: the tool kinds of the protocol, then the client's questions.
ALL_KINDS: tuple[str, ...] = (*TOOL_KINDS, *QUESTION_KINDS)

#: What ``*`` in an allow rule's command never matches: the characters with which a shell
#: runs another command, redirects, or substitutes (and line breaks).
SHELL_CONTROL = frozenset(";&|<>()$`\n\r")
_CONTROL_CLASS = "[^" + re.escape("".join(sorted(SHELL_CONTROL))) + "]"
#: Where a command line holds another command (for deny and ask rules).
_COMMAND_SPLIT = re.compile(r"\|\||&&|[;&|\n\r`]|\$\(|[()]")
_BLANKS = re.compile(r"[ \t]+")


def _under(path: Path, directory: Path) -> bool:
    return path == directory or path.is_relative_to(directory)


def short_path(path: str | Path) -> str:
    """``~/proj`` for a folder in the home directory: how a person writes it."""
    text = str(path)
    home = os.path.expanduser("~")
    if home not in ("", "/", "~") and (text == home or text.startswith(home + os.sep)):
        return "~" + text[len(home) :]
    return text


# ------------------------------------------------------------------------------ globs


@functools.lru_cache(maxsize=512)
def _text_regex(pattern: str, star: str) -> re.Pattern[str]:
    return re.compile(star.join(re.escape(part) for part in pattern.split("*")), re.DOTALL)


def text_matches(pattern: str, text: str) -> bool:
    """A title or agent glob: ``*`` is any text (none included), the rest is literal."""
    return _text_regex(pattern, ".*").fullmatch(text) is not None


def _blanks(text: str) -> str:
    """Runs of spaces and tabs as one space, ends trimmed (line breaks are kept: they end a
    command)."""
    return _BLANKS.sub(" ", text).strip(" ")


def command_matches(pattern: str, command: str, *, allow: bool) -> bool:
    """Whether a rule's command glob matches a command line. Spaces and tabs count as one
    space. For an ``allow`` rule, ``*`` is any text without :data:`SHELL_CONTROL`; for a deny
    or ask rule it is any text, and the glob may match any single command in the line too."""
    wanted = _blanks(pattern)
    line = _blanks(command)
    if allow:
        return _text_regex(wanted, _CONTROL_CLASS + "*").fullmatch(line) is not None
    regex = _text_regex(wanted, ".*")
    if regex.fullmatch(line) is not None:
        return True
    return any(regex.fullmatch(_blanks(part)) is not None for part in _COMMAND_SPLIT.split(line))


@functools.lru_cache(maxsize=512)
def _path_regex(pattern: str) -> re.Pattern[str]:
    """``**`` as a whole name: any folders (none included); ``*``: any text within one name."""
    names = pattern.split("/")
    out: list[str] = []
    for index, name in enumerate(names):
        last = index == len(names) - 1
        if name == "**":
            out.append(".*" if last else "(?:[^/]*/)*")
            continue
        out.append("[^/]*".join(re.escape(part) for part in re.split(r"\*+", name)))
        if not last:
            out.append("/")
    return re.compile("".join(out), re.DOTALL)


def path_matches(pattern: str, path: Path, base: Path, *, inside: bool) -> bool:
    """Whether a rule's path glob matches a real (resolved) path. An absolute glob (``/…``,
    ``~/…``) is matched against the whole path; a relative one against the path from
    ``base`` (the rule's project, else the session's folder), and only for a path under
    ``base`` that is ``inside`` the session's folders."""
    if pattern.startswith("~"):
        pattern = os.path.expanduser(pattern)
    if pattern.startswith("/"):
        return _path_regex(pattern).fullmatch(path.as_posix()) is not None
    if not inside or not _under(path, base):
        return False
    relative = path.relative_to(base).as_posix()
    return _path_regex(pattern.removeprefix("./")).fullmatch(relative) is not None


# ------------------------------------------------------------------------------ requests


@dataclass(frozen=True, slots=True)
class RuleRequest:
    """What rules are matched against: one permission request, or one of the client's own
    questions. Paths are real (resolved through links)."""

    #: The tool call's kind ("other" when it gave none); "" for a question.
    kind: str = "other"
    #: The client's question kinds (:data:`QUESTION_KINDS`); empty for a tool call.
    questions: frozenset[str] = frozenset()
    title: str = ""
    #: The command line it runs, when it says.
    command: str | None = None
    #: The files it touches (a tool call's locations; a question's file or working folder).
    paths: tuple[Path, ...] = ()
    #: The session's folder (the project of a rule without one), and all its folders.
    cwd: Path = Path("/")
    roots: tuple[Path, ...] = ()
    #: Every name the agent goes by: its configured name, label, own name, program, command.
    agent: tuple[str, ...] = ()

    def inside(self, path: Path) -> bool:
        return any(_under(path, root) for root in self.roots)

    @property
    def reaches_outside(self) -> bool:
        """A question, or a tool call with a path outside the session's folders."""
        return bool(self.questions) or not all(self.inside(path) for path in self.paths)


# ------------------------------------------------------------------------------ the rule


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule, as written (globs and ``~`` as the person wrote them). ``source`` and
    ``line`` say where it was read, and are not part of what it says (equality)."""

    decision: Decision
    kinds: tuple[str, ...] = ()
    agent: str | None = None
    title: str | None = None
    command: str | None = None
    paths: tuple[str, ...] = ()
    #: A directory (absolute or ``~/…``); None: everywhere.
    project: str | None = None
    source: Path | None = field(default=None, compare=False)
    line: int | None = field(default=None, compare=False)

    @property
    def project_path(self) -> Path | None:
        if self.project is None:
            return None
        return Path(os.path.realpath(os.path.expanduser(self.project)))

    def matches(self, request: RuleRequest) -> bool:
        if request.questions:
            if not request.questions <= set(self.kinds):
                return False
        elif self.kinds and request.kind not in self.kinds:
            return False
        project = self.project_path
        if project is not None and not _under(request.cwd, project):
            return False
        if self.agent is not None and not any(text_matches(self.agent, n) for n in request.agent):
            return False
        if self.title is not None and not text_matches(self.title, request.title):
            return False
        if self.command is not None and (
            request.command is None
            or not command_matches(self.command, request.command, allow=self.decision == "allow")
        ):
            return False
        return self._paths_match(request, project or request.cwd)

    def _paths_match(self, request: RuleRequest, base: Path) -> bool:
        if not self.paths:
            # No path named: only what stays inside (a question is named by its kind).
            return bool(request.questions) or not request.reaches_outside
        if not request.paths:
            return False
        hits = [
            any(path_matches(glob, path, base, inside=request.inside(path)) for glob in self.paths)
            for path in request.paths
        ]
        return all(hits) if self.decision == "allow" else any(hits)

    # -- in words --

    def describe(self, limit: int = 160) -> str:
        """The rule in one line: ``execute `npm test*` in ~/proj``."""
        words = ["/".join(self.kinds) if self.kinds else "any tool"]
        if self.command is not None:
            words.append(f"`{self.command}`")
        if self.paths:
            words.append(", ".join(f"`{path}`" for path in self.paths))
        if self.title is not None:
            words.append(f"titled `{self.title}`")
        if self.agent is not None:
            words.append(f"of agent `{self.agent}`")
        words.append(f"in {short_path(self.project)}" if self.project else "everywhere")
        return one_line(" ".join(words), limit)

    def match_words(self, limit: int = 120) -> str:
        """What it matches, without its scope (a column of the rules list)."""
        words = ["/".join(self.kinds) if self.kinds else "any tool"]
        if self.command is not None:
            words.append(f"`{self.command}`")
        if self.paths:
            words.append(", ".join(f"`{path}`" for path in self.paths))
        if self.title is not None:
            words.append(f"titled `{self.title}`")
        if self.agent is not None:
            words.append(f"of `{self.agent}`")
        return one_line(" ".join(words), limit)

    @property
    def scope_words(self) -> str:
        return short_path(self.project) if self.project else "everywhere"


def first_match(rules: Iterable[Rule], request: RuleRequest) -> Rule | None:
    """The rule that decides ``request``: the first deny rule that matches, else the first
    other rule that matches (in their order), else None."""
    ordered: Sequence[Rule] = list(rules)
    for rule in ordered:
        if rule.decision == "deny" and rule.matches(request):
            return rule
    for rule in ordered:
        if rule.decision != "deny" and rule.matches(request):
            return rule
    return None
