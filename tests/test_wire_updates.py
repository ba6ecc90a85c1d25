"""The ``session/update`` kinds as the client takes them (``acp_tui.wire.updates``) and the one
coercion step before the store's handlers (``acp_tui.wire.coerce``).

- Every shape is read from a schema definition: each field it declares is one of that
  definition's (v1, v1 unstable or the v2 draft), with a compatible type.
- Every kind the store routes has a shape, and what its coercer returns is that shape: for a
  well-formed update and for each field of it missing or of another JSON type, the coercer
  either raises (the store shows an unknown update naming the field) or returns a value of
  exactly the declared types. So a handler never meets a value its type does not say.
"""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_tui.store import SessionStore, UnknownUpdate
from acp_tui.wire import updates
from acp_tui.wire.constants import UpdateKind
from acp_tui.wire.fields import LeftOut
from tests.test_schema import compatibility_problems

SCHEMAS = Path(__file__).parent / "data" / "acp-schema"


def _defs(path: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / path).read_text())["$defs"]


#: Where a shape's definition is looked for, in order.
DEFINITIONS = [
    _defs("v1/schema.json"),
    _defs("v1/schema.unstable.json"),
    _defs("v2/schema.json"),
    # What the pages defined after the schema kept here (prompt suggestions...).
    json.loads((SCHEMAS / "newer.json").read_text())["v1"]["$defs"],
    json.loads((SCHEMAS / "newer.json").read_text())["v2"]["$defs"],
]
#: Fields the client reads that no schema has: the v2 RFD's spelling of ``stopReason``.
NOT_IN_ANY_SCHEMA = {("StateUpdate", "stop_reason")}

SHAPES = sorted(
    (obj for obj in vars(updates).values() if is_typeddict(obj)), key=lambda cls: cls.__name__
)


def schema_properties(name: str) -> dict[str, Any]:
    """The properties of the definition ``name``, with those of its union's variants, in
    every schema that defines it (a field v2 added to a v1 shape: ``background``); the first
    schema's spelling of a field wins."""
    found: dict[str, Any] = {}
    for defs in DEFINITIONS:
        if name in defs:
            found = {**_properties(defs, defs[name]), **found}
    if not found and not any(name in defs for defs in DEFINITIONS):
        raise AssertionError(f"no schema defines {name}")
    return found


def _properties(defs: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    found = dict(node.get("properties", {}))
    for part in node.get("allOf", []) + node.get("anyOf", []) + node.get("oneOf", []):
        ref = part.get("$ref")
        if isinstance(ref, str):
            found.update(_properties(defs, defs[ref.rsplit("/", 1)[-1]]))
        found.update(_properties(defs, part))
    return found


def test_there_is_a_shape_for_every_kind_the_store_routes() -> None:
    routed = SessionStore().update_kinds
    tagged = {
        kind
        for shape in SHAPES
        if "sessionUpdate" in get_type_hints(shape)
        for kind in get_args(get_type_hints(shape)["sessionUpdate"])
    }
    assert tagged == routed
    assert {v for k, v in vars(UpdateKind).items() if k.isupper()} == routed


@pytest.mark.parametrize("shape", SHAPES, ids=lambda cls: cls.__name__)
def test_every_field_of_a_shape_is_its_schema_definitions(shape: type) -> None:
    properties = schema_properties(shape.__name__)
    for field, hint in get_type_hints(shape).items():
        if field == "sessionUpdate" or (shape.__name__, field) in NOT_IN_ANY_SCHEMA:
            continue
        assert field in properties, f"{shape.__name__}.{field} is in no schema"
        if hint is object or hint is Any or is_typeddict(hint):
            continue  # read by a tolerant parser of its own, or a nested shape checked itself
        stable = DEFINITIONS[0].get(shape.__name__)
        if stable is not None and field in _properties(DEFINITIONS[0], stable):
            # The type checker knows the stable schema's fields.
            assert not compatibility_problems(hint, properties[field]), (shape.__name__, field)


# ----------------------------------------------------------------------------- the coercion

#: A well-formed update of each kind, every field the shape declares present.
GOOD: dict[str, dict[str, Any]] = {
    "user_message_chunk": {"content": {"type": "text", "text": "hi"}, "messageId": "m1"},
    "agent_message_chunk": {"content": {"type": "image", "data": "x"}, "messageId": None},
    "agent_thought_chunk": {"content": {"type": "text", "text": "hmm"}},
    "user_message": {"messageId": "m1", "content": [{"type": "text", "text": "hi"}]},
    "agent_message": {"messageId": "m2", "content": None},
    "agent_thought": {"messageId": "m3"},
    "tool_call": {
        "toolCallId": "t1",
        "title": "Read",
        "name": "read",
        "kind": "read",
        "status": "pending",
        "content": [{"type": "content", "content": {"type": "text", "text": "x"}}],
        "locations": [{"path": "/a"}],
        "rawInput": {"path": "/a"},
        "rawOutput": "x",
        "capabilities": {"cancel": {}},
        "_meta": {"k": 1},
    },
    "tool_call_update": {"toolCallId": "t1", "status": "completed", "title": None},
    "tool_call_content_chunk": {"toolCallId": "t1", "content": {"type": "terminal"}},
    "plan": {"entries": [{"content": "a", "status": "pending", "priority": "low"}]},
    "plan_update": {"plan": {"planId": "p", "type": "items", "entries": [{"content": "a"}]}},
    "plan_removed": {"planId": "p"},
    "notice": {"title": "Heads up", "severity": "warning", "description": "more"},
    "compaction_update": {
        "compactionId": "c",
        "status": "completed",
        "summary": [{"type": "text", "text": "s"}],
        "error": None,
        "_meta": {},
    },
    "compaction_summary_chunk": {"compactionId": "c", "content": {"type": "text", "text": "s"}},
    "available_commands_update": {"availableCommands": [{"name": "a", "description": "b"}]},
    "current_mode_update": {"currentModeId": "ask"},
    "config_option_update": {"configOptions": [{"id": "model"}]},
    "session_info_update": {"title": "T", "updatedAt": None, "_meta": {"a": 1}},
    "usage_update": {"used": 1, "size": 2, "cost": {"amount": 1, "currency": "USD"}},
    "replay_complete": {},
    "prompt_suggestions_update": {
        "suggestions": [{"prompt": [{"type": "text", "text": "Run the tests"}]}]
    },
    "state_update": {
        "state": "idle",
        "stopReason": "end_turn",
        "usage": {"totalTokens": 1},
        "background": [{"type": "terminal", "terminalId": "term"}],
    },
    "state_change": {"state": "idle", "stop_reason": "cancelled"},
    "terminal_update": {
        "terminalId": "term",
        "command": "ls",
        "cwd": "/tmp",
        "output": {"data": "aGk="},
        "exitStatus": {"exitCode": 0},
        "capabilities": {"cancel": {}},
    },
    "terminal_output_chunk": {"terminalId": "term", "data": "aGk="},
    "subagent_update": {
        "sessionId": "child",
        "title": "Research",
        "description": "Reads the code",
        "capabilities": {"cancel": {}},
        "state": {"state": "running"},
        "cwd": "/tmp",
        "_meta": {},
    },
    "session_message": {
        "messageId": "m9",
        "senderSessionId": "s",
        "recipientSessionId": None,
        "content": [{"type": "text", "text": "do it"}],
    },
    "session_message_chunk": {"messageId": "m9", "content": {"type": "text", "text": "x"}},
}


@pytest.mark.parametrize(
    "shape", [s for s in SHAPES if "sessionUpdate" in get_type_hints(s)], ids=lambda s: s.__name__
)
def test_the_examples_name_every_field_of_their_shape(shape: type) -> None:
    kinds = get_args(get_type_hints(shape)["sessionUpdate"])
    named = {"sessionUpdate"}.union(*(GOOD[kind] for kind in kinds))
    assert set(get_type_hints(shape)) <= named


#: One value of each JSON type, to put where another is expected.
JSON_VALUES: list[Any] = [None, True, 7, 2.5, "text", "", [], [1, "x"], [{"a": 1}], {}, {"a": 1}]


def conforms(value: Any, hint: Any) -> bool:
    """Whether ``value`` is of the type ``hint`` (the kinds of types the shapes use)."""
    if hint is Any or hint is object:
        return True
    origin = get_origin(hint)
    if origin is Literal:
        return value in get_args(hint)
    if origin in (Union, types.UnionType):
        return any(conforms(value, arm) for arm in get_args(hint))
    if origin is list:
        (item,) = get_args(hint)
        return isinstance(value, list) and all(conforms(v, item) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(isinstance(k, str) for k in value)
    if is_typeddict(hint):
        return isinstance(value, dict) and not shape_problems(value, hint)
    if hint is type(None):
        return value is None
    return type(value) is hint


def shape_problems(value: dict[str, Any], shape: Any) -> list[str]:
    hints = get_type_hints(shape)
    problems = [f"{key} missing" for key in shape.__required_keys__ if key not in value]
    problems += [
        f"{key}: {value[key]!r} is not {hint}"
        for key, hint in hints.items()
        if key in value and not conforms(value[key], hint)
    ]
    return problems


def shape_of(kind: str) -> Any:
    coerce_update, _handle = SessionStore()._reducer.routes[kind]
    return get_type_hints(coerce_update)["return"]


def variants(update: dict[str, Any]) -> list[dict[str, Any]]:
    """The update, and each field of it (also of a nested object) missing or replaced by
    a value of each JSON type."""
    out = [update]
    for key, old in update.items():
        if key == "sessionUpdate":
            continue
        out.append({k: v for k, v in update.items() if k != key})
        out += [{**update, key: value} for value in JSON_VALUES if value != old]
        if isinstance(old, dict):
            out += [{**update, key: inner} for inner in variants(old)[1:]]
    return out


@pytest.mark.parametrize("kind", sorted(GOOD))
def test_a_coercer_returns_its_shape_or_raises_naming_the_field(kind: str) -> None:
    coerce_update, _handle = SessionStore()._reducer.routes[kind]
    shape = shape_of(kind)
    good = {"sessionUpdate": kind, **GOOD[kind]}
    for update in variants(good):
        before = json.dumps(update, sort_keys=True)
        try:
            coerced = coerce_update(update, LeftOut())
        except (KeyError, TypeError, ValueError) as exc:
            assert update is not good, f"{kind}: the well-formed update was refused: {exc}"
            continue
        assert not shape_problems(coerced, shape), (kind, update, shape_problems(coerced, shape))
        assert json.dumps(update, sort_keys=True) == before, "the update itself is not changed"


@pytest.mark.parametrize("kind", sorted(GOOD))
def test_the_store_takes_every_variant_of_every_kind_without_raising(kind: str) -> None:
    """Through the store: a variant it refuses is an unknown update that says why; one it
    takes leaves no unknown entry."""
    good = {"sessionUpdate": kind, **GOOD[kind]}
    for update in variants(good):
        store = SessionStore()
        store.register_session("s", cwd="/tmp")
        store.apply({"sessionId": "s", "update": update})
        unknown = [e for e in store.get("s").transcript if isinstance(e, UnknownUpdate)]
        if update is good:
            assert unknown == []
        for entry in unknown:
            assert entry.error and entry.raw is update


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8))
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(sorted(GOOD)),
    changes=st.dictionaries(st.text(max_size=12), json_value, max_size=4),
    field_names=st.lists(st.sampled_from(sorted({k for u in GOOD.values() for k in u}))),
    values=st.lists(json_value, max_size=4),
)
def test_random_fields_coerce_to_the_shape_or_raise(
    kind: str, changes: dict[str, Any], field_names: list[str], values: list[Any]
) -> None:
    coerce_update, _handle = SessionStore()._reducer.routes[kind]
    update = {**GOOD[kind], **changes, **dict(zip(field_names, values, strict=False))}
    update["sessionUpdate"] = kind
    try:
        coerced = coerce_update(update, LeftOut())
    except (KeyError, TypeError, ValueError):
        return
    assert not shape_problems(coerced, shape_of(kind))


def test_the_check_of_a_shape_catches_a_wrong_value() -> None:
    """The checker itself (so a passing run means the coercers' output was looked at)."""
    shape = updates.ToolCallUpdate
    good = {"sessionUpdate": "tool_call", **GOOD["tool_call"]}
    assert shape_problems(good, shape) == []
    assert shape_problems({**good, "title": 3}, shape)
    assert shape_problems({**good, "content": [1]}, shape)
    assert shape_problems({**good, "sessionUpdate": "plan"}, shape)
    assert shape_problems({k: v for k, v in good.items() if k != "toolCallId"}, shape)
    assert typing.get_type_hints(shape)["toolCallId"] is str
