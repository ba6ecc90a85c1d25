"""The permission rules as the rules screen and the rule editor show them: rows, the project
file's state, and the person's edits, each answered with what went wrong (``None``: done).
Plain Python over the session layer's :class:`~acp_tui.session.asking.rule_book.RuleBook`.

The editor's form is text fields; :func:`rule_from_form` reads them through the rules file's
own check (:func:`acp_tui.session.asking.rules_file.rule_from_fields`), so a rule typed in the
editor and one written in the file are held to the same words.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_tui.session.asking.rule_book import RuleBook, RulesEditError, RulesSource
from acp_tui.session.asking.rules import Rule, short_path
from acp_tui.session.asking.rules_file import FieldError, rule_from_fields
from acp_tui.text.relative_time import relative_time

__all__ = ["FORM_FIELDS", "RuleRow", "RulesModel", "form_of", "rule_from_form"]

#: The editor's text fields, in order: (key, label, placeholder).
FORM_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("kind", "Kinds", "any tool (or: execute, edit, read-outside…)"),
    ("command", "Command", "a glob on the whole command: npm test*"),
    ("paths", "Paths", "globs, comma-separated: src/**, *.md"),
    ("title", "Title", "a glob on the tool call's title"),
    ("agent", "Agent", "any agent (or a glob on its name or command)"),
    ("project", "Project", "empty: everywhere"),
)

_LIST_SPLIT = re.compile(r"\s*,\s*")


def form_of(rule: Rule) -> dict[str, str]:
    """The editor's fields for ``rule`` (lists comma-separated, a missing field empty)."""
    return {
        "decision": rule.decision,
        "kind": ", ".join(rule.kinds),
        "command": rule.command or "",
        "paths": ", ".join(rule.paths),
        "title": rule.title or "",
        "agent": rule.agent or "",
        "project": short_path(rule.project) if rule.project else "",
    }


def rule_from_form(values: Mapping[str, str], *, in_project: bool = False) -> Rule:
    """The rule the editor's fields say; :class:`FieldError` names the field that is wrong.
    Empty fields are left out (they match anything); in a project's file the project is the
    file's own."""
    fields: dict[str, Any] = {"decision": values.get("decision", "")}
    for key in ("command", "title", "agent", "project"):
        text = values.get(key, "")
        if key == "project" and in_project:
            continue
        if text.strip():
            fields[key] = text if key in ("command", "title") else text.strip()
    for key in ("kind", "paths"):
        items = [item for item in _LIST_SPLIT.split(values.get(key, "").strip()) if item]
        if items:
            fields[key] = items
    return rule_from_fields(fields, in_project=in_project)


@dataclass(frozen=True, slots=True)
class RuleRow:
    """One rule as the list shows it."""

    rule: Rule
    decision: str
    scope: str
    match: str
    fired: str
    last: str
    #: Where it is written: "rules.toml" or the project's file.
    where: str
    #: In a file whose rules apply now (not a project file changed behind acp-tui's back).
    in_use: bool
    in_project: bool


class RulesModel:
    """The rules the person sees from one view: their own file's, then the project's of the
    session on screen (``cwd``)."""

    def __init__(
        self,
        book: RuleBook,
        cwd: Callable[[], Path | None],
        *,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.book = book
        self.cwd = cwd
        self.now = now

    # -- what is shown --

    def _sources(self) -> list[RulesSource]:
        sources = [self.book.user()]
        cwd = self.cwd()
        if cwd is not None:
            projects = self.book.projects_for(cwd) or [cwd]
            sources += [self.book.project_source(project) for project in projects]
        return sources

    def rows(self) -> list[RuleRow]:
        rows: list[RuleRow] = []
        now = self.now()
        for source in self._sources():
            in_project = source.project is not None
            where = "project" if in_project else "rules.toml"
            for rule in source.rules:
                stats = self.book.stats(rule)
                rows.append(
                    RuleRow(
                        rule=rule,
                        decision=rule.decision,
                        scope="this project" if in_project else rule.scope_words,
                        match=rule.match_words(),
                        fired=str(stats.fired),
                        last=relative_time(stats.last, now) if stats.last else "never",
                        where=where,
                        in_use=source.in_use,
                        in_project=in_project,
                    )
                )
        return rows

    def notes(self) -> list[str]:
        """What the person should know about the files: where they are, what is wrong."""
        notes: list[str] = []
        for source in self._sources():
            if source.project is None:
                notes.append(f"Your rules: {source.label}")
            elif source.data is None:
                continue
            elif source.untrusted:
                notes.append(
                    f"This project's rules: {source.label}, not in use: it changed since "
                    "acp-tui wrote it (or acp-tui never did). Read it, then accept it to use it."
                )
            else:
                notes.append(f"This project's rules: {source.label}")
            if source.problem:
                notes.append(f"{source.problem}. None of its rules apply.")
        return notes

    @property
    def project(self) -> Path | None:
        """The project of the session on screen (its rules file's folder)."""
        return self.cwd()

    def can_trust(self) -> bool:
        cwd = self.cwd()
        if cwd is None:
            return False
        source = self.book.project_source(cwd)
        return source.untrusted and source.problem is None

    # -- edits: None when done, else what went wrong --

    def _do(self, edit: Callable[[], object]) -> str | None:
        try:
            edit()
        except RulesEditError as error:
            return str(error)
        return None

    def add(self, rule: Rule, *, in_project: bool = False) -> str | None:
        project = self.cwd() if in_project else None
        if in_project and project is None:
            return "no session is open: there is no project to write to"
        return self._do(lambda: self.book.add(rule, project=project))

    def change(self, old: Rule, new: Rule, *, in_project: bool) -> str | None:
        """``old`` becomes ``new``, in its file, or in the other one (moved there)."""
        old_in_project = old.source is not None and old.source != self.book.user_file
        if old_in_project == in_project:
            return self._do(lambda: self.book.change(old, new))
        problem = self.add(new, in_project=in_project)
        return problem or self._do(lambda: self.book.remove(old))

    def remove(self, rule: Rule) -> str | None:
        return self._do(lambda: self.book.remove(rule))

    def move(self, rule: Rule, step: int) -> str | None:
        return self._do(lambda: self.book.move(rule, step))

    def trust(self) -> str | None:
        cwd = self.cwd()
        if cwd is None:
            return "no session is open"
        return self._do(lambda: self.book.trust(cwd))

    def check(self, values: Mapping[str, str], *, in_project: bool) -> Rule | str:
        """The rule of the editor's fields, or what is wrong with them."""
        try:
            return rule_from_form(values, in_project=in_project)
        except FieldError as error:
            return str(error)
