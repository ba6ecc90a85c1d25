"""A small JSON Schema checker for the ACP schema files (jsonschema is not a dependency).

It covers the keywords the schemas in ``tests/data/acp-schema`` use for shapes: ``$ref``,
``allOf``/``anyOf``/``oneOf``/``not``, ``const``/``enum``, ``type``, ``properties``,
``required``, ``items``, ``additionalProperties``, ``minItems``/``maxItems``,
``minimum``/``maximum`` and ``minLength``. Annotations (``format``, ``x-*``, ``default``,
``discriminator``) are not checked.

:func:`check_message` picks the definition from the method a message carries
(``x-method``/``x-side`` in the schema), so every line an agent writes can be checked.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any


def _find_schema_dir() -> Path:
    """``$ACP_SCHEMA_DIR``, else the copy kept with the tests (``tests/data/acp-schema``)."""
    override = os.environ.get("ACP_SCHEMA_DIR")
    if override:
        return Path(override)
    return Path(__file__).resolve().parent.parent / "data" / "acp-schema"


SCHEMA_DIR = _find_schema_dir()


class SchemaError(AssertionError):
    pass


#: What the protocol's pages added after the SDK 2.4.0 schema kept here: the ``session``
#: tool call content of subagents (stabilized 2026-11-20,
#: https://agentclientprotocol.com/announcements/subagents-stabilized.md), by the
#: definition it extends.
NEWER_THAN_THE_SCHEMA: dict[str, dict[str, Any]] = {
    "ToolCallContent": {
        "description": "A child session (a subagent) the tool call's work is.",
        "type": "object",
        "properties": {
            "type": {"type": "string", "const": "session"},
            "sessionId": {"$ref": "#/$defs/SessionId"},
            "_meta": {"type": ["object", "null"]},
        },
        "required": ["type", "sessionId"],
    }
}


def _branches(union: dict[str, Any]) -> list[Any] | None:
    branches = union.get("oneOf") if "oneOf" in union else union.get("anyOf")
    return branches if isinstance(branches, list) else None


def newer(version: int) -> dict[str, Any]:
    """``newer.json``'s additions for ``version``: ``$defs``, ``properties`` (by the
    definition they extend) and ``variants`` (by the union they extend)."""
    data = json.loads((SCHEMA_DIR / "newer.json").read_text(encoding="utf-8"))
    found: dict[str, Any] = data.get(f"v{version}", {})
    return found


@cache
def load(version: int, unstable: bool = True) -> dict[str, Any]:
    name = "schema.unstable.json" if unstable else "schema.json"
    schema = json.loads((SCHEMA_DIR / f"v{version}" / name).read_text(encoding="utf-8"))
    if unstable:
        defs = schema["$defs"]
        for definition, variant in NEWER_THAN_THE_SCHEMA.items():
            branches = _branches(defs.get(definition, {}))
            if branches is not None:
                branches.append(variant)
        added = newer(version)
        for definition, node in added.get("$defs", {}).items():
            defs.setdefault(definition, node)
        for definition, properties in added.get("properties", {}).items():
            defs[definition].setdefault("properties", {}).update(properties)
        for definition, variants in added.get("variants", {}).items():
            branches = _branches(defs[definition])
            assert branches is not None, f"{definition} is no union"
            # Before an open "custom or future" branch, if the union has one.
            branches[0:0] = variants
    return schema


_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "null": lambda v: v is None,
}


def _closeness(attempt: list[str]) -> tuple[bool, int]:
    """Rank failed branches: one whose discriminator matched explains the failure best."""
    return (any(" is not '" in error for error in attempt), len(attempt))


def errors(
    value: Any, schema: dict[str, Any] | bool, root: dict[str, Any], path: str = "$"
) -> list[str]:
    """Every way ``value`` breaks ``schema`` (empty: it fits)."""
    if schema is True:
        return []
    if schema is False:
        return [f"{path}: no value is allowed here"]
    found: list[str] = []
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        found += errors(value, root["$defs"][name], root, path)
    if "const" in schema and value != schema["const"]:
        return [*found, f"{path}: {value!r} is not {schema['const']!r}"]
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{path}: {value!r} is not one of {schema['enum']}")
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(_TYPES[k](value) for k in kinds):
            return [*found, f"{path}: {type(value).__name__} {value!r:.60} is not of type {kinds}"]
    for sub in schema.get("allOf", ()):
        found += errors(value, sub, root, path)
    if "anyOf" in schema:
        attempts = [errors(value, sub, root, path) for sub in schema["anyOf"]]
        if all(attempts):
            best = min(attempts, key=_closeness)
            found.append(f"{path}: matches none of anyOf; closest: {best[:3]}")
    if "oneOf" in schema:
        attempts = [errors(value, sub, root, path) for sub in schema["oneOf"]]
        matched = sum(1 for attempt in attempts if not attempt)
        if matched != 1:
            best = min(attempts, key=_closeness)
            found.append(f"{path}: matches {matched} of oneOf (needs 1); closest: {best[:3]}")
    if "not" in schema and not errors(value, schema["not"], root, path):
        found.append(f"{path}: matches a schema it must not")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", ()):
            if name not in value:
                found.append(f"{path}: `{name}` is required")
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                found += errors(item, properties[name], root, f"{path}.{name}")
            elif extra is not True and "properties" in schema:
                found += errors(item, extra, root, f"{path}.{name}")
    if isinstance(value, list):
        if "items" in schema:
            for index, item in enumerate(value):
                found += errors(item, schema["items"], root, f"{path}[{index}]")
        if len(value) < schema.get("minItems", 0):
            found.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            found.append(f"{path}: more than {schema['maxItems']} items")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            found.append(f"{path}: {value} is below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            found.append(f"{path}: {value} is above {schema['maximum']}")
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        found.append(f"{path}: shorter than {schema['minLength']}")
    return found


def check(value: Any, definition: str, version: int = 1, *, unstable: bool = True) -> None:
    """Raise :class:`SchemaError` unless ``value`` fits the named definition."""
    root = load(version, unstable)
    if definition not in root["$defs"]:
        raise SchemaError(f"no definition {definition} in the v{version} schema")
    found = errors(value, root["$defs"][definition], root)
    if found:
        raise SchemaError(f"not a valid {definition} (v{version}): " + "; ".join(found[:5]))


@cache
def _definitions_by_method(version: int) -> dict[tuple[str, str], str]:
    """(method, "request" | "response" | "notification") -> definition name."""
    found: dict[tuple[str, str], str] = {}
    for name, definition in load(version)["$defs"].items():
        method = definition.get("x-method")
        if not method:
            continue
        for suffix, role in (("Request", "request"), ("Response", "response")):
            if name.endswith(suffix):
                found[(method, role)] = name
        if name.endswith("Notification"):
            found[(method, "notification")] = name
    return found


def definition_for(method: str, role: str, version: int) -> str:
    try:
        return _definitions_by_method(version)[(method, role)]
    except KeyError:
        raise SchemaError(f"the v{version} schema has no {role} for {method}") from None


def check_message(
    message: dict[str, Any], version: int, *, answered_method: str | None = None
) -> None:
    """Check one JSON-RPC message an agent wrote: a request or notification by its method,
    a result by the method of the request it answers (``answered_method``)."""
    if message.get("jsonrpc") != "2.0":
        raise SchemaError(f"not JSON-RPC 2.0: {message}")
    if "method" in message:
        role = "request" if "id" in message else "notification"
        method = message["method"]
        if method == "$/cancel_request":
            return
        check(message.get("params", {}), definition_for(method, role, version), version)
        return
    if "error" in message:
        error = message["error"]
        if not (isinstance(error, dict) and isinstance(error.get("code"), int)):
            raise SchemaError(f"malformed error: {message}")
        if not isinstance(error.get("message"), str):
            raise SchemaError(f"error without a message: {message}")
        return
    if answered_method is None:
        raise SchemaError(f"a result for no known request: {message}")
    check(message.get("result"), definition_for(answered_method, "response", version), version)
