"""Elicitation without a screen: the requested schema as fields, what the person entered
checked field by field, and answers shaped as the schema says."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import tracemalloc
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.demo_agent import elicit as demo
from acp_tui.session.asking.elicitation import (
    ACCEPT,
    BOOLEAN,
    CANCEL,
    CHOICE,
    DECLINE,
    INTEGER,
    MAX_FORM_CHOICES,
    MAX_FORM_FIELDS,
    MULTI,
    NUMBER,
    TEXT,
    UNSUPPORTED,
    ElicitationError,
    answer,
    build_content,
    initial_values,
    parse_request,
)
from tests.demo_agent import schema_check


def form(schema: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "sessionId": "s",
        "mode": "form",
        "message": "Tell me",
        "requestedSchema": schema,
        **extra,
    }


def demo_form() -> dict[str, Any]:
    return form(copy.deepcopy(demo.FORM_SCHEMA))


def test_every_field_kind_of_the_demo_form_is_read_with_its_defaults() -> None:
    request = parse_request(demo_form())
    kinds = {f.name: (f.kind, f.required, f.default) for f in request.fields}
    assert kinds == {
        "name": (TEXT, True, None),
        "email": (TEXT, False, None),
        "birthday": (TEXT, False, None),
        "homepage": (TEXT, False, "https://agentclientprotocol.com"),
        "temperature": (NUMBER, False, 21.5),
        "cups": (INTEGER, True, 2),
        "newsletter": (BOOLEAN, False, False),
        "color": (CHOICE, True, "green"),
        "editor": (CHOICE, False, None),
        "languages": (MULTI, True, ["python"]),
        "snacks": (MULTI, False, None),
    }
    editor = next(f for f in request.fields if f.name == "editor")
    assert [(c.value, c.title) for c in editor.choices][:2] == [("vim", "Vim"), ("emacs", "Emacs")]
    assert request.title == "About you" and request.message == "Tell me"


def test_the_defaults_alone_plus_a_name_are_an_answer_the_demo_agent_accepts() -> None:
    request = parse_request(demo_form())
    entered = initial_values(request.fields) | {"name": "Ada"}
    content, problems = build_content(request.fields, entered)
    assert problems == {}
    assert content["name"] == "Ada" and content["cups"] == 2 and content["languages"] == ["python"]
    assert "email" not in content  # optional and empty: left out, not sent as ""
    assert demo.problems(content) == []


@pytest.mark.parametrize(
    ("name", "typed", "message"),
    [
        ("name", "", "required"),
        ("name", "x" * 41, "at most 40 characters"),
        ("email", "not-an-address", "not an email address"),
        ("birthday", "31/01/2026", "not a date (YYYY-MM-DD)"),
        ("homepage", "no scheme", "not a URI (e.g. https://example.com)"),
        ("temperature", "40", "at most 30"),
        ("temperature", "warm", "not a number"),
        ("temperature", "nan", "not a number"),
        ("cups", "2.5", "not a whole number"),
        ("cups", "-1", "at least 0"),
        ("cups", "", "required"),
        ("color", None, "choose one"),
        ("color", "purple", "not one of the choices"),
        ("languages", [], "choose at least 1"),
        ("languages", ["python", "rust", "go", "c"], "choose at most 3"),
    ],
)
def test_what_does_not_fit_is_said_at_its_field(name: str, typed: Any, message: str) -> None:
    request = parse_request(demo_form())
    entered = initial_values(request.fields) | {"name": "Ada", name: typed}
    content, problems = build_content(request.fields, entered)
    assert problems == {name: message}
    assert name not in content


def test_a_date_time_is_checked_and_a_pattern_is_shown_not_run() -> None:
    """Round 3 of issue 17: the agent's ``pattern`` is a regular expression, that is code; one
    with nested repeats on the default text it gave held the event loop for ever (the whole
    app, every agent's view and Ctrl+Q). The hint shows it as text; the agent checks it."""
    request = parse_request(
        form(
            {
                "properties": {
                    "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
                    "when": {"type": "string", "format": "date-time"},
                    "odd": {"type": "string", "pattern": "(unclosed\n[b]x\x1b[2J"},
                }
            }
        )
    )
    _, problems = build_content(request.fields, {"code": "abc", "when": "tomorrow", "odd": "x"})
    assert problems == {"when": "not a date and time (e.g. 2026-01-31T09:30:00Z)"}
    content, problems = build_content(
        request.fields, {"code": "ABC", "when": "2026-01-31T09:30:00Z", "odd": "x"}
    )
    assert problems == {} and content == {"code": "ABC", "when": "2026-01-31T09:30:00Z", "odd": "x"}
    hints = [f.hint() for f in request.fields]
    assert hints[0] == "matching ^[A-Z]{3}$"
    assert hints[2] == "matching (unclosed [b]x"


def test_a_catastrophic_pattern_on_its_own_default_does_not_hang() -> None:
    """The form as a hostile agent sends it: submitting its default must come back (run in a
    child process, so a regression fails here instead of hanging the suite)."""
    script = (
        "from acp_tui.session.asking.elicitation import build_content, initial_values, parse_request\n"
        "import json, sys\n"
        "request = parse_request(json.loads(sys.argv[1]))\n"
        "print(build_content(request.fields, initial_values(request.fields)))\n"
    )
    schema = {
        "properties": {
            "name": {"type": "string", "pattern": "^(a+)+$", "default": "a" * 64 + "!"},
            "other": {"type": "string", "pattern": "^(a|aa)*b$", "default": "a" * 64},
        }
    }
    result = subprocess.run(
        [sys.executable, "-c", script, json.dumps(form(schema))],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "'name': 'aaaa" in result.stdout


def test_defaults_of_the_wrong_type_and_unknown_choices_are_not_trusted() -> None:
    request = parse_request(
        form(
            {
                "properties": {
                    "a": {"type": "string", "enum": ["x", "y"], "default": "z"},
                    "b": {"type": "integer", "default": 2.5},
                    "c": {"type": "boolean", "default": "yes"},
                    "d": {"type": "array", "items": {"enum": ["p"]}, "default": ["p", "q", 3]},
                    "e": {"type": "string", "oneOf": [{"title": "no const"}, {"const": "k"}]},
                }
            }
        )
    )
    defaults = {f.name: f.default for f in request.fields}
    assert defaults == {"a": None, "b": None, "c": None, "d": ["p"], "e": None}
    e = next(f for f in request.fields if f.name == "e")
    assert [(c.value, c.title) for c in e.choices] == [("k", "k")]


def test_a_property_type_this_client_cannot_ask_for_blocks_accept_only_when_required() -> None:
    request = parse_request(
        form(
            {
                "properties": {"opt": {"type": "_vendor"}, "req": {"type": "object"}},
                "required": ["req"],
            }
        )
    )
    assert [f.kind for f in request.fields] == [UNSUPPORTED, UNSUPPORTED]
    content, problems = build_content(request.fields, {})
    assert content == {}
    assert problems == {"req": "acp-tui cannot ask for a value of type 'object': decline instead"}


@pytest.mark.parametrize(
    ("params", "why"),
    [
        ({"mode": "_vendor", "message": "m", "sessionId": "s"}, "mode '_vendor'"),
        ({"mode": "form", "message": "m", "sessionId": "s"}, "no requestedSchema"),
        (form({"type": "array"}), "not of type object"),
        (form({"properties": []}), "properties are not an object"),
        ({"mode": "url", "message": "m", "elicitationId": "e"}, "has no url"),
        ({"mode": "url", "message": "m", "url": "https://x"}, "no elicitationId"),
        ("not an object", "not an object"),
    ],
)
def test_a_request_that_cannot_be_shown_says_why(params: Any, why: str) -> None:
    with pytest.raises(ElicitationError, match=why):
        parse_request(params)


def _fields(count: int, **schema: Any) -> dict[str, Any]:
    return {f"f{n}": {"type": "string", **schema} for n in range(count)}


def test_a_form_too_big_to_show_is_refused_saying_how_big() -> None:
    """A form of 5,000 fields took a minute and 1.1 GB to draw: more than MAX_FORM_FIELDS
    fields, or MAX_FORM_CHOICES choices in all, is refused, and the message says why."""
    assert len(parse_request(form({"properties": _fields(MAX_FORM_FIELDS)})).fields) == 50
    with pytest.raises(ElicitationError, match=r"has 5,000 fields; .* at most 50"):
        parse_request(form({"properties": _fields(5_000)}))
    few = [f"v{n}" for n in range(MAX_FORM_CHOICES // 4)]
    many = [f"w{n}" for n in range(MAX_FORM_CHOICES + 1)]
    assert parse_request(form({"properties": _fields(4, enum=few)})).fields[0].kind == CHOICE
    with pytest.raises(ElicitationError, match="more than 2,000 choices"):
        parse_request(form({"properties": _fields(5, enum=few)}))
    with pytest.raises(ElicitationError, match="more than 2,000 choices"):
        parse_request(form({"properties": {"many": {"type": "array", "items": {"enum": many}}}}))


def test_a_choice_list_of_a_million_is_refused_without_reading_it_all() -> None:
    values = [f"v{n}" for n in range(1_000_000)]
    tracemalloc.start()
    try:
        with pytest.raises(ElicitationError, match="choices"):
            parse_request(form({"properties": {"pick": {"type": "string", "enum": values}}}))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000


def test_a_mode_not_advertised_is_refused() -> None:
    with pytest.raises(ElicitationError, match="mode 'url'"):
        parse_request(
            {"mode": "url", "message": "m", "url": "https://x", "elicitationId": "e"}, {"form"}
        )


@pytest.mark.parametrize(
    ("url", "openable", "host"),
    [
        ("https://example.com/a?b=c", True, "example.com"),
        ("HTTP://Example.com:8080", True, "example.com"),
        ("https://trusted.com@evil.example/login", True, "evil.example"),
        # Round 3: what a browser does that a plain split did not (the dialog named the
        # trusted host, or none, and the browser went to evil.example).
        ("https://evil.example\\@trusted.com/", True, "evil.example"),
        ("https:\\\\evil.example\\login", True, "evil.example"),
        ("https:evil.example/login", True, "evil.example"),
        ("https:///evil.example", True, "evil.example"),
        ("  https://evil.exa\tmple/", True, "evil.example"),
        ("https://evil.example\n/@trusted.com", True, "evil.example"),
        ("https://\u0430pple.com/", True, "xn--pple-43d.com"),
        ("javascript:alert(1)", False, ""),
        ("file:///etc/passwd", False, ""),
        ("example.com/no-scheme", False, ""),
    ],
)
def test_only_http_addresses_may_be_opened_and_the_real_host_is_shown(
    url: str, openable: bool, host: str
) -> None:
    request = parse_request({"mode": "url", "message": "m", "url": url, "elicitationId": "e"})
    assert request.openable is openable
    assert request.host == host


@pytest.mark.parametrize(
    "result",
    [
        answer(ACCEPT, {"name": "Ada", "cups": 2, "ok": True, "langs": ["go"], "t": 21.5}),
        answer(ACCEPT),
        answer(DECLINE),
        answer(CANCEL),
        answer(DECLINE, {"ignored": 1}),
    ],
)
def test_answers_are_what_the_schema_says(result: dict[str, Any]) -> None:
    schema_check.check(result, "CreateElicitationResponse")
    if result["action"] != ACCEPT:
        assert "content" not in result


_ENTRY = st.one_of(
    st.none(),
    st.booleans(),
    st.text(max_size=50),
    st.sampled_from(["", "2", "2.5", "-3", "21.5", "1e3", "ada@example.com", "2026-02-30"]),
    st.lists(st.sampled_from(["python", "rust", "go", "typescript", "c", "nuts", "cobol"])),
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(list(demo.FORM_SCHEMA["properties"])), _ENTRY))
def test_whatever_the_form_lets_through_the_agent_finds_valid(entered: dict[str, Any]) -> None:
    """The class of the problem: the form never accepts what the schema forbids (checked by
    the demo agent's own validator, written apart from the client's)."""
    request = parse_request(demo_form())
    content, problems = build_content(request.fields, initial_values(request.fields) | entered)
    if not problems:
        assert demo.problems(content) == []
        schema_check.check(answer(ACCEPT, content), "CreateElicitationResponse")
