"""Every mutation of the store goes through the façade and is seen by its change tracking
(issue 16): each public mutation reports a change, any sequence of them reports every change it
made, and no module of acp_tui outside the store writes store state (the run-wide guard of
tests/store_guard.py for attributes, an AST check here for the containers it holds)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.store import PART_RESET, IndexedSession, SessionStore
from acp_tui.text.terminal_screen import TerminalScreen
from tests import store_guard
from tests.store.test_store_properties import params

PACKAGE = Path(__file__).resolve().parents[2] / "acp_tui"

# ----------------------------------------------------------------------------- the guard


def _run_as(module: str, source: str, **names: Any) -> None:
    """Run ``source`` as if it were code of ``module``."""
    exec(compile(source, f"<{module}>", "exec"), {"__name__": module, **names})


@pytest.mark.parametrize(
    ("target", "write"),
    [
        ("session", "target.current_mode_id = None"),
        ("session", "target.title = 'x'"),
        ("entry", "target.version += 1"),
        ("store", "target.held_dropped_by_hand = 1"),
        ("session", "del target.title"),
    ],
)
def test_the_guard_stops_a_write_of_store_state_from_outside_the_store(
    target: str, write: str
) -> None:
    store = SessionStore()
    session = store.register_session("s1")
    entry = store.add_notice("s1", "hello")
    objects = {"session": session, "entry": entry, "store": store}
    with pytest.raises(store_guard.WriteOutsideStore):
        _run_as("acp_tui.ui.widgets.somewhere", write, target=objects[target])
    assert len(store_guard.take()) == 1  # recorded too (in case the caller swallowed it)
    # The same write from the store itself, or from a test's set-up, is allowed.
    _run_as("acp_tui.store.turns", "target.__class__", target=objects[target])
    _run_as("tests.some_test", write, target=objects[target])
    assert store_guard.take() == []


def test_a_property_of_the_facade_is_a_method_of_the_store() -> None:
    store = SessionStore()
    _run_as("acp_tui.session.agent.controller", "store.protocol_version = 2", store=store)
    assert store.protocol_version == 2 and store_guard.take() == []


#: Attributes of SessionState that hold containers: mutating one in place is a write too.
CONTAINERS = {
    "transcript",
    "msg_index",
    "tool_index",
    "config_options",
    "available_modes",
    "additional_dirs",
    "state_detail",
    "_live_at",
}
MUTATING_METHODS = {
    "append",
    "extend",
    "insert",
    "pop",
    "popitem",
    "remove",
    "clear",
    "update",
    "setdefault",
    "sort",
    "reverse",
    "add",
    "discard",
}
#: The store's parts: only the façade talks to them.
INTERNALS = {"_registry", "_reducer", "_turns", "_catalog", "_tracker"}


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _bypasses(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        held: ast.expr | None = None
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in MUTATING_METHODS
        ):
            held = node.func.value
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
            held = node.value
        if isinstance(held, ast.Attribute) and held.attr in CONTAINERS and not _is_self(held.value):
            found.append((node.lineno, ast.unparse(node)))
        if isinstance(node, ast.Attribute) and node.attr in INTERNALS and not _is_self(node.value):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_module_outside_the_store_mutates_what_the_store_holds() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        layer = path.relative_to(PACKAGE).parts[0]
        if layer in ("store", "demo_agent"):  # the demo agent is a program of its own
            continue
        for line, code in _bypasses(ast.parse(path.read_text(encoding="utf-8"))):
            offenders.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {code}")
    assert offenders == []


@pytest.mark.parametrize(
    "code",
    [
        "state.transcript.append(entry)",
        "store.get(sid).msg_index[mid] = entry",
        "del state.tool_index[tid]",
        "state.config_options.clear()",
        "store._turns.prompt_sent(sid)",
    ],
)
def test_the_ast_check_sees_each_kind_of_bypass(code: str) -> None:
    assert _bypasses(ast.parse(code)) != []


# ----------------------------------------------------------------------------- each mutation

SID = "s1"


def _record(sid: str, title: str, first_prompt: str) -> IndexedSession:
    return IndexedSession(
        session_id=sid,
        cwd="/w",
        title=title,
        first_prompt=first_prompt,
        created=1.0,
        updated=2.0,
        mode="code",
        model=None,
    )


def _chunk(sid: str, text: str) -> dict[str, Any]:
    return {
        "sessionId": sid,
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text},
        },
    }


#: Each public mutation of the façade, on a session ``sid`` of a store (see _busy_store).
MUTATIONS: dict[str, Callable[[SessionStore, str], object]] = {
    "apply": lambda s, sid: s.apply(_chunk(sid, "more")),
    "apply_update": lambda s, sid: s.apply_update(
        sid, {"sessionUpdate": "current_mode_update", "currentModeId": "ask"}
    ),
    "apply_many": lambda s, sid: s.apply_many([_chunk(sid, "a"), _chunk(sid, "b")]),
    "register_session": lambda s, sid: s.register_session(f"{sid}-new", cwd="/w", new=True),
    "register_fork": lambda s, sid: s.register_fork(f"{sid}-fork", sid, cwd="/w"),
    "begin_replay": lambda s, sid: s.begin_replay(sid),
    "end_replay": lambda s, sid: s.end_replay(sid, {"modes": {"currentModeId": "ask"}}),
    "prompt_sent": lambda s, sid: s.prompt_sent(sid, "again"),
    "prompt_finished": lambda s, sid: s.prompt_finished(sid, {"stopReason": "end_turn"}),
    "withdraw_prompt": lambda s, sid: s.withdraw_prompt(sid),
    "message_injected": lambda s, sid: s.message_injected(
        sid, [{"type": "text", "text": "steer"}], "m-1"
    ),
    "set_activity": lambda s, sid: s.set_activity(sid, "requires_action"),
    "set_viewing": lambda s, sid: s.set_viewing(sid),
    "add_notice": lambda s, sid: s.add_notice(sid, "Allowed once"),
    "set_current_mode": lambda s, sid: s.set_current_mode(sid, None),
    "set_config_options": lambda s, sid: s.set_config_options(sid, [{"id": "x", "type": "select"}]),
    "set_current_model": lambda s, sid: s.set_current_model(sid, "deep"),
    "set_additional_dirs": lambda s, sid: s.set_additional_dirs(sid, ["/extra"]),
    "set_agent_capabilities": lambda s, sid: s.set_agent_capabilities({"loadSession": True}),
    "pin_title": lambda s, sid: s.pin_title(sid, "Mine"),
    "set_archived": lambda s, sid: s.set_archived(sid, True),
    "apply_list_page": lambda s, sid: s.apply_list_page(
        {"sessions": [{"sessionId": f"{sid}-listed", "cwd": "/w", "title": "L"}]}
    ),
    "apply_index_records": lambda s, sid: s.apply_index_records(
        [_record(f"{sid}-old", "Old", "hi")]
    ),
    "forget": lambda s, sid: s.forget(sid),
    "end_unfinished_tool_calls": lambda s, sid: s.end_unfinished_tool_calls(sid, "cancelled"),
    "end_tool_call": lambda s, sid: s.end_tool_call(sid, "t1", "rejected"),
    "add_shell_run": lambda s, sid: s.add_shell_run(sid, "ls", "/w", TerminalScreen(40)),
    "shell_output": lambda s, sid: s.shell_output(
        sid, s.add_shell_run(sid, "ls", "/w", TerminalScreen(40)), b"a\r\n", exit_code=0
    ),
}
#: What reads (or, for take_changes/subscribe, consumes the changes): no state of its own.
READERS = {
    "agent_terminal",
    "background_work",
    "children",
    "can_archive",
    "can_fork",
    "can_list",
    "can_load",
    "can_resume",
    "can_set_title",
    "capabilities_known",
    "catalog",
    "dirty",
    "get",
    "held_count",
    "held_dropped",
    "list_state",
    "max_held_per_session",
    "max_held_sessions",
    "open_method",
    "protocol_version",
    "search",
    "sessions",
    "shell_records",
    "snapshot",
    "subscribe",
    "take_changes",
    "version",
    "unrouted",
    "left_out",
    "update_kinds",
    "viewing",
}


def _busy_store() -> SessionStore:
    store = SessionStore(clock=lambda: 1_700_000_000.0)
    store.register_session(SID, cwd="/w", response={"modes": {"currentModeId": "code"}})
    store.prompt_sent(SID, "hello")
    store.apply(_chunk(SID, "hi"))
    # A tool call still running: what end_unfinished_tool_calls marks.
    store.apply(
        {
            "sessionId": SID,
            "update": {"sessionUpdate": "tool_call", "toolCallId": "t1", "status": "in_progress"},
        }
    )
    store.take_changes()
    return store


def test_every_public_name_of_the_facade_is_a_known_mutation_or_reader() -> None:
    """A new mutation must be added to MUTATIONS (and so be tested below)."""
    public = {name for name in dir(SessionStore) if not name.startswith("_")}
    assert public == set(MUTATIONS) | READERS


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_each_public_mutation_reports_a_change(name: str) -> None:
    store = _busy_store()
    wakes: list[None] = []
    store.subscribe(lambda: wakes.append(None))
    before = store.snapshot()
    MUTATIONS[name](store, SID)
    assert store.snapshot() != before, "the call must change something for the test to mean it"
    assert store.dirty and wakes == [None]
    assert store.take_changes()


# ----------------------------------------------------------------------------- any sequence

SIDS = ["s1", "s2"]
facade_op = st.one_of(
    st.tuples(st.just("apply"), params),
    st.tuples(st.sampled_from(sorted(MUTATIONS)), st.sampled_from(SIDS)),
    st.tuples(st.just("take"), st.just("")),
)


def _entries(state: dict[str, Any]) -> dict[int, Any]:
    return {e["id"]: e for e in state["transcript"]}


@settings(max_examples=200, deadline=None)
@given(st.lists(facade_op, max_size=30))
def test_any_sequence_of_mutations_reports_every_change_it_makes(
    ops: list[tuple[str, Any]],
) -> None:
    """What changed in a session is in the changes taken next: the session (or the catalog),
    and each entry added or changed (or the whole transcript, reset)."""
    store = _busy_store()
    shown = store.snapshot()["sessions"]
    for name, arg in ops:
        if name == "take":
            continue
        if name == "apply":
            store.apply(arg)
        else:
            MUTATIONS[name](store, arg)
        changes = store.take_changes()
        now = store.snapshot()["sessions"]
        for sid, state in now.items():
            if state == shown.get(sid):
                continue
            assert sid in changes.sessions or changes.catalog_changed, (name, sid)
            if PART_RESET in changes.parts(sid):
                continue
            before = _entries(shown.get(sid) or {"transcript": []})
            for entry_id, entry in _entries(state).items():
                if before.get(entry_id) != entry:
                    assert entry_id in changes.entries.get(sid, set()), (name, sid, entry)
        if set(shown) - set(now):
            assert changes.catalog_changed
        shown = now
