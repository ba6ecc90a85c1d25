"""Elicitation (``elicitation/create``): the request, its form, and the answer. No Textual.

https://agentclientprotocol.com/protocol/v1/elicitation (schema: ``CreateElicitationRequest``,
``ElicitationSchema``, ``CreateElicitationResponse``). A *form* request carries a restricted
JSON schema: an object of primitive properties (string, with ``enum`` or titled ``oneOf``
choices; number; integer; boolean; an array of choices). :func:`parse_request` turns the params
into an :class:`ElicitationRequest` with one :class:`FormField` per property;
:func:`build_content` checks what the person entered, field by field, and gives the ``content``
of an ``accept`` answer, or a message for each field that does not fit. A *url* request asks
the person to visit a page; ``elicitation/complete`` says when it is done.

Everything here treats the agent's schema as data: a value that is not what the schema says
(a default of the wrong type, a choice without a ``const``) is left out, never trusted.
"""

from __future__ import annotations

import datetime
import math
import re
from dataclasses import dataclass, field
from typing import Any

from acp_tui.text.numbers import wire_number
from acp_tui.text.safety import one_line
from acp_tui.text.url_host import SiteHost, site_host

ACCEPT = "accept"
DECLINE = "decline"
CANCEL = "cancel"

FORM = "form"
URL = "url"

#: The kinds of field the form can show.
TEXT = "text"
NUMBER = "number"
INTEGER = "integer"
BOOLEAN = "boolean"
CHOICE = "choice"
MULTI = "multi"
#: A property type this client does not know (a custom ``_`` type or a future one).
UNSUPPORTED = "unsupported"

#: Only these schemes are opened in a browser; anything else can only be copied.
OPENABLE_SCHEMES = ("http", "https")

#: The most fields and choices (of all its choice fields together) a form may have: a
#: bigger one is refused with a message saying so (each field is a few widgets, drawn in
#: tens of milliseconds: a form of 5,000 fields took a minute and 1.1 GB).
MAX_FORM_FIELDS = 50
MAX_FORM_CHOICES = 2_000
#: How much of an agent's ``pattern`` the field's hint shows.
PATTERN_HINT_LIMIT = 60
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_INTEGER = re.compile(r"^[+-]?\d+$")


class ElicitationError(ValueError):
    """The request cannot be shown: its message says why (sent back as invalid params)."""


def answer(action: str, content: dict[str, Any] | None = None) -> dict[str, Any]:
    """A ``CreateElicitationResponse``: ``content`` only with ``accept`` of a form."""
    result: dict[str, Any] = {"action": action}
    if action == ACCEPT and content is not None:
        result["content"] = content
    return result


@dataclass(frozen=True, slots=True)
class Choice:
    value: str
    title: str
    description: str | None = None


@dataclass(slots=True)
class FormField:
    """One property of the requested schema, as the form shows and checks it."""

    name: str
    kind: str
    title: str
    description: str | None = None
    required: bool = False
    default: Any = None
    choices: list[Choice] = field(default_factory=list)
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    format: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    min_items: int | None = None
    max_items: int | None = None
    #: The property's ``type`` as sent (for an unsupported field's message).
    type_name: str = ""

    @property
    def label(self) -> str:
        return self.title + (" *" if self.required else "")

    def default_text(self) -> str:
        """What a text, number or integer input starts with."""
        if self.default is None or isinstance(self.default, bool):
            return ""
        if isinstance(self.default, float) and self.default.is_integer():
            return str(int(self.default)) if self.kind == INTEGER else str(self.default)
        return str(self.default)

    def hint(self) -> str:
        """The constraints in a few words, shown under the field."""
        parts: list[str] = []
        if self.kind == TEXT:
            if self.format:
                parts.append(
                    {
                        "date": "YYYY-MM-DD",
                        "date-time": "a date and time (ISO 8601)",
                        "email": "an email address",
                        "uri": "a URL (https://…)",
                    }.get(self.format, self.format)
                )
            if self.pattern:
                parts.append(f"matching {one_line(self.pattern, PATTERN_HINT_LIMIT)}")
            if self.min_length is not None and self.max_length is not None:
                parts.append(f"{self.min_length}-{self.max_length} characters")
            elif self.min_length:
                parts.append(f"at least {self.min_length} characters")
            elif self.max_length is not None:
                parts.append(f"at most {self.max_length} characters")
        elif self.kind in (NUMBER, INTEGER):
            what = "a whole number" if self.kind == INTEGER else "a number"
            low, high = self.minimum, self.maximum
            if low is not None and high is not None:
                what += f" from {_number_text(low)} to {_number_text(high)}"
            elif low is not None:
                what += f", at least {_number_text(low)}"
            elif high is not None:
                what += f", at most {_number_text(high)}"
            parts.append(what)
        elif self.kind == MULTI:
            if self.min_items is not None and self.max_items is not None:
                parts.append(f"choose {self.min_items}-{self.max_items}")
            elif self.min_items:
                parts.append(f"choose at least {self.min_items}")
            elif self.max_items is not None:
                parts.append(f"choose at most {self.max_items}")
        return ", ".join(parts)


@dataclass(slots=True)
class ElicitationRequest:
    """``elicitation/create`` params, checked."""

    mode: str
    message: str
    session_id: str | None = None
    tool_call_id: str | None = None
    #: Form mode: the schema's title and description, and its fields in the agent's order.
    title: str | None = None
    description: str | None = None
    fields: list[FormField] = field(default_factory=list)
    #: URL mode.
    elicitation_id: str | None = None
    url: str | None = None

    @property
    def label(self) -> str:
        """What the request is about, in a few words (the echo line in the transcript)."""
        if self.mode == URL and self.url:
            return self.url
        return self.title or self.message or "a question from the agent"

    @property
    def url_scheme(self) -> str:
        match = _SCHEME.match(self.url or "")
        return match.group(1).lower() if match else ""

    @property
    def openable(self) -> bool:
        """Whether the URL may be handed to a browser (http and https only)."""
        return self.url_scheme in OPENABLE_SCHEMES

    @property
    def site(self) -> SiteHost | None:
        """The URL's host as a browser resolves it (:func:`acp_tui.text.url_host.site_host`):
        what the person judges before opening it. None without a host (``mailto:``)."""
        return site_host(self.url or "")

    @property
    def host(self) -> str:
        """The host a browser would go to ("" if none): see :attr:`site`."""
        site = self.site
        return site.host if site is not None else ""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _count(value: Any) -> int | None:
    number = wire_number(value, low=0)
    return number if isinstance(number, int) else None


def _number(value: Any) -> float | None:
    number = wire_number(value)
    return None if number is None else float(number)


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _choices(options: Any, titled: bool) -> list[Choice]:
    """``enum`` strings, or titled ``oneOf``/``anyOf`` options (``const`` + ``title``); no
    more than one past :data:`MAX_FORM_CHOICES` (enough to refuse the form)."""
    found: list[Choice] = []
    seen: set[str] = set()
    for item in options if isinstance(options, list) else []:
        if len(found) > MAX_FORM_CHOICES:
            break
        if titled:
            if not isinstance(item, dict) or not isinstance(item.get("const"), str):
                continue
            value = item["const"]
            choice = Choice(
                value, _text(item.get("title")) or value, _text(item.get("description"))
            )
        elif isinstance(item, str):
            choice = Choice(item, item)
        else:
            continue
        if choice.value not in seen:
            seen.add(choice.value)
            found.append(choice)
    return found


def parse_field(name: str, schema: Any, required: bool) -> FormField:
    """One property; a type this client cannot ask for becomes an :data:`UNSUPPORTED` field."""
    schema = schema if isinstance(schema, dict) else {}
    kind_name = schema.get("type")
    type_name = kind_name if isinstance(kind_name, str) else ""
    made = FormField(
        name=name,
        kind=UNSUPPORTED,
        title=_text(schema.get("title")) or name,
        description=_text(schema.get("description")),
        required=required,
        type_name=type_name,
    )
    default = schema.get("default")
    if type_name == "string":
        choices = _choices(schema.get("enum"), False) or _choices(schema.get("oneOf"), True)
        if choices:
            made.kind = CHOICE
            made.choices = choices
            if isinstance(default, str) and any(c.value == default for c in choices):
                made.default = default
            return made
        made.kind = TEXT
        made.min_length = _count(schema.get("minLength"))
        made.max_length = _count(schema.get("maxLength"))
        made.pattern = _text(schema.get("pattern"))
        made.format = _text(schema.get("format"))
        made.default = default if isinstance(default, str) else None
    elif type_name in ("number", "integer"):
        made.kind = NUMBER if type_name == "number" else INTEGER
        made.minimum = _number(schema.get("minimum"))
        made.maximum = _number(schema.get("maximum"))
        value = _number(default)
        if value is not None and (made.kind == NUMBER or value.is_integer()):
            made.default = default
    elif type_name == "boolean":
        made.kind = BOOLEAN
        made.default = default if isinstance(default, bool) else None
    elif type_name == "array":
        items = schema.get("items")
        items = items if isinstance(items, dict) else {}
        choices = _choices(items.get("enum"), False) or _choices(items.get("anyOf"), True)
        if choices:
            made.kind = MULTI
            made.choices = choices
            made.min_items = _count(schema.get("minItems"))
            made.max_items = _count(schema.get("maxItems"))
            values = {c.value for c in choices}
            if isinstance(default, list):
                made.default = [v for v in default if isinstance(v, str) and v in values]
    return made


def parse_request(
    params: Any, modes: frozenset[str] | set[str] = frozenset({FORM, URL})
) -> ElicitationRequest:
    """Check ``elicitation/create`` params; raises :class:`ElicitationError` for a request this
    client cannot show (an unknown or unadvertised mode, a form without a schema or with more
    than :data:`MAX_FORM_FIELDS` fields or :data:`MAX_FORM_CHOICES` choices, a url request
    without its url or id)."""
    if not isinstance(params, dict):
        raise ElicitationError("the elicitation params are not an object")
    mode = params.get("mode")
    if not isinstance(mode, str):
        raise ElicitationError("the elicitation request has no mode")
    if mode not in (FORM, URL) or mode not in modes:
        # The schema: a client MUST NOT render an unknown mode as a known one.
        raise ElicitationError(f"this client does not support the elicitation mode {mode!r}")
    message = params.get("message")
    session_id = params.get("sessionId")
    tool_call_id = params.get("toolCallId")
    request = ElicitationRequest(
        mode=mode,
        message=message if isinstance(message, str) else "",
        session_id=session_id if isinstance(session_id, str) else None,
        tool_call_id=tool_call_id if isinstance(tool_call_id, str) else None,
    )
    if mode == URL:
        url = params.get("url")
        elicitation_id = params.get("elicitationId")
        if not isinstance(url, str) or not url.strip():
            raise ElicitationError("the url elicitation has no url")
        if not isinstance(elicitation_id, str):
            raise ElicitationError("the url elicitation has no elicitationId")
        request.url = url.strip()
        request.elicitation_id = elicitation_id
        return request
    schema = params.get("requestedSchema")
    if not isinstance(schema, dict):
        raise ElicitationError("the form elicitation has no requestedSchema object")
    if schema.get("type", "object") != "object":
        raise ElicitationError("the requested schema is not of type object")
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise ElicitationError("the requested schema's properties are not an object")
    required_raw = schema.get("required")
    required = (
        {r for r in required_raw if isinstance(r, str)} if isinstance(required_raw, list) else set()
    )
    if len(properties) > MAX_FORM_FIELDS:
        raise ElicitationError(
            f"the form has {len(properties):,} fields; acp-tui shows forms of at most "
            f"{MAX_FORM_FIELDS}"
        )
    request.title = _text(schema.get("title"))
    request.description = _text(schema.get("description"))
    choices = 0
    for name, prop in properties.items():
        made = parse_field(name, prop, name in required)
        choices += len(made.choices)
        if choices > MAX_FORM_CHOICES:
            raise ElicitationError(
                f"the form offers more than {MAX_FORM_CHOICES:,} choices; acp-tui shows "
                f"forms of at most {MAX_FORM_CHOICES:,}"
            )
        request.fields.append(made)
    return request


# ------------------------------------------------------------------ checking what was entered


def check_text(form_field: FormField, text: str) -> str | None:
    """Why ``text`` does not fit a text field (None: it does). An empty text is judged by
    :func:`field_value` (left out, or required)."""
    if form_field.min_length is not None and len(text) < form_field.min_length:
        return f"at least {form_field.min_length} characters"
    if form_field.max_length is not None and len(text) > form_field.max_length:
        return f"at most {form_field.max_length} characters"
    fmt = form_field.format
    if fmt == "email" and not _EMAIL.match(text):
        return "not an email address"
    if fmt == "uri" and not _URI.match(text):
        return "not a URI (e.g. https://example.com)"
    if fmt == "date":
        try:
            datetime.date.fromisoformat(text)
        except ValueError:
            return "not a date (YYYY-MM-DD)"
    if fmt == "date-time":
        try:
            datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return "not a date and time (e.g. 2026-01-31T09:30:00Z)"
    # ``pattern`` is not run here: the agent's regular expression is code, and one like
    # "^(a+)+$" on the text it gave as the default would hold the event loop (every view, Ctrl+Q
    # too) for ever. The hint shows it; the agent checks what it gets.
    return None


def parse_number(form_field: FormField, text: str) -> tuple[int | float | None, str | None]:
    """The number typed into a number or integer field, or why it is not one."""
    text = text.strip()
    value: int | float
    if form_field.kind == INTEGER:
        if not _INTEGER.match(text):
            return None, "not a whole number"
        value = int(text)
    else:
        try:
            value = float(text)
        except ValueError:
            return None, "not a number"
        if not math.isfinite(value):
            return None, "not a number"
        if value.is_integer() and "." not in text and "e" not in text.lower():
            value = int(value)
    if form_field.minimum is not None and value < form_field.minimum:
        return None, f"at least {_number_text(form_field.minimum)}"
    if form_field.maximum is not None and value > form_field.maximum:
        return None, f"at most {_number_text(form_field.maximum)}"
    return value, None


_LEFT_OUT: Any = object()


def field_value(form_field: FormField, entered: Any) -> tuple[Any, str | None]:
    """What goes into ``content`` for one field, from what the form holds (text for text,
    number and integer fields; a bool; the chosen value or None; the chosen values): the value
    (:data:`_LEFT_OUT` for an optional field left empty) or the message to show at the field."""
    kind = form_field.kind
    if kind == UNSUPPORTED:
        if form_field.required:
            what = form_field.type_name or "unknown"
            return _LEFT_OUT, f"acp-tui cannot ask for a value of type {what!r}: decline instead"
        return _LEFT_OUT, None
    if kind == BOOLEAN:
        return bool(entered), None
    if kind == MULTI:
        values = [v for v in entered if isinstance(v, str)] if isinstance(entered, list) else []
        allowed = {c.value for c in form_field.choices}
        if any(v not in allowed for v in values):
            return _LEFT_OUT, "not one of the choices"
        if form_field.min_items is not None and len(values) < form_field.min_items:
            return _LEFT_OUT, f"choose at least {form_field.min_items}"
        if form_field.max_items is not None and len(values) > form_field.max_items:
            return _LEFT_OUT, f"choose at most {form_field.max_items}"
        if not values and not form_field.required:
            return _LEFT_OUT, None
        return values, None
    if kind == CHOICE:
        if entered is None or entered == "":
            return _LEFT_OUT, ("choose one" if form_field.required else None)
        if not any(c.value == entered for c in form_field.choices):
            return _LEFT_OUT, "not one of the choices"
        return entered, None
    text = entered if isinstance(entered, str) else ""
    if text == "" or (kind != TEXT and not text.strip()):
        return _LEFT_OUT, ("required" if form_field.required else None)
    if kind == TEXT:
        problem = check_text(form_field, text)
        return (_LEFT_OUT, problem) if problem else (text, None)
    number, problem = parse_number(form_field, text)
    return (_LEFT_OUT, problem) if problem else (number, None)


def build_content(
    fields: list[FormField], entered: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The ``content`` of an accept answer and the problems by field name (accept only when
    there are none)."""
    content: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for form_field in fields:
        value, problem = field_value(form_field, entered.get(form_field.name))
        if problem is not None:
            problems[form_field.name] = problem
        elif value is not _LEFT_OUT:
            content[form_field.name] = value
    return content, problems


def initial_values(fields: list[FormField]) -> dict[str, Any]:
    """What each field holds when the form opens (its default, if the schema gave one)."""
    values: dict[str, Any] = {}
    for form_field in fields:
        if form_field.kind == BOOLEAN:
            values[form_field.name] = bool(form_field.default)
        elif form_field.kind == MULTI:
            values[form_field.name] = list(form_field.default or [])
        elif form_field.kind == CHOICE:
            values[form_field.name] = form_field.default
        elif form_field.kind in (TEXT, NUMBER, INTEGER):
            values[form_field.name] = form_field.default_text()
    return values
