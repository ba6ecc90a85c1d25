"""The wire declaration (``acp_tui.wire.schema``, ``.content``, ``.client_methods``) against the
official JSON schema.

Every ``TypedDict`` is checked against the schema's definition of the same name: each field the
schema names exists, with a compatible type (the same JSON types, ``null`` when and only when
the schema allows it, the same definition for nested objects, the same values for enumerations)
and the same requiredness. Discriminators (``type``, ``outcome``) that the schema puts on the
union branch are allowed on the variant, as ``Literal`` of the branch's value. The constants
are checked against the schema's enumerations and method names.
"""

from __future__ import annotations

import json
import subprocess
import sys
import types
import typing
from functools import cache
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from acp_tui.wire import client_methods, constants, content, schema, unstable

SCHEMA_DIR = Path(__file__).parent / "data" / "acp-schema" / "v1"
DEFS: dict[str, Any] = json.loads((SCHEMA_DIR / "schema.json").read_text())["$defs"]
UNSTABLE: dict[str, Any] = json.loads((SCHEMA_DIR / "schema.unstable.json").read_text())["$defs"]
SPEC = "https://agentclientprotocol.com/protocol/"

#: The modules that declare the wire's shapes.
DECLARATIONS = (schema, content, client_methods)
TYPED_DICTS = sorted(
    {obj for module in DECLARATIONS for obj in vars(module).values() if is_typeddict(obj)},
    key=lambda cls: cls.__name__,
)


def _ref_name(node: dict[str, Any]) -> str | None:
    ref = node.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _branches(definition: dict[str, Any]) -> list[dict[str, Any]]:
    return definition.get("oneOf") or definition.get("anyOf") or []


def _branch_refs(branch: dict[str, Any]) -> list[str]:
    return [name for part in branch.get("allOf", []) if (name := _ref_name(part))]


@cache
def inline_variants() -> dict[str, tuple[str, dict[str, Any]]]:
    """TypedDicts for union branches the schema declares inline (no definition of their own):
    name → (union definition, branch)."""
    cancelled = next(
        branch
        for branch in _branches(DEFS["RequestPermissionOutcome"])
        if branch["properties"]["outcome"].get("const") == "cancelled"
    )
    return {"CancelledPermissionOutcome": ("RequestPermissionOutcome", cancelled)}


def definition(name: str) -> dict[str, Any]:
    if name in inline_variants():
        return inline_variants()[name][1]
    return DEFS[name]


@cache
def tags_of(name: str) -> dict[str, Any]:
    """The discriminators a union branch puts on the definition ``name`` (``type`` of a content
    block, ...), but not ``sessionUpdate``: those definitions also travel untagged (a
    permission request's ``toolCall``)."""
    tags: dict[str, Any] = {}
    for union in DEFS.values():
        for branch in _branches(union):
            if _branch_refs(branch) != [name]:
                continue
            for key, prop in branch.get("properties", {}).items():
                if "const" in prop and key != "sessionUpdate":
                    tags[key] = prop["const"]
    return tags


def enum_values(name: str) -> set[Any] | None:
    """The values of an enumeration definition (``None`` if ``name`` is not one)."""
    branches = _branches(DEFS[name])
    if branches and all("const" in branch for branch in branches):
        return {branch["const"] for branch in branches}
    return None


def union_members(name: str) -> set[str] | None:
    """The definitions a union of objects is made of (inline branches by their TypedDict)."""
    branches = _branches(DEFS[name])
    if not branches or any("const" in branch for branch in branches):
        return None
    members: set[str] = set()
    for branch in branches:
        refs = _branch_refs(branch) or ([_ref_name(branch)] if _ref_name(branch) else [])
        if refs:
            members.update(refs)
        else:
            members.update(
                inline for inline, (union, b) in inline_variants().items() if union == name
            )
    return members


# A JSON kind: "string", "integer", "number", "boolean", "null", "any", ("array", items),
# ("object", definition or None), ("enum", definition), ("const", value).
Kind = Any


def schema_kinds(node: dict[str, Any]) -> list[Kind]:
    name = _ref_name(node)
    if name is not None:
        target = DEFS[name]
        if enum_values(name) is not None:
            return [("enum", name)]
        if union_members(name) is not None or target.get("type") == "object":
            return [("object", name)]
        return schema_kinds(target)
    if "const" in node:
        return [("const", node["const"])]
    if "allOf" in node and len(node["allOf"]) == 1:
        return schema_kinds(node["allOf"][0])
    if "anyOf" in node or "oneOf" in node:
        return [kind for part in _branches(node) for kind in schema_kinds(part)]
    kind = node.get("type")
    if kind is None:
        return ["any"]
    out: list[Kind] = []
    for each in kind if isinstance(kind, list) else [kind]:
        if each == "array":
            out.append(("array", node.get("items", {})))
        elif each == "object":
            out.append(("object", None))
        else:
            out.append(each)
    return out


def python_members(annotation: Any) -> list[Any]:
    if get_origin(annotation) in (Union, types.UnionType):
        return [m for arg in get_args(annotation) for m in python_members(arg)]
    return [annotation]


def _is_loose_object(member: Any) -> bool:
    return member is dict or get_origin(member) is dict


def accepts(member: Any, kind: Kind) -> bool:
    """Whether the Python type ``member`` is the schema kind ``kind``."""
    if kind == "any":
        return member is Any
    if kind == "null":
        return member is type(None)
    if kind == "string":
        return member is str
    if kind == "integer":
        return member is int
    if kind == "number":
        return member is float
    if kind == "boolean":
        return member is bool
    tag = kind[0]
    if tag == "const":  # the value itself, or its type (an open set like ErrorCode)
        return member is type(kind[1]) or (
            get_origin(member) is Literal and get_args(member) == (kind[1],)
        )
    if tag == "array":
        if get_origin(member) is not list:
            return False
        (item,) = get_args(member) or (Any,)
        return not compatibility_problems(item, kind[1])
    if tag == "enum":
        if member is str:
            return True
        return get_origin(member) is Literal and set(get_args(member)) == enum_values(kind[1])
    if tag == "object":
        if _is_loose_object(member):
            return True
        if is_typeddict(member):
            members = union_members(kind[1]) if kind[1] else None
            return member.__name__ == kind[1] or (
                members is not None and member.__name__ in members
            )
    return False


def compatibility_problems(annotation: Any, node: dict[str, Any]) -> list[str]:
    members = python_members(annotation)
    kinds = schema_kinds(node)
    problems = [
        f"nothing accepts {kind!r}" for kind in kinds if not any(accepts(m, kind) for m in members)
    ]
    problems += [
        f"{m!r} is not in the schema" for m in members if not any(accepts(m, k) for k in kinds)
    ]
    # A union of objects must be declared whole, not as some of its variants.
    for kind in kinds:
        if isinstance(kind, tuple) and kind[0] == "object" and kind[1]:
            variants = union_members(kind[1])
            named = {m.__name__ for m in members if is_typeddict(m)}
            if variants and named and not any(map(_is_loose_object, members)) and named != variants:
                problems.append(f"declares {sorted(named)} of {kind[1]} = {sorted(variants)}")
    return problems


def test_the_schema_declares_many_shapes() -> None:
    assert len(TYPED_DICTS) >= 60


@pytest.mark.parametrize("cls", TYPED_DICTS, ids=lambda cls: cls.__name__)
def test_typeddict_matches_its_schema_definition(cls: type) -> None:
    name = cls.__name__
    node = definition(name)
    properties: dict[str, Any] = node.get("properties", {})
    required = set(node.get("required", []))
    tags = tags_of(name)
    hints = get_type_hints(cls)

    assert not set(properties) - set(hints), f"{name} lacks fields of the schema"
    assert not set(hints) - set(properties) - set(tags), f"{name} has fields the schema has not"
    for key, prop in properties.items():
        problems = compatibility_problems(hints[key], prop)
        assert not problems, f"{name}.{key}: {problems}"
    for key, value in tags.items():
        if key in hints:
            assert hints[key] == Literal[value], f"{name}.{key} is not Literal[{value!r}]"
    assert set(cls.__required_keys__) == required | (set(tags) & set(hints)), name  # type: ignore[attr-defined]


UNSTABLE_TYPED_DICTS = sorted(
    (obj for obj in vars(unstable).values() if is_typeddict(obj)), key=lambda cls: cls.__name__
)


@pytest.mark.parametrize("cls", UNSTABLE_TYPED_DICTS, ids=lambda cls: cls.__name__)
def test_unstable_typeddict_matches_its_schema_definition(
    cls: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unstable shapes, by the same rules, against ``schema.unstable.json`` with what
    the newer pages add (``newer.json``)."""
    from tests.demo_agent.schema_check import load

    assert cls.__name__ not in DEFS, f"{cls.__name__} is stable now: declare it in schema.py"
    monkeypatch.setattr(sys.modules[__name__], "DEFS", load(1)["$defs"])
    test_typeddict_matches_its_schema_definition(cls)


def test_the_unstable_shapes_are_declared() -> None:
    assert {cls.__name__ for cls in UNSTABLE_TYPED_DICTS} >= {
        "AuthStatusResponse",
        "AuthStatusUpdateNotification",
        "SessionStatusResponse",
        "SessionOptionsRequest",
        "SessionOptionsResponse",
    }


@pytest.mark.parametrize("cls", [*TYPED_DICTS, *UNSTABLE_TYPED_DICTS], ids=lambda c: c.__name__)
def test_every_shape_links_its_spec_section(cls: type) -> None:
    assert cls.__doc__ and (
        "https://agentclientprotocol.com/protocol/" in cls.__doc__ or "jsonrpc.org" in cls.__doc__
    )


def _values(namespace: type) -> set[Any]:
    return {v for k, v in vars(namespace).items() if k.isupper()}


def test_method_names_are_the_schemas() -> None:
    from tests.demo_agent.schema_check import newer

    stable = {d["x-method"] for d in DEFS.values() if "x-method" in d}
    unstable = {d["x-method"] for d in UNSTABLE.values() if "x-method" in d}
    unstable |= {d["x-method"] for d in newer(1).get("$defs", {}).values() if "x-method" in d}
    declared = _values(constants.Method)
    assert stable <= declared, f"undeclared methods: {stable - declared}"
    assert declared <= stable | unstable, f"not in any schema: {declared - stable - unstable}"
    assert constants.Method.__doc__ and SPEC in constants.Method.__doc__


def _update_kinds(defs: dict[str, Any]) -> set[str]:
    tags = (b["properties"]["sessionUpdate"] for b in _branches(defs["SessionUpdate"]))
    return {tag["const"] for tag in tags if "const" in tag}  # not the open "custom" branch


def _newer_update_kinds() -> set[str]:
    """The kinds the pages added after the schema kept here (``newer.json``)."""
    from tests.demo_agent.schema_check import newer

    kinds: set[str] = set()
    for version in (1, 2):
        for branch in newer(version).get("variants", {}).get("SessionUpdate", []):
            kinds.add(branch["properties"]["sessionUpdate"]["const"])
    return kinds


def test_session_update_kinds_are_the_schemas() -> None:
    """Stable v1, unstable v1 and the v2 draft's kinds; and the v2 RFD's ``state_change``."""
    v2 = json.loads((SCHEMA_DIR.parent / "v2" / "schema.json").read_text())["$defs"]
    assert constants.SESSION_UPDATE_KINDS == _update_kinds(DEFS)
    known = (
        _update_kinds(UNSTABLE)
        | _update_kinds(v2)
        | {constants.UpdateKind.STATE_CHANGE}
        | _newer_update_kinds()
    )
    assert _values(constants.UpdateKind) <= known
    assert _update_kinds(v2) <= _values(constants.UpdateKind)
    assert constants.SESSION_UPDATE_KINDS <= _values(constants.UpdateKind)


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        (constants.StopReason, "StopReason"),
        (constants.ToolKind, "ToolKind"),
        (constants.ToolCallStatus, "ToolCallStatus"),
        (constants.PermissionOptionKind, "PermissionOptionKind"),
        (constants.PlanEntryPriority, "PlanEntryPriority"),
        (constants.PlanEntryStatus, "PlanEntryStatus"),
        (constants.Role, "Role"),
    ],
)
def test_enumerations_are_the_schemas(alias: Any, name: str) -> None:
    assert set(get_args(alias)) == enum_values(name)


def test_constants_are_the_schemas() -> None:
    assert {
        constants.END_TURN,
        constants.MAX_TOKENS,
        constants.MAX_TURN_REQUESTS,
        constants.REFUSAL,
        constants.CANCELLED,
    } == enum_values("StopReason")
    assert set(constants.TOOL_KINDS) == enum_values("ToolKind")
    assert set(constants.TOOL_CALL_STATUSES) == enum_values("ToolCallStatus")
    assert (
        set(constants.PERMISSION_OPTION_KINDS)
        == {
            constants.ALLOW_ONCE,
            constants.ALLOW_ALWAYS,
            constants.REJECT_ONCE,
            constants.REJECT_ALWAYS,
        }
        == enum_values("PermissionOptionKind")
    )
    codes = {b.get("const") for b in DEFS["ErrorCode"]["anyOf"]} - {None}
    assert _values(constants.ErrorCode) == codes
    assert constants.PROTOCOL_VERSION == 1  # the schema vendored is v1 (tests/data/acp-schema/v1)


class TestTheCheckCatchesDrift:
    """The checker itself: a wrong declaration fails it (so a passing run means something)."""

    def test_missing_field(self) -> None:
        class Diff(typing.TypedDict, total=False):
            type: typing.Required[Literal["diff"]]
            path: typing.Required[str]
            newText: typing.Required[str]

        with pytest.raises(AssertionError, match="lacks fields"):
            test_typeddict_matches_its_schema_definition(Diff)

    def test_wrong_type_and_nullability(self) -> None:
        assert compatibility_problems(int, DEFS["Diff"]["properties"]["path"])
        assert compatibility_problems(str, DEFS["Diff"]["properties"]["oldText"])  # lacks None
        assert compatibility_problems(str | None, DEFS["Diff"]["properties"]["newText"])
        assert not compatibility_problems(str | None, DEFS["Diff"]["properties"]["oldText"])

    def test_wrong_enumeration(self) -> None:
        kind = DEFS["ToolCall"]["properties"]["kind"]
        assert compatibility_problems(Literal["read", "edit"], kind)
        assert not compatibility_problems(constants.ToolKind, kind)

    def test_wrong_nested_shape(self) -> None:
        content = DEFS["ToolCall"]["properties"]["content"]
        assert compatibility_problems(list[schema.Diff], content)
        assert compatibility_problems(list[schema.PlanEntry], content)
        assert not compatibility_problems(list[schema.ToolCallContent], content)

    def test_wrong_requiredness(self) -> None:
        class PlanEntry(typing.TypedDict, total=False):
            content: str
            priority: typing.Required[constants.PlanEntryPriority]
            status: typing.Required[constants.PlanEntryStatus]
            _meta: dict[str, Any] | None

        with pytest.raises(AssertionError):
            test_typeddict_matches_its_schema_definition(PlanEntry)


def test_importing_the_wire_declaration_is_light() -> None:
    """The names are on the path to the first frame; neither module imports anything heavy."""
    code = (
        "import sys; import acp_tui.wire.schema, acp_tui.wire.client_methods, "
        "acp_tui.wire.constants; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'textual', 'rich')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_shapes_are_imported_for_type_checking_only() -> None:
    """Building the TypedDicts costs ~10 ms: no module of the app imports them at run time
    (``if TYPE_CHECKING:`` only), so they stay off the path to the first frame. The
    declarations build on one another."""
    from tests.test_layers import imports_of, sources

    declarations = {declaration.__name__ for declaration in DECLARATIONS}
    at_run_time = [
        str(path.relative_to(path.parents[2]))
        for path in sources()
        if path.resolve() not in {Path(str(d.__file__)).resolve() for d in DECLARATIONS}
        for module, typing_only in imports_of(path)
        if module in declarations and not typing_only
    ]
    assert at_run_time == []


def test_the_store_routes_every_update_kind_the_protocol_declares() -> None:
    """Only the store interprets ``session/update``: every kind of the schema (stable, and the
    unstable ones named here) has a handler there, none falls through to "unknown"."""
    from acp_tui.store import SessionStore

    assert _values(constants.UpdateKind) <= SessionStore().update_kinds
