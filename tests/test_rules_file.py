"""The rules file: read with tomllib, written by hand (round trip as a property), mistakes
named by line, written atomically through the path gate (acp_tui/session/asking/rules_file.py)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.session.asking.rules import ALL_KINDS, DECISIONS, Rule
from acp_tui.session.asking.rules_file import (
    RulesFileError,
    dump_rules,
    load_rules,
    parse_rules,
    toml_string,
    write_rules,
)

EXAMPLE = """\
# my rules
[[rule]]
decision = "allow"
kind = "execute"
command = "npm test*"
project = "~/src/app"

[[rule]]
decision = "deny"
kind = ["delete", "move"]
paths = [".git/**", "*.lock"]
"""


def test_the_example_reads() -> None:
    rules = parse_rules(EXAMPLE)
    assert rules == [
        Rule("allow", kinds=("execute",), command="npm test*", project="~/src/app"),
        Rule("deny", kinds=("delete", "move"), paths=(".git/**", "*.lock")),
    ]
    assert [rule.line for rule in rules] == [2, 8]


@given(st.text(max_size=60))
def test_any_string_survives_a_round_trip(text: str) -> None:
    # What the file can hold (lone surrogates cannot be written to any file).
    expected = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    assert tomllib.loads(f"x = {toml_string(text)}")["x"] == expected


glob = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), min_size=1, max_size=20
).filter(lambda s: s.strip() != "" and ".." not in s.split("/"))
rules = st.builds(
    Rule,
    decision=st.sampled_from(DECISIONS),
    kinds=st.lists(st.sampled_from(ALL_KINDS), unique=True, max_size=3).map(tuple),
    agent=st.none() | glob,
    title=st.none() | glob,
    command=st.none() | glob,
    paths=st.lists(glob, max_size=3).map(tuple),
    project=st.none() | glob.map(lambda s: "/" + s),
)


@settings(max_examples=80)
@given(st.lists(rules, max_size=4))
def test_written_rules_read_back_the_same(written: list[Rule]) -> None:
    assert parse_rules(dump_rules(written)) == written


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('[[rule]]\ndecision = "allow"\nkind = "exec"\n', 3, "unknown kind 'exec'"),
        ('[[rule]]\ndecision = "maybe"\n', 2, "`decision` must be one of allow, deny, ask"),
        ('[[rule]]\nkind = "read"\n', 1, "`decision` must be one of"),
        (
            '[[rule]]\ndecision = "deny"\n\n[[rule]]\ndecision = "allow"\ncolour = 1\n',
            6,
            "`colour`",
        ),
        ('[[rule]]\ndecision = "allow"\ncommand = ""\n', 3, "`command` is empty"),
        ('[[rule]]\ndecision = "allow"\npaths = ["../x"]\n', 3, "`..`"),
        ('[[rule]]\ndecision = "allow"\nproject = "src"\n', 3, "whole path"),
        ('[[rule]]\ndecision = "allow"\nkind = []\n', 3, "non-empty list"),
        ('[[rule]]\ndecision = "allow"\ncommand = "npm test*\n', 3, "not valid TOML"),
        ('[[rule]\ndecision = "allow"\n', 1, "not valid TOML"),
    ],
)
def test_a_mistake_names_its_line(text: str, line: int, words: str) -> None:
    with pytest.raises(RulesFileError) as caught:
        parse_rules(text, path=Path("/c/rules.toml"))
    assert caught.value.line == line
    assert words in str(caught.value)
    assert str(caught.value).startswith(f"/c/rules.toml, line {line}: ")


def test_unknown_top_level_key() -> None:
    with pytest.raises(RulesFileError, match="unknown key `rules`"):
        parse_rules('[[rules]]\ndecision = "allow"\n')


def test_a_project_file_is_its_project(tmp_path: Path) -> None:
    rules = parse_rules('[[rule]]\ndecision = "allow"\nkind = "read"\n', project=tmp_path)
    assert rules[0].project == str(tmp_path)
    with pytest.raises(RulesFileError, match="leave `project` out"):
        parse_rules('[[rule]]\ndecision = "allow"\nproject = "/x"\n', project=tmp_path)
    assert "project" not in dump_rules(rules, in_project=True)


def test_write_then_load(tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "rules.toml"
    written = parse_rules(EXAMPLE)
    data = write_rules(path, written)
    loaded, raw = load_rules(path)
    assert loaded == written and raw == data
    assert all(rule.source == path for rule in loaded)
    # Atomic: no temporary file is left beside it.
    assert sorted(p.name for p in path.parent.iterdir()) == ["rules.toml"]


def test_a_missing_file_is_no_rules(tmp_path: Path) -> None:
    assert load_rules(tmp_path / "none.toml") == ([], None)


def test_writing_keeps_a_linked_file_linked(tmp_path: Path) -> None:
    # A dotfiles setup: the config's rules.toml is a link into another folder.
    target = tmp_path / "dotfiles" / "rules.toml"
    target.parent.mkdir()
    target.write_text("")
    link = tmp_path / "rules.toml"
    link.symlink_to(target)
    write_rules(link, [Rule("deny", kinds=("delete",))])
    assert link.is_symlink()
    assert 'kind = "delete"' in target.read_text()


def test_a_project_file_behind_a_link_leading_out_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    elsewhere = tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / ".acp-tui").symlink_to(elsewhere)
    with pytest.raises(RulesFileError, match="cannot be written"):
        write_rules(project / ".acp-tui" / "rules.toml", [Rule("allow")], project=project)
    assert not (elsewhere / "rules.toml").exists()
    (elsewhere / "rules.toml").write_text('[[rule]]\ndecision = "allow"\n')
    with pytest.raises(RulesFileError, match="cannot be read"):
        load_rules(project / ".acp-tui" / "rules.toml", project=project)


def test_a_fifo_is_never_opened(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    os.mkfifo(path)
    with pytest.raises(RulesFileError, match="cannot be read"):
        load_rules(path)


def test_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_bytes(b'[[rule]]\ndecision = "allow"\ntitle = "\xff"\n')
    with pytest.raises(RulesFileError, match="line 3: is not UTF-8"):
        load_rules(path)
