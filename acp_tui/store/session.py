"""Per-session state kept by the store, and small pure helpers (timestamps, ``_meta`` merge)."""

from __future__ import annotations

import copy
import re
from datetime import UTC, datetime
from typing import Any, NamedTuple

from acp_tui.store.entries import Entry, MessageEntry, SubagentCard, ToolCall
from acp_tui.store.suggestions import PromptSuggestion
from acp_tui.wire import updates as wire
from acp_tui.wire.updates import JsonObject

__all__ = [
    "ACTIVITY_IDLE",
    "ACTIVITY_REQUIRES_ACTION",
    "ACTIVITY_RUNNING",
    "ACTIVITY_UNKNOWN",
    "LIVE_ERROR",
    "LIVE_UNREAD",
    "LIVE_WAITING",
    "LIVE_WORKING",
    "BackgroundRef",
    "ContextUsage",
    "SessionState",
    "TurnUsage",
    "live_state",
    "merge_meta",
    "parse_iso",
    "wire_amount",
    "wire_count",
]

ACTIVITY_IDLE = "idle"
ACTIVITY_RUNNING = "running"
ACTIVITY_REQUIRES_ACTION = "requires_action"
#: A subagent's activity the agent cannot tell now (v1 ``state: unknown``): not running, not
#: idle; what was shown before no longer holds.
ACTIVITY_UNKNOWN = "unknown"

#: What a session's row says about it (see :func:`live_state`): a turn runs; the agent waits
#: for the person (a permission or a form); a turn ended while the session was not on screen
#: and nobody has looked since; the last turn ended in an error (or its agent died).
LIVE_WORKING = "working"
LIVE_WAITING = "waiting"
LIVE_UNREAD = "unread"
LIVE_ERROR = "error"

_FRACTION = re.compile(r"(\.\d{1,6})\d+")


def parse_iso(value: object) -> float | None:
    """Parse an ISO 8601 timestamp to POSIX seconds; ``None`` for anything unparseable.

    Accepts a trailing ``Z``/``z``, a space instead of ``T``, over-long fractions; a naive time
    is taken as UTC. Never raises.
    """
    if not isinstance(value, str):
        return None
    s = value.strip()
    if not s:
        return None
    if s[-1] in "Zz":
        s = s[:-1] + "+00:00"
    s = _FRACTION.sub(r"\1", s)
    try:
        dt = datetime.fromisoformat(s)
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        return dt.timestamp()
    except (OverflowError, OSError, ValueError):
        return None


def merge_meta(base: JsonObject | None, patch: JsonObject) -> JsonObject:
    """Recursive ``_meta`` merge: nested dicts merge, a ``None`` leaf deletes the key.

    Returns a new dict; neither argument is mutated.
    """
    out: JsonObject = dict(base) if base else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict):
            old = out.get(key)
            out[key] = merge_meta(old if isinstance(old, dict) else None, value)
        else:
            out[key] = value
    return out


#: The largest token count taken from the wire: ``used``, ``size`` and the turn's token
#: counts are ``uint64`` in the schema.
MAX_TOKENS = 2**64 - 1
#: The largest cost amount taken from the wire. No session costs a trillion of anything;
#: beyond it a number is an agent's bug (and 1e26 once broke the cost formatting).
MAX_COST = 1e12


def wire_count(value: object) -> int | None:
    """A token count from the wire, or None (unknown) for anything that is not one: a
    negative, fractional, huge or non-finite number, a string, a bool, null. The one place
    such numbers are checked: everything after the store can trust them."""
    if value.__class__ is int:
        return value if 0 <= value <= MAX_TOKENS else None
    if value.__class__ is float and value.is_integer() and 0 <= value <= MAX_TOKENS:
        return int(value)  # 1234.0 from a serialiser that writes every number as a double
    return None


def wire_amount(value: object) -> int | float | None:
    """A cumulative cost amount from the wire, or None (unknown): finite, not negative (a
    running total cannot be), at most :data:`MAX_COST`; never a string or a bool."""
    if value.__class__ is int or value.__class__ is float:
        return value if 0 <= value <= MAX_COST else None  # NaN fails both comparisons
    return None


class BackgroundRef(NamedTuple):
    """One item of a v2 ``state_update``'s ``background`` list: a terminal, a tool call or a
    subagent (``kind``; another kind is kept as sent) by its id, and when it was first listed
    (the store's clock). Spec: https://agentclientprotocol.com/rfds/v2/background-work"""

    kind: str
    ref_id: str
    since: float


class ContextUsage:
    """Context window state from ``usage_update`` (``cost`` is cumulative for the session).

    Every number was checked on the way in (:func:`wire_count`, :func:`wire_amount`): each is
    valid or None, "not reported or not believable"."""

    __slots__ = ("cost_amount", "cost_currency", "size", "used")

    def __init__(
        self,
        used: int | None,
        size: int | None,
        cost_amount: int | float | None = None,
        cost_currency: str | None = None,
    ) -> None:
        self.used = used
        self.size = size
        self.cost_amount = cost_amount
        self.cost_currency = cost_currency

    @classmethod
    def from_update(cls, u: wire.UsageUpdate) -> ContextUsage:
        """Never raises: a field that is missing, of the wrong type or out of range is
        unknown, and the rest of the update still counts."""
        cost = u.get("cost")
        amount: int | float | None = None
        currency: str | None = None
        if isinstance(cost, dict):
            amount = wire_amount(cost.get("amount"))
            unit = cost.get("currency")
            currency = unit if isinstance(unit, str) else None
        return cls(wire_count(u.get("used")), wire_count(u.get("size")), amount, currency)

    @property
    def fraction(self) -> float | None:
        """``used / size`` or ``None`` when either is unknown or size is not positive."""
        if self.used is None or not self.size:
            return None
        return self.used / self.size

    def to_dict(self) -> dict[str, Any]:
        return {
            "used": self.used,
            "size": self.size,
            "cost_amount": self.cost_amount,
            "cost_currency": self.cost_currency,
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ContextUsage) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ContextUsage({self.to_dict()!r})"


class TurnUsage:
    """Token usage of one turn (``PromptResponse.usage`` or a v2 idle ``state_update``);
    each count checked by :func:`wire_count` (None: not reported or not believable)."""

    __slots__ = (
        "cached_read_tokens",
        "cached_write_tokens",
        "input_tokens",
        "output_tokens",
        "thought_tokens",
        "total_tokens",
    )

    def __init__(
        self,
        total_tokens: int | None,
        input_tokens: int | None,
        output_tokens: int | None,
        thought_tokens: int | None = None,
        cached_read_tokens: int | None = None,
        cached_write_tokens: int | None = None,
    ) -> None:
        self.total_tokens = total_tokens
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.thought_tokens = thought_tokens
        self.cached_read_tokens = cached_read_tokens
        self.cached_write_tokens = cached_write_tokens

    @classmethod
    def from_wire(cls, u: object) -> TurnUsage:
        """Accepts camelCase (schema) and snake_case (RFD text) keys. Raises TypeError only
        when ``u`` is not an object; a bad count is None."""
        if not isinstance(u, dict):
            raise TypeError("usage: expected an object")

        def get(camel: str, snake: str) -> int | None:
            v = u.get(camel)
            return wire_count(u.get(snake) if v is None else v)

        return cls(
            get("totalTokens", "total_tokens"),
            get("inputTokens", "input_tokens"),
            get("outputTokens", "output_tokens"),
            get("thoughtTokens", "thought_tokens"),
            get("cachedReadTokens", "cached_read_tokens"),
            get("cachedWriteTokens", "cached_write_tokens"),
        )

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TurnUsage) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TurnUsage({self.to_dict()!r})"


class SessionState:
    """Everything the store knows about one session.

    ``live`` sessions were opened in this run (new / load / resume) and have a transcript;
    others are known only from ``session/list`` (``listed``) or the local index (``indexed``).
    A ``draft`` is a live session made by ``session/new`` that has had no prompt yet.
    ``None`` always means "never reported" (distinct from zero / empty).

    Mutated only by :class:`~acp_tui.store.SessionStore`; read freely.
    """

    __slots__ = (
        "_first_prompt",
        "_first_user",
        "_live_at",
        "_order_key",
        "_replay",
        "_search_key",
        "activity",
        "additional_dirs",
        "archived",
        "available_modes",
        "background",
        "card",
        "children",
        "commands",
        "config_options",
        "context",
        "created_at",
        "current_mode_id",
        "cwd",
        "draft",
        "id",
        "indexed",
        "last_turn_seconds",
        "last_turn_usage",
        "listed",
        "live",
        "meta",
        "models",
        "msg_index",
        "parent_id",
        "plan",
        "replaying",
        "resumable",
        "seq",
        "shadow",
        "state_detail",
        "stop_reason",
        "suggestions",
        "title",
        "title_pinned",
        "tool_cancel",
        "tool_index",
        "tool_started",
        "transcript",
        "turn",
        "turn_started",
        "unread",
        "updated_at",
        "updated_ts",
    )

    def __init__(self, session_id: str, seq: int = 0) -> None:
        self.id = session_id
        self.seq = seq  # insertion order; tie-break in the catalog
        self.cwd: str | None = None
        self.title: str | None = None
        self.updated_at: str | None = None  # raw string as received
        self.updated_ts: float | None = None  # parsed, None if missing or unparseable
        self.created_at: str | None = None
        self.meta: JsonObject | None = None
        self.context: ContextUsage | None = None
        self.last_turn_usage: TurnUsage | None = None
        self.activity: str = ACTIVITY_IDLE
        self.stop_reason: str | None = None
        self.state_detail: wire.StateUpdate | None = None  # the last state_update (v2)
        self.turn = 0
        #: When the running turn started (the store's clock); None while idle.
        self.turn_started: float | None = None
        #: How long the last turn seen from start to end here took, in seconds; None: none.
        self.last_turn_seconds: float | None = None
        #: A turn ended while the session was not on screen, and it has not been shown since.
        self.unread = False
        self.available_modes: list[JsonObject] | None = None
        self.current_mode_id: str | None = None
        self.config_options: list[JsonObject] | None = None
        #: The legacy ``models`` state (``availableModels``, ``currentModelId``), as sent.
        self.models: JsonObject | None = None
        #: The session's additional directories (absolute), as last sent or reported.
        self.additional_dirs: list[str] | None = None
        self.commands: list[JsonObject] | None = None
        #: The prompts the agent suggests sending next (not history; see store.suggestions).
        self.suggestions: tuple[PromptSuggestion, ...] = ()
        self.plan: list[JsonObject] | None = None
        self.transcript: list[Entry] = []
        self.msg_index: dict[str, MessageEntry] = {}
        self.tool_index: dict[str, ToolCall] = {}
        #: When each tool call was first heard of (the store's clock), for how long it runs.
        self.tool_started: dict[str, float] = {}
        #: The tool calls that advertise ``capabilities.cancel`` now (v2 ``tool_call/cancel``).
        self.tool_cancel: set[str] = set()
        #: A subagent's parent session (``subagent_update``); None: a session of its own.
        self.parent_id: str | None = None
        #: The subagents this session started, in the order announced.
        self.children: list[str] = []
        #: A subagent's card in its parent's transcript (where it was announced).
        self.card: SubagentCard | None = None
        #: The work the agent runs apart from the foreground (v2 ``state_update``'s last
        #: ``background``, typed); None: never reported.
        self.background: list[BackgroundRef] | None = None
        self.live = False
        #: Created here by ``session/new`` and never prompted: the agent may not keep it, so it
        #: is neither listed nor remembered until its first prompt.
        self.draft = False
        self.listed = False
        self.indexed = False
        self.replaying = False
        self.resumable = False
        #: From ``session/list`` (unstable ``archived``) or an archive done here; None: not
        #: reported (an agent that does not archive).
        self.archived: bool | None = None
        #: The person named this session: their title wins over the agent's, listed or live.
        self.title_pinned = False
        self._first_prompt: str | None = None
        self._first_user: MessageEntry | None = None
        self._live_at: dict[str, float] = {}
        self._search_key: str | None = None
        self._order_key: tuple[bool, float, int] | None = None
        #: While a ``session/load`` replays a session whose transcript is already shown: the
        #: scratch state the replayed transcript is built in (see SessionStore.begin_replay).
        self._replay: SessionState | None = None
        #: This state is such a scratch: its changes are nobody's to draw.
        self.shadow = False

    @classmethod
    def preview(
        cls,
        defaults: dict[str, Any],
        *,
        mode: str | None = None,
        config: dict[str, Any] | None = None,
        model: str | None = None,
    ) -> SessionState:
        """A stand-in for a session not opened yet, in no store: ``defaults`` as a
        ``session/new`` answer gives them (``modes``, ``configOptions``, ``models``, and
        ``commands``), with the person's choices applied (``mode``, ``config``: option id ->
        value, the legacy ``model``), for the selectors and the ``/`` completion to read."""
        state = cls("")
        modes = defaults.get("modes")
        if isinstance(modes, dict):
            available = modes.get("availableModes")
            if isinstance(available, list):
                state.available_modes = [m for m in available if isinstance(m, dict)]
            current = modes.get("currentModeId")
            state.current_mode_id = current if isinstance(current, str) else None
        options = defaults.get("configOptions")
        if isinstance(options, list):
            state.config_options = [copy.deepcopy(o) for o in options if isinstance(o, dict)]
        models = defaults.get("models")
        if isinstance(models, dict):
            state.models = copy.deepcopy(models)
            if model is not None:
                state.models["currentModelId"] = model
        commands = defaults.get("commands")
        if isinstance(commands, list):
            state.commands = [c for c in commands if isinstance(c, dict)]
        if mode is not None:
            state.current_mode_id = mode
        chosen = config or {}
        for option in state.config_options or []:
            option_id = option.get("id", option.get("configId"))
            if option_id in chosen:
                option["currentValue"] = chosen[option_id]
        return state

    # -- derived ----------------------------------------------------------------------------
    @property
    def first_prompt(self) -> str | None:
        """Text of the first user prompt (as sent by this client, remembered by the local index,
        or the first user message in the transcript): the fallback title."""
        if self._first_prompt is not None:
            return self._first_prompt
        first = self._first_user
        return (first.text or None) if first is not None else None

    @first_prompt.setter
    def first_prompt(self, value: str | None) -> None:
        self._first_prompt = value

    @property
    def display_title(self) -> str:
        """Title, else the first line of the first prompt, else the session id."""
        if self.title:
            return self.title
        if self.first_prompt:
            first = self.first_prompt.strip().splitlines()
            if first:
                return first[0]
        return self.id

    @property
    def model_option(self) -> JsonObject | None:
        """The config option with ``category == "model"``, if any."""
        for opt in self.config_options or ():
            if isinstance(opt, dict) and opt.get("category") == "model":
                return opt
        return None

    @property
    def current_model(self) -> str | None:
        opt = self.model_option
        value = opt.get("currentValue") if opt else None
        return value if isinstance(value, str) else None

    def search_key(self) -> str:
        key = self._search_key
        if key is None:
            # What the row shows: its title, else its first prompt (the filter found no
            # untitled session by the words on its row, OpenHands' tester).
            shown = self.title or self.first_prompt or ""
            key = self._search_key = "\n".join((shown, self.cwd or "", self.id)).casefold()
        return key

    def order_key(self) -> tuple[bool, float, int]:
        key = self._order_key
        if key is None:
            ts = self.updated_ts
            key = self._order_key = (ts is None, -(ts or 0.0), self.seq)
        return key

    def snapshot(self) -> dict[str, Any]:
        """Plain data (no wall-clock values), for equality checks and debugging."""
        return {
            "id": self.id,
            "cwd": self.cwd,
            "title": self.title,
            "updated_at": self.updated_at,
            "created_at": self.created_at,
            "meta": self.meta,
            "context": self.context.to_dict() if self.context else None,
            "last_turn_usage": self.last_turn_usage.to_dict() if self.last_turn_usage else None,
            "activity": self.activity,
            "stop_reason": self.stop_reason,
            "turn": self.turn,
            "turn_started": self.turn_started,
            "unread": self.unread,
            "available_modes": self.available_modes,
            "current_mode_id": self.current_mode_id,
            "config_options": self.config_options,
            "models": self.models,
            "additional_dirs": self.additional_dirs,
            "commands": self.commands,
            "plan": self.plan,
            "parent_id": self.parent_id,
            "children": list(self.children),
            "background": [(b.kind, b.ref_id) for b in self.background]
            if self.background is not None
            else None,
            "live": self.live,
            "draft": self.draft,
            "listed": self.listed,
            "indexed": self.indexed,
            "replaying": self.replaying,
            "resumable": self.resumable,
            "archived": self.archived,
            "title_pinned": self.title_pinned,
            "first_prompt": self.first_prompt,
            "transcript": [e.to_dict() for e in self.transcript],
        }

    def __repr__(self) -> str:
        return f"<SessionState {self.id!r} live={self.live} title={self.title!r}>"


def live_state(s: SessionState) -> str | None:
    """What the session's row says about it: one of the ``LIVE_*`` values, or None (nothing
    going on). Waiting for the person wins over working; an error stays until the next turn;
    output not seen yet until the session is shown."""
    if s.replaying:
        return None
    if s.activity == ACTIVITY_REQUIRES_ACTION:
        return LIVE_WAITING
    if s.activity == ACTIVITY_RUNNING:
        return LIVE_WORKING
    if s.stop_reason == "error":
        return LIVE_ERROR
    if s.unread:
        return LIVE_UNREAD
    return None
