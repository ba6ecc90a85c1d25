"""The rule book: every rules file, read again when it changed, and what acp-tui keeps about
the rules outside them.

The person's file (``rules.toml`` in acp-tui's config folder) applies everywhere its rules
say. A project's file (``PROJECT/.acp-tui/rules.toml``) is written only when the person asks
for one, and read only while it is as acp-tui last wrote it, or as the person accepted it
(:meth:`RuleBook.trust`): the agent can write files in the project, and must not be able to
write itself permissions. Its rules apply to sessions in the project.

How often each rule fired and when it last did are kept in acp-tui's data folder
(``rules-state.json``), with the projects whose files are in use and their digests: not in
the hand-edited file, where a count would change at every request and a rule's identity
would need an id the person could break by copying a rule. A rule is known there by what it
says and where it is written, so an edited rule counts afresh.

A file with a mistake is reported once (``on_problem``) and none of its rules applies; the
app's edits refuse to rewrite it (they would lose what the person wrote).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from acp_tui.services.path_gate import PathRefused, read_bytes, replace_file, resolve_path
from acp_tui.session.asking.rules import Rule, RuleRequest, first_match, short_path
from acp_tui.session.asking.rules_file import RulesFileError, dump_rules, load_rules, write_rules

__all__ = ["PROJECT_RULES", "RuleBook", "RuleStats", "RulesEditError", "RulesSource"]

log = logging.getLogger(__name__)

#: A project's rules file, relative to the project.
PROJECT_RULES = Path(".acp-tui") / "rules.toml"
_STATE_LIMIT = 4 * 1024 * 1024


class RulesEditError(Exception):
    """An edit that was not made; ``str()`` says why, for the person."""


@dataclass(frozen=True, slots=True)
class RuleStats:
    fired: int = 0
    #: When it last fired (seconds since the epoch), None: never.
    last: float | None = None


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def rule_key(rule: Rule) -> str:
    """A rule's identity in the state file: what it says and which file it is in."""
    text = f"{rule.source}\n{dump_rules([rule])}"
    return _digest(text.encode("utf-8", "surrogatepass"))[:24]


@dataclass(slots=True)
class RulesSource:
    """One rules file as last read: its rules, or what is wrong with it."""

    path: Path
    #: The project of a project's file; None: the person's own file.
    project: Path | None = None
    rules: list[Rule] = field(default_factory=list)
    problem: str | None = None
    #: The file's bytes as read (None: there is no file).
    data: bytes | None = None
    #: (mtime_ns, size, inode) when read, None when missing: read again when it differs.
    stamp: tuple[int, int, int] | None = None
    #: A project's file that changed since acp-tui wrote it (or the person accepted it).
    untrusted: bool = False

    @property
    def label(self) -> str:
        return short_path(self.path)

    @property
    def in_use(self) -> bool:
        return self.problem is None and not self.untrusted


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size, info.st_ino)


class RuleBook:
    """Every rules file acp-tui reads, and the state kept about them. ``user_file`` is the
    person's file, ``state_file`` where counts and trusted projects are kept (None: in
    memory only); ``on_problem`` hears of each new mistake in a file."""

    def __init__(
        self,
        user_file: Path,
        state_file: Path | None = None,
        *,
        on_problem: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.user_file = Path(user_file)
        self.state_file = state_file
        self.on_problem = on_problem
        self.clock = clock
        self._sources: dict[Path, RulesSource] = {}
        self._reported: dict[Path, str] = {}
        self._state: dict[str, Any] = self._read_state()

    # -- state --

    def _read_state(self) -> dict[str, Any]:
        state: dict[str, Any] = {"fired": {}, "projects": {}}
        if self.state_file is None:
            return state
        try:
            data = read_bytes(resolve_path(self.state_file), _STATE_LIMIT, inside=False)
            loaded = json.loads(data) if data is not None else None
        except (OSError, PathRefused, ValueError):
            return state
        if isinstance(loaded, dict):
            for key in ("fired", "projects"):
                if isinstance(loaded.get(key), dict):
                    state[key] = loaded[key]
        return state

    def _write_state(self) -> None:
        if self.state_file is None:
            return
        data = json.dumps(self._state, indent=1, sort_keys=True).encode("utf-8")
        try:
            replace_file(resolve_path(self.state_file), data)
        except (OSError, PathRefused) as error:
            log.warning("cannot keep the rules' state in %s: %s", self.state_file, error)

    def stats(self, rule: Rule) -> RuleStats:
        entry = self._state["fired"].get(rule_key(rule))
        if not isinstance(entry, dict):
            return RuleStats()
        count, last = entry.get("count"), entry.get("last")
        return RuleStats(
            count if isinstance(count, int) else 0,
            float(last) if isinstance(last, int | float) else None,
        )

    def _update_state(self, change: Callable[[dict[str, Any]], None]) -> None:
        """Change the state as it is on disk now (another acp-tui may have written it)."""
        state = self._read_state() if self.state_file is not None else self._state
        change(state)
        self._state = state
        self._write_state()

    def fired(self, rule: Rule) -> None:
        """``rule`` answered a request (or sent it to the dialog): count it."""
        key = rule_key(rule)

        def count(state: dict[str, Any]) -> None:
            before = state["fired"].get(key)
            number = before.get("count", 0) if isinstance(before, dict) else 0
            number = number if isinstance(number, int) else 0
            state["fired"][key] = {"count": number + 1, "last": self.clock()}

        self._update_state(count)

    def _set_project(self, project: Path, data: bytes) -> None:
        def record(state: dict[str, Any]) -> None:
            state["projects"][str(project)] = _digest(data)

        self._update_state(record)

    # -- the files --

    def project_file(self, project: Path) -> Path:
        return Path(os.path.realpath(project)) / PROJECT_RULES

    def _projects(self) -> dict[str, str]:
        projects: dict[str, str] = self._state["projects"]
        return projects

    def _source(self, path: Path, project: Path | None) -> RulesSource:
        """The file at ``path``, read again if it changed since last time."""
        stamp = _stamp(path)
        known = self._sources.get(path)
        if known is not None and known.stamp == stamp and stamp is not None:
            source = known
        elif known is not None and stamp is None and known.data is None:
            source = known
        else:
            source = RulesSource(path, project, stamp=stamp)
            try:
                source.rules, source.data = load_rules(path, project=project)
            except RulesFileError as error:
                source.problem = str(error)
            self._sources[path] = source
        if project is not None and source.problem is None:
            trusted = self._projects().get(str(project))
            source.untrusted = source.data is not None and trusted != _digest(source.data)
        self._report(source)
        return source

    def _report(self, source: RulesSource) -> None:
        problem = source.problem
        if problem is None and source.untrusted:
            problem = (
                f"{source.label} changed since acp-tui wrote it: its rules do not apply until "
                "you accept them (Ctrl+P → Permission rules)"
            )
        if problem is None:
            self._reported.pop(source.path, None)
            return
        if self._reported.get(source.path) == problem:
            return
        self._reported[source.path] = problem
        if self.on_problem is not None:
            try:
                self.on_problem(
                    problem if source.untrusted else f"{problem}. None of its rules apply."
                )
            except Exception:
                log.exception("on_problem failed")

    def user(self) -> RulesSource:
        return self._source(self.user_file, None)

    def projects_for(self, cwd: Path) -> list[Path]:
        """The projects in use (their files acp-tui wrote) that hold ``cwd``."""
        real = Path(os.path.realpath(cwd))
        found = []
        for name in self._projects():
            project = Path(name)
            if real == project or real.is_relative_to(project):
                found.append(project)
        return sorted(found, key=lambda p: len(p.parts), reverse=True)

    def sources_for(self, cwd: Path | None) -> list[RulesSource]:
        """The person's file, then the files of the projects in use that hold ``cwd``."""
        sources = [self.user()]
        if cwd is not None:
            for project in self.projects_for(cwd):
                sources.append(self._source(self.project_file(project), project))
        return sources

    def project_source(self, project: Path) -> RulesSource:
        """A project's file, in use or not (for the rules screen)."""
        real = Path(os.path.realpath(project))
        source = self._source(self.project_file(real), real)
        if str(real) not in self._projects() and source.data is not None:
            source.untrusted = True
        return source

    def rules_for(self, cwd: Path | None) -> list[Rule]:
        return [rule for s in self.sources_for(cwd) if s.in_use for rule in s.rules]

    def problems(self, cwd: Path | None = None) -> list[str]:
        return [s.problem for s in self.sources_for(cwd) if s.problem]

    def decide(self, request: RuleRequest) -> Rule | None:
        """The rule that decides ``request`` (see :func:`first_match`), None: no rule does."""
        return first_match(self.rules_for(request.cwd), request)

    # -- edits (each reads the file afresh, and refuses one it cannot read) --

    def _editable(self, project: Path | None) -> RulesSource:
        path = self.user_file if project is None else self.project_file(project)
        real = Path(os.path.realpath(project)) if project is not None else None
        self._sources.pop(path, None)
        source = self._source(path, real)
        if source.problem is not None:
            raise RulesEditError(f"{source.problem}: fix the file first (nothing was changed)")
        return source

    def _write(self, source: RulesSource, rules: list[Rule]) -> None:
        project = source.project
        try:
            data = write_rules(source.path, rules, project=project)
        except RulesFileError as error:
            raise RulesEditError(str(error)) from None
        if project is not None:
            self._set_project(project, data)
        self._sources.pop(source.path, None)

    def _place(self, rule: Rule) -> Path | None:
        """The project whose file holds ``rule`` (None: the person's file)."""
        if rule.source is not None and rule.source != self.user_file and rule.project:
            return Path(rule.project)
        return None

    def _index(self, source: RulesSource, rule: Rule) -> int:
        for index, known in enumerate(source.rules):
            if known == rule:
                return index
        raise RulesEditError("that rule is no longer in the file (it was changed meanwhile)")

    def add(self, rule: Rule, *, project: Path | None = None) -> Rule:
        """Add ``rule`` at the end of the person's file, or of ``project``'s file (made, and
        put in use, when there is none). Returns the rule as it is now written."""
        source = self._editable(project)
        if project is not None:
            if source.untrusted and str(source.project) in self._projects():
                raise RulesEditError(
                    f"{source.label} changed since acp-tui wrote it: accept or fix it first"
                )
            rule = replace(rule, project=str(source.project))
        self._write(source, [*source.rules, rule])
        return replace(rule, source=source.path)

    def change(self, old: Rule, new: Rule) -> None:
        source = self._editable(self._place(old))
        rules = list(source.rules)
        index = self._index(source, old)
        if source.project is not None:
            new = replace(new, project=str(source.project))
        rules[index] = new
        self._write(source, rules)

    def remove(self, rule: Rule) -> None:
        source = self._editable(self._place(rule))
        rules = list(source.rules)
        del rules[self._index(source, rule)]
        self._write(source, rules)

    def move(self, rule: Rule, step: int) -> bool:
        """Move ``rule`` ``step`` places within its file; False when it is already at that end."""
        source = self._editable(self._place(rule))
        rules = list(source.rules)
        index = self._index(source, rule)
        target = index + step
        if not 0 <= target < len(rules):
            return False
        rules.insert(target, rules.pop(index))
        self._write(source, rules)
        return True

    def trust(self, project: Path) -> None:
        """Put ``project``'s file in use as it is now (the person read it)."""
        real = Path(os.path.realpath(project))
        path = self.project_file(real)
        self._sources.pop(path, None)
        source = self._source(path, real)
        if source.data is None:
            raise RulesEditError(f"{short_path(path)} is not there")
        if source.problem is not None:
            raise RulesEditError(f"{source.problem}: fix the file first")
        self._set_project(real, source.data)
        self._sources.pop(path, None)
