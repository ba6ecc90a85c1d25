"""``acp-tui search``: the index headless (words, filters, --json, inert output), forgetting a
session, and --reindex from real agents (the official SDK's, and one with index = false)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from acp_tui.cli.main import main
from acp_tui.config import locations
from acp_tui.store.search_index import EntryRow, SearchIndex, SessionRow
from acp_tui.store.search_query import parse_query

AGENTS = Path(__file__).resolve().parent / "agents"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("ACP_TUI_CONFIG", str(tmp_path / "config.toml"))
    return tmp_path


def _fill() -> None:
    index = SearchIndex(locations.search_index_file())
    index.write(
        [
            (
                "put",
                SessionRow("config:claude", "claude", "c1", "/home/me/shop", "Cart \x1b[31mred"),
                [
                    EntryRow(0, "user", 1_000.0, "where is the quokka \x1b]0;pwned\x07 [b]x[/b]"),
                    EntryRow(1, "agent", 1_000.0, "no idea"),
                ],
                None,
            ),
            (
                "put",
                SessionRow("config:codex", "codex", "x1", "/srv/blog", "Blog"),
                [EntryRow(0, "agent", 2_000.0, "a quokka on the blog")],
                None,
            ),
        ]
    )
    index.close()


def test_words_are_found_and_printed_inert(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fill()
    assert main(["search", "quokka"]) == 0
    out = capsys.readouterr().out
    assert "claude · Cart" in out and "codex · Blog" in out
    assert "session c1 · entry 0 (user)" in out
    assert "\x1b" not in out and "\x07" not in out
    assert "[b]x[/b]" in out


def test_json_and_the_agent_filter(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fill()
    assert main(["search", "quokka", "--agent", "codex", "--json"]) == 0
    [hit] = json.loads(capsys.readouterr().out)
    assert (hit["label"], hit["session_id"], hit["position"]) == ("codex", "x1", 0)
    assert hit["snippet"][slice(*hit["spans"][0])] == "quokka"
    assert main(["search", "quokka", "in:shop", "--json"]) == 0
    assert [h["session_id"] for h in json.loads(capsys.readouterr().out)] == ["c1"]


def test_nothing_found_exits_1_and_no_words_is_a_usage_error(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill()
    assert main(["search", "wombat"]) == 1
    assert "Nothing found" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["search"])
    assert exited.value.code == 2


def test_a_session_forgotten_is_found_no_more(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill()
    assert main(["search", "--forget", "c1"]) == 0
    assert "Forgotten: session c1 of claude" in capsys.readouterr().out
    assert main(["search", "quokka", "--json"]) == 0
    assert [h["session_id"] for h in json.loads(capsys.readouterr().out)] == ["x1"]
    assert main(["search", "--forget", "c1"]) == 1


def test_stats(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fill()
    assert main(["search", "--stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["sessions"], stats["entries"]) == (2, 3) and stats["bytes"] > 0


def test_reindex_loads_every_session_of_each_agent_and_skips_index_false(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = data / "sdk-state"
    state.mkdir()
    sdk = f"{sys.executable!r}".replace("'", '"')
    (data / "config.toml").write_text(
        f"""
[agents.sdk]
command = {sdk}
args = ["{AGENTS / "sdk_agent.py"}"]
cwd = "{data}"
env = {{ SDK_AGENT_STATE_DIR = "{state}" }}

[agents.private]
command = {sdk}
args = ["{AGENTS / "sdk_agent.py"}"]
index = false
""",
        encoding="utf-8",
    )
    # What the index held of the private agent goes; nothing of it comes in.
    index = SearchIndex(locations.search_index_file())
    index.write(
        [
            (
                "put",
                SessionRow("config:private", "private", "p1", "/p", "t"),
                [EntryRow(0, "user", 1.0, "secret answer")],
                None,
            )
        ]
    )
    index.close()
    assert main(["search", "--reindex", "--json"]) == 0
    report = {item["agent"]: item for item in json.loads(capsys.readouterr().out)}
    assert report["private"] == {"agent": "private", "skipped": "index = false", "forgotten": 1}
    assert report["sdk"]["loaded"] >= 3
    index = SearchIndex(locations.search_index_file())
    hits = index.search(parse_query("answer "), limit=50)
    index.close()
    assert {h.label for h in hits} == {"sdk"}
    assert {"pre-1", "pre-2", "pre-3"} <= {h.session_id for h in hits}
    assert all(h.kind == "agent" for h in hits)
