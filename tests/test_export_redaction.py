"""A redacted export (Markdown and HTML) of a transcript with planted secrets contains none
of them, lists each as a finding with where it was, keeps what the person undid, and says at
its top that it was redacted and by which rules. The HTML page is self-contained and shows
agent text as text."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from acp_tui.session.export.html_page import transcript_html
from acp_tui.session.export.markdown import transcript_markdown, write_export
from acp_tui.store import SessionStore
from acp_tui.store.session import SessionState
from acp_tui.text.redaction import EMAIL, HOME, PATTERN, PRIVATE_KEY, SECRET, Redactor

KEY = "sk-proj-" + "Ab3dEf9hIj2lMn5pQr8tUv1xYz4" * 2
GITHUB = "ghp_" + "Zq7Xw2Ve9Rt4Yu6Io1Pa3Sd5Fg8Hj0Kl3Mn"
PEM_BODY = "MIIEowIBAAKCAQEAx3+abcDEFghiJKLmnoPQRstUVwxyz0123456789+/ABCDEFGH\n" * 3
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}-----END RSA PRIVATE KEY-----"
MAIL = "ann.lee@example.org"
OTHER_HOME = "/home/bob"


def planted(home: str) -> SessionState:
    """A session whose message, reply, tool call (title, command, diff, output) and plan
    carry the planted secrets."""
    store = SessionStore(clock=lambda: 1000.0)
    store.register_session("s", cwd=f"{home}/proj")
    store.prompt_sent("s", f"deploy with {KEY} and mail {MAIL} about ACME-12345")

    def update(fields: dict[str, object]) -> None:
        store.apply({"sessionId": "s", "update": fields})

    update(
        {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": f"Found `{GITHUB}` in {OTHER_HOME}/.netrc"},
        }
    )
    update(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "t",
            "title": f"cat {home}/.ssh/id_rsa",
            "kind": "read",
            "status": "completed",
            "rawInput": {"command": f"cat {home}/.ssh/id_rsa"},
            "content": [
                {"type": "content", "content": {"type": "text", "text": PEM}},
                {
                    "type": "diff",
                    "path": f"{home}/proj/.env",
                    "oldText": "A=1\n",
                    "newText": f"A=1\nGITHUB_TOKEN={GITHUB}\n",
                },
            ],
        }
    )
    update(
        {
            "sessionUpdate": "plan",
            "entries": [{"content": f"write to {MAIL}", "priority": "low", "status": "pending"}],
        }
    )
    state = store.get("s")
    assert state is not None
    return state


SECRETS = [KEY, GITHUB, "MIIEowIBAAKCAQEA", MAIL, OTHER_HOME, "ACME-12345"]


def redactor(home: str) -> Redactor:
    return Redactor({"ticket": re.compile(r"ACME-\d{4,}")}, home=home)


@pytest.mark.parametrize("render", [transcript_markdown, transcript_html])
def test_the_redacted_export_holds_none_of_the_planted_secrets(render: object) -> None:
    home = "/home/carol"
    engine = redactor(home)
    text = render(planted(home), redactor=engine)  # type: ignore[operator]
    for secret in [*SECRETS, home]:
        assert secret not in text
    kinds = {f.kind for f in engine.findings}
    assert kinds == {SECRET, PRIVATE_KEY, EMAIL, HOME, PATTERN}
    assert "Redacted by acp-tui" in text
    for rule in ("private keys", "e-mail addresses", "home directories", "config pattern"):
        assert rule in text
    # Where each was: the entry and what part of it.
    where = {f.where for f in engine.findings}
    assert "entry 1 (your message)" in where and "entry 3 (tool output)" in where
    assert "entry 3 (diff)" in where and "directory" in where


def test_the_note_is_at_the_top_and_an_unredacted_export_has_none() -> None:
    home = "/home/carol"
    lines = transcript_markdown(planted(home), redactor=redactor(home)).split("\n")
    assert lines[0].startswith("# ") and lines[2].startswith("> **Redacted by acp-tui**")
    plain = transcript_markdown(planted(home))
    assert "Redacted" not in plain and KEY in plain and MAIL in plain


def test_what_the_person_undid_is_written_as_it_was() -> None:
    home = "/home/carol"
    engine = redactor(home)
    state = planted(home)
    transcript_markdown(state, redactor=engine)
    mails = [f for f in engine.findings if f.kind == EMAIL]
    engine.reset(undone=mails)
    text = transcript_markdown(state, redactor=engine)
    assert MAIL in text and KEY not in text and GITHUB not in text
    assert f"{len(mails)} left as written by the person" in text


def test_the_html_page_loads_nothing_and_shows_agent_html_as_text() -> None:
    store = SessionStore(clock=lambda: 1000.0)
    store.register_session("s", cwd="/w")
    store.prompt_sent("s", "<script>alert(1)</script>")
    store.apply(
        {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {
                    "type": "text",
                    "text": '![x](https://tracker.example/p.png) <img src="https://e.example/i">'
                    " [run](javascript:alert(1)) <style>body{display:none}</style>",
                },
            },
        }
    )
    state = store.get("s")
    assert state is not None
    page = transcript_html(state)
    body = page.split("<body>", 1)[1]
    assert "<script" not in body and "<img" not in body and "<style" not in body
    assert "&lt;script&gt;" in body and "&lt;img" in body
    assert not [href for href in re.findall(r'href="([^"]*)"', body) if "javascript" in href]
    # Nothing is fetched: no src, no stylesheet link, and a policy that forbids it anyway.
    tags = re.findall(r"<[a-zA-Z][^>]*>", page)
    assert not [tag for tag in tags if re.search(r"\s(src|srcset|background)=", tag)]
    assert not [tag for tag in tags if tag.startswith(("<link", "<img", "<iframe", "<object"))]
    assert "default-src 'none'" in page


def test_a_redacted_export_is_written_0600_named_without_the_secret(tmp_path: Path) -> None:
    home = "/home/carol"
    engine = redactor(home)
    state = planted(home)
    state.title = f"fix {KEY}"
    text = transcript_html(state, redactor=engine)
    title = Redactor(engine.patterns, home=home).scrub(state.display_title, "title")
    path = write_export(tmp_path / "exports", state, text, ".html", title=title)
    assert path.suffix == ".html" and KEY[:12] not in path.name
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert KEY not in path.read_text(encoding="utf-8")
