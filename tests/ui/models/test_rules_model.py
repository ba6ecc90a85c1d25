"""The rules model, without an app: the editor's fields read as the file's rules are, rows,
and edits answered with what went wrong (acp_tui/ui/models/rules.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.session.asking.rule_book import RuleBook
from acp_tui.session.asking.rules import Rule
from acp_tui.session.asking.rules_file import FieldError
from acp_tui.ui.models.rules import RulesModel, form_of, rule_from_form


def model(tmp_path: Path) -> tuple[RulesModel, Path]:
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    book = RuleBook(tmp_path / "rules.toml", tmp_path / "state.json", clock=lambda: 100.0)
    return RulesModel(book, lambda: project, now=lambda: 130.0), project


def test_the_fields_of_a_rule_read_back_as_the_rule() -> None:
    rule = Rule(
        "deny",
        kinds=("delete", "move"),
        command="rm *",
        paths=("src/**", "*.lock"),
        title="Delete *",
        agent="claude*",
        project="/home/me/app",
    )
    assert rule_from_form(form_of(rule)) == rule
    assert rule_from_form({"decision": "allow", "kind": " ", "project": ""}) == Rule("allow")


def test_a_field_that_is_not_right_is_named() -> None:
    with pytest.raises(FieldError) as caught:
        rule_from_form({"decision": "allow", "kind": "edit, exec"})
    assert caught.value.key == "kind"
    with pytest.raises(FieldError) as caught:
        rule_from_form({"decision": "allow", "project": "src"})
    assert caught.value.key == "project"


def test_rows_counts_and_moving_between_files(tmp_path: Path) -> None:
    rules, project = model(tmp_path)
    assert rules.add(Rule("allow", kinds=("read",))) is None
    assert rules.add(Rule("deny", kinds=("delete",)), in_project=True) is None
    rows = rules.rows()
    assert [(r.decision, r.where, r.scope) for r in rows] == [
        ("allow", "rules.toml", "everywhere"),
        ("deny", "project", "this project"),
    ]
    assert rows[0].fired == "0" and rows[0].last == "never"
    rules.book.fired(rows[0].rule)
    assert rules.rows()[0].fired == "1" and rules.rows()[0].last == "just now"
    # Edited into the project's file: out of the person's.
    old = rules.rows()[0].rule
    assert rules.change(old, Rule("allow", kinds=("search",)), in_project=True) is None
    assert [r.where for r in rules.rows()] == ["project", "project"]
    assert "search" in (project / ".acp-tui" / "rules.toml").read_text()
    assert "search" not in (tmp_path / "rules.toml").read_text()


def test_an_edit_of_a_file_with_a_mistake_is_refused_in_words(tmp_path: Path) -> None:
    rules, _project = model(tmp_path)
    (tmp_path / "rules.toml").write_text("[[rule]\n")
    problem = rules.add(Rule("allow"))
    assert problem is not None and "line 1" in problem and "fix the file first" in problem
    assert any("line 1" in note for note in rules.notes())
