"""Strings that cannot be encoded (issue 17): a lone surrogate is valid JSON ("\\ud800") and
valid in a Python str, but no file, database or terminal can take it. One in a session title
made every later refresh fail (the local index raised on it) and cut headless stdout short
with exit 0. Every string written to disk or stdout is made encodable first."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_tui.cli.headless import Output
from acp_tui.config.history import InputHistory
from acp_tui.store import SessionStore
from acp_tui.store.local_index import LocalIndex
from acp_tui.text.safety import encodable, sanitize_terminal_text

LONE = "\ud800"
TITLE = f"Title with a lone {LONE} surrogate"
# Everything a str can hold, lone surrogates included.
any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=40) | st.builds(
    lambda a, b: a + LONE + b + "\udfff", st.text(max_size=5), st.text(max_size=5)
)


@given(any_text, st.sampled_from(["utf-8", "ascii", "latin-1", None, "no-such-codec"]))
def test_encodable_text_encodes_and_keeps_what_it_can(text: str, encoding: str | None) -> None:
    safe = encodable(text, encoding)
    codec = encoding if encoding in ("utf-8", "ascii", "latin-1") else "utf-8"
    safe.encode(codec)  # never raises
    assert len(safe) == len(text)
    try:
        text.encode(codec)
    except UnicodeEncodeError:
        return
    assert safe == text  # what was encodable is untouched


def test_a_lone_surrogate_becomes_the_replacement_character() -> None:
    assert encodable(TITLE) == TITLE.replace(LONE, "\ufffd")
    assert sanitize_terminal_text(f"a{LONE}b\nc\x1b[31m") == "a\ufffdb\nc"


def test_the_local_index_stores_a_title_with_a_lone_surrogate(tmp_path: Path) -> None:
    index = LocalIndex(tmp_path / "sessions.sqlite3", "agent")
    store = SessionStore()
    state = store.register_session(f"id-{LONE}", cwd=str(tmp_path))
    store.apply(
        {"sessionId": state.id, "update": {"sessionUpdate": "session_info_update", "title": TITLE}}
    )
    assert index.remember_session(state) is True, index.warnings
    assert index.warnings == []
    remembered = index.get(state.id)
    assert remembered is not None and remembered.title == encodable(TITLE)
    assert index.forget(state.id) and index.get(state.id) is None


def test_the_local_index_never_raises_on_what_sqlite_refuses(tmp_path: Path) -> None:
    index = LocalIndex(tmp_path / "sessions.sqlite3", "agent")
    assert index.remember("s", title="nul \0 inside", updated=1e400) in (True, False)
    assert index.remember("s2", updated=float(10**300)) in (True, False)
    index.sessions()


def test_the_history_saves_a_prompt_with_a_lone_surrogate(tmp_path: Path) -> None:
    history = InputHistory(tmp_path / "history.jsonl")
    history.append(f"/cmd-{LONE} from an agent's command list")
    assert history.save() is True
    lines = (tmp_path / "history.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["text"] == "/cmd-\ufffd from an agent's command list"


@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])
def test_headless_stdout_takes_a_lone_surrogate_and_goes_on(encoding: str) -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding=encoding, errors="strict", write_through=True)
    output = Output(stream, io.StringIO())
    output.text(f"before {LONE} middle é ")
    output.write_raw(f"table {LONE}\n")
    output.text("after")
    assert not output.broken
    text = raw.getvalue().decode(encoding)
    assert text.startswith("before ") and "middle" in text and text.endswith("after")
