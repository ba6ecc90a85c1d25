"""The /ask form: a requested schema with every field kind, and a check of the answers.

https://agentclientprotocol.com/protocol/v1/elicitation: the schema is an object of
primitive properties (``ElicitationSchema``). The agent checks what an accepting client sent
against it, so a client developer sees at once what their form let through.
"""

from __future__ import annotations

import datetime
import json
import re
from typing import Any

FORM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "About you",
    "description": "Questions from the demo agent. Nothing leaves your machine.",
    "properties": {
        "name": {
            "type": "string",
            "title": "Your name",
            "description": "What should the demo agent call you?",
            "minLength": 1,
            "maxLength": 40,
        },
        "email": {
            "type": "string",
            "title": "Email",
            "description": "Any address; it is only checked for its shape.",
            "format": "email",
        },
        "birthday": {"type": "string", "title": "A date you like", "format": "date"},
        "homepage": {
            "type": "string",
            "title": "Home page",
            "format": "uri",
            "default": "https://agentclientprotocol.com",
        },
        "temperature": {
            "type": "number",
            "title": "Preferred room temperature (°C)",
            "minimum": 10,
            "maximum": 30,
            "default": 21.5,
        },
        "cups": {
            "type": "integer",
            "title": "Cups of coffee a day",
            "minimum": 0,
            "maximum": 12,
            "default": 2,
        },
        "newsletter": {
            "type": "boolean",
            "title": "Send me the demo newsletter",
            "description": "There is no newsletter.",
            "default": False,
        },
        "color": {
            "type": "string",
            "title": "Favourite colour",
            "enum": ["red", "green", "blue"],
            "default": "green",
        },
        "editor": {
            "type": "string",
            "title": "Editor",
            "oneOf": [
                {"const": "vim", "title": "Vim"},
                {"const": "emacs", "title": "Emacs"},
                {"const": "zed", "title": "Zed", "description": "Has ACP built in"},
                {"const": "other", "title": "Something else"},
            ],
        },
        "languages": {
            "type": "array",
            "title": "Languages you write",
            "minItems": 1,
            "maxItems": 3,
            "items": {"type": "string", "enum": ["python", "rust", "go", "typescript", "c"]},
            "default": ["python"],
        },
        "snacks": {
            "type": "array",
            "title": "Snacks while coding",
            "items": {
                "anyOf": [
                    {"const": "nuts", "title": "Nuts"},
                    {"const": "fruit", "title": "Fruit"},
                    {"const": "chocolate", "title": "Chocolate"},
                ]
            },
        },
    },
    "required": ["name", "cups", "color", "languages"],
}

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")


def _choices(schema: dict[str, Any]) -> list[str] | None:
    if isinstance(schema.get("enum"), list):
        return schema["enum"]
    if isinstance(schema.get("oneOf"), list):
        return [option["const"] for option in schema["oneOf"]]
    items = schema.get("items")
    if isinstance(items, dict):
        if isinstance(items.get("enum"), list):
            return items["enum"]
        if isinstance(items.get("anyOf"), list):
            return [option["const"] for option in items["anyOf"]]
    return None


def _check_string(value: str, schema: dict[str, Any]) -> str | None:
    if len(value) < schema.get("minLength", 0):
        return f"shorter than {schema['minLength']} characters"
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        return f"longer than {schema['maxLength']} characters"
    fmt = schema.get("format")
    if fmt == "email" and not _EMAIL.match(value):
        return "not an email address"
    if fmt == "uri" and not _URI.match(value):
        return "not a URI"
    if fmt == "date":
        try:
            datetime.date.fromisoformat(value)
        except ValueError:
            return "not a date (YYYY-MM-DD)"
    choices = _choices(schema)
    if choices is not None and value not in choices:
        return f"not one of {', '.join(choices)}"
    return None


def check(name: str, value: Any, schema: dict[str, Any]) -> str | None:
    """Why ``value`` does not fit the property's schema, or None when it does."""
    kind = schema.get("type")
    if kind == "string":
        return _check_string(value, schema) if isinstance(value, str) else "not a string"
    if kind in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"not a {kind}"
        if kind == "integer" and not float(value).is_integer():
            return "not a whole number"
        if "minimum" in schema and value < schema["minimum"]:
            return f"below {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"above {schema['maximum']}"
        return None
    if kind == "boolean":
        return None if isinstance(value, bool) else "not true or false"
    if kind == "array":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return "not a list of strings"
        if len(value) < schema.get("minItems", 0):
            return f"fewer than {schema['minItems']} choices"
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return f"more than {schema['maxItems']} choices"
        choices = _choices(schema) or []
        unknown = [v for v in value if v not in choices]
        return f"unknown choices: {', '.join(unknown)}" if unknown else None
    return f"of an unknown type {kind!r}"


def problems(content: dict[str, Any]) -> list[str]:
    properties: dict[str, Any] = FORM_SCHEMA["properties"]
    found = []
    for name in FORM_SCHEMA["required"]:
        if name not in content:
            found.append(f"`{name}` is required but missing")
    for name, value in content.items():
        schema = properties.get(name)
        if schema is None:
            found.append(f"`{name}` is not a field of the form")
            continue
        why = check(name, value, schema)
        if why is not None:
            found.append(f"`{name}` is {why}")
    return found


def describe_answers(content: dict[str, Any]) -> str:
    properties: dict[str, Any] = FORM_SCHEMA["properties"]
    lines = ["You **accepted** the form (action `accept`). What arrived:\n"]
    for name, schema in properties.items():
        if name in content:
            shown = json.dumps(content[name], ensure_ascii=False)
            lines.append(f"- {schema['title']} (`{name}`): `{shown}`")
        else:
            lines.append(f"- {schema['title']} (`{name}`): left out")
    found = problems(content)
    if found:
        lines.append("\nYour client let through answers the schema does not allow:\n")
        lines += [f"- {problem}" for problem in found]
    else:
        lines.append("\nEvery answer fits the schema.")
    return "\n".join(lines)
