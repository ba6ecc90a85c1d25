"""Local SQLite index: per-agent, upserts, corrupt file moved aside, never raises."""

from __future__ import annotations

from pathlib import Path

from acp_tui.store import LocalIndex, SessionStore


def test_remember_and_list_per_agent(tmp_path: Path) -> None:
    path = tmp_path / "data" / "sessions.sqlite3"
    with LocalIndex(path, "claude-code-acp") as a, LocalIndex(path, "gemini --acp") as b:
        assert a.warnings == [] and a.ok
        assert a.remember("s1", cwd="/p", title="One", created=10.0, updated=10.0)
        assert a.remember("s2", cwd="/q", updated=20.0, mode="code", model="m1")
        assert b.remember("s3", cwd="/p", updated=5.0)
        assert [s.session_id for s in a.sessions()] == ["s2", "s1"]
        assert [s.session_id for s in a.sessions(cwd="/p")] == ["s1"]
        assert [s.session_id for s in b.sessions()] == ["s3"]
        # partial update keeps other fields, updated only moves forward
        assert a.remember("s1", title="Renamed", mode="ask", updated=30.0)
        s1 = a.get("s1")
        assert s1 is not None
        assert (s1.cwd, s1.title, s1.mode, s1.created, s1.updated) == (
            "/p",
            "Renamed",
            "ask",
            10.0,
            30.0,
        )
        assert a.forget("s2") and a.get("s2") is None
    # persisted across opens
    with LocalIndex(path, "claude-code-acp") as again:
        assert [s.session_id for s in again.sessions()] == ["s1"]


def test_remember_session_state(tmp_path: Path) -> None:
    store = SessionStore(clock=lambda: 123.0)
    s = store.register_session(
        "abc",
        cwd="/w",
        response={
            "modes": {"currentModeId": "code", "availableModes": []},
            "configOptions": [
                {"id": "m", "name": "Model", "category": "model", "currentValue": "opus"}
            ],
        },
    )
    store.prompt_sent("abc", "first prompt")
    with LocalIndex(tmp_path / "i.db", "agent") as idx:
        assert idx.remember_session(s)
        row = idx.get("abc")
        assert row is not None
        assert (row.cwd, row.mode, row.model, row.first_prompt) == (
            "/w",
            "code",
            "opus",
            "first prompt",
        )


def test_corrupt_file_is_moved_aside_and_fresh_db_created(tmp_path: Path) -> None:
    path = tmp_path / "sessions.sqlite3"
    path.write_bytes(b"this is definitely not a sqlite database" * 100)
    idx = LocalIndex(path, "agent")
    assert idx.warnings, "corruption must be reported"
    aside = list(tmp_path.glob("sessions.sqlite3.corrupt-*"))
    assert len(aside) == 1
    assert aside[0].read_bytes().startswith(b"this is definitely")
    assert idx.ok
    assert idx.remember("s", cwd="/p")
    assert [s.session_id for s in idx.sessions()] == ["s"]
    idx.close()


def test_wrong_schema_is_treated_as_corrupt(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "s.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE sessions (x INTEGER)")
    conn.commit()
    conn.close()
    idx = LocalIndex(path, "agent")
    assert idx.warnings and idx.ok
    assert idx.remember("s")
    idx.close()


def test_unusable_location_falls_back_to_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    idx = LocalIndex(blocker / "sub" / "s.db", "agent")  # parent is a file: cannot create
    assert idx.warnings and idx.in_memory and not idx.ok
    assert idx.remember("s")
    assert [s.session_id for s in idx.sessions()] == ["s"]
    idx.close()


def test_closed_index_does_not_raise(tmp_path: Path) -> None:
    idx = LocalIndex(tmp_path / "s.db", "agent")
    idx.close()
    assert idx.remember("s") is False
    assert idx.sessions() == []
    assert idx.forget("s") is False
    assert idx.warnings


def test_a_write_does_not_wait_for_the_disk(tmp_path: Path) -> None:
    """The chat screen remembers sessions on its event loop at every turn boundary: commits
    go to the write-ahead log without an fsync (synchronous=NORMAL, consistent in WAL mode),
    and what was written is there for the next run."""
    path = tmp_path / "index.db"
    with LocalIndex(path, "agent") as index:
        assert index._conn is not None
        assert index._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert index._conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert index.remember("s1", title="kept")
    with LocalIndex(path, "agent") as index:
        assert [session.title for session in index.sessions()] == ["kept"]
