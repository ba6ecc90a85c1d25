"""What the demo agent says: slash commands, help, composed replies and flood text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    description: str
    hint: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "description": self.description}
        if self.hint is not None:
            data["input"] = {"hint": self.hint}
        return data


COMMANDS: tuple[Command, ...] = (
    Command("help", "List the demo agent's commands"),
    Command("title", "Rename this session", "new title"),
    Command(
        "fill",
        "Jump the context window to a percentage (shows the gauge thresholds)",
        "percent, e.g. 80",
    ),
    Command(
        "edit",
        "Edit a file: a diff, a permission request, then fs/write_text_file",
        "path of the file",
    ),
    Command(
        "run", "Run a shell command in a client terminal, after asking permission", "command line"
    ),
    Command("plan", "Show a multi-step plan that progresses during the turn"),
    Command("think", "Stream some reasoning (thought chunks) before the answer"),
    Command(
        "slow",
        "A long turn (about 30 s of chunks): try cancel and queued prompts",
        "seconds (default 30)",
    ),
    Command(
        "flood",
        "Stream N chunks as fast as possible (for benchmarks)",
        "N [chunk bytes: 20 if left out]",
    ),
    Command("crash", "Exit the agent process in the middle of the turn"),
)

COMMAND_NAMES = frozenset(command.name for command in COMMANDS)

MODES: tuple[dict[str, str], ...] = (
    {
        "id": "ask",
        "name": "Ask",
        "description": "Answer questions; changes still need your permission",
    },
    {
        "id": "code",
        "name": "Code",
        "description": "Edit files and run commands, asking permission first",
    },
)
MODE_IDS = frozenset(mode["id"] for mode in MODES)

# (value, name, description, price in USD per million input tokens, per million output tokens)
MODELS: tuple[tuple[str, str, str, float, float], ...] = (
    ("demo-swift", "Demo Swift", "Quick and cheap (pretend)", 0.25, 1.25),
    ("demo-balanced", "Demo Balanced", "The sensible middle (pretend)", 3.0, 15.0),
    ("demo-deep", "Demo Deep", "Slow, thorough and pricey (pretend)", 15.0, 75.0),
)
MODEL_IDS = frozenset(model[0] for model in MODELS)
MODEL_CONFIG_ID = "model"


def model_prices(model: str) -> tuple[float, float]:
    for value, _name, _description, price_in, price_out in MODELS:
        if value == model:
            return price_in, price_out
    return MODELS[0][3], MODELS[0][4]


def model_name(model: str) -> str:
    for value, name, *_rest in MODELS:
        if value == model:
            return name
    return model


def config_options(model: str) -> list[dict[str, Any]]:
    return [
        {
            "id": MODEL_CONFIG_ID,
            "name": "Model",
            "description": "Which (pretend) model answers",
            "category": "model",
            "type": "select",
            "currentValue": model,
            "options": [
                {"value": value, "name": name, "description": description}
                for value, name, description, _in, _out in MODELS
            ],
        }
    ]


def modes_state(mode: str) -> dict[str, Any]:
    return {"currentModeId": mode, "availableModes": [dict(m) for m in MODES]}


def help_text() -> str:
    lines = [
        "## acp-tui demo agent\n\n",
        "I am a real ACP agent with no network and no model: everything I say is composed ",
        "from your prompt. These commands show what the client can do:\n\n",
        "| Command | What it does |\n",
        "| --- | --- |\n",
    ]
    for command in COMMANDS:
        usage = f"/{command.name}" + (f" {command.hint.upper()}" if command.hint else "")
        lines.append(f"| `{usage}` | {command.description} |\n")
    lines.append(
        "\nAnything else is echoed back with a little Markdown. Sessions are saved, so you "
        "can list, load, resume and delete them later.\n"
    )
    return "".join(lines)


def title_from_prompt(text: str, words: int = 6, limit: int = 60) -> str:
    parts = text.split()
    if not parts:
        return "Untitled session"
    title = " ".join(parts[:words])
    if len(parts) > words:
        title += "…"
    if len(title) > limit:
        title = title[: limit - 1].rstrip() + "…"
    return title


def describe_blocks(blocks: list[dict[str, Any]]) -> list[str]:
    """One line per non-text prompt block, so the reply shows what arrived."""
    lines: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            continue
        if kind == "resource_link":
            lines.append(f"- a link to `{block.get('uri', '?')}` ({block.get('name', 'unnamed')})")
        elif kind == "resource":
            embedded = block.get("resource")
            resource = embedded if isinstance(embedded, dict) else {}
            size = len(resource.get("text") or resource.get("blob") or "")
            lines.append(
                f"- an embedded resource `{resource.get('uri', '?')}` ({size:,} characters)"
            )
        elif kind in ("image", "audio"):
            size = len(block.get("data") or "")
            lines.append(f"- an {kind} ({block.get('mimeType', '?')}, {size:,} base64 characters)")
        else:
            lines.append(f"- a `{kind}` block")
    return lines


def echo_reply(text: str, blocks: list[dict[str, Any]], mode: str, model: str, turn: int) -> str:
    words = text.split()
    quoted = "\n".join(f"> {line}" if line else ">" for line in text.splitlines()) or "> (empty)"
    parts = [
        f"You said ({len(words)} words, {len(text)} characters):\n\n{quoted}\n\n",
    ]
    extra = describe_blocks(blocks)
    if extra:
        parts.append("Your prompt also carried:\n\n" + "\n".join(extra) + "\n\n")
    if mode == "ask":
        parts.append("I'm in **Ask** mode, so I'll just answer. ")
    else:
        parts.append("I'm in **Code** mode: try `/edit` or `/run` to see tool calls. ")
    parts.append(
        f"This is turn {turn} of this session, answered by *{model_name(model)}* "
        "(a pretend model: no network, no tokens were harmed).\n\n"
    )
    if words:
        longest = max(words, key=len)
        parts.append(
            "A few facts about your message:\n\n"
            f"- the longest word is `{longest}`\n"
            f"- it reads backwards as *{' '.join(reversed(words[:8]))}*\n"
            f"- upper-cased: **{text[:60].upper()}**\n\n"
        )
    parts.append("Type `/help` to see every command I know.")
    return "".join(parts)


def thought_text(text: str) -> str:
    words = text.split()
    return (
        "The user asked me to think. Let me look at the prompt: "
        f"it has {len(words)} words. "
        "First I consider what a real agent would do here: read the request, "
        "plan a few steps, and check them against the workspace. "
        "Then I decide that, being a demo, the honest answer is to show my reasoning "
        "as thought chunks and then answer briefly."
    )


PLAN_STEPS: tuple[tuple[str, str], ...] = (
    ("Read the request and the workspace", "high"),
    ("Sketch the change", "high"),
    ("Apply the change", "medium"),
    ("Run the checks", "medium"),
    ("Summarise what was done", "low"),
)


def plan_entries(progress: int, *, running: bool) -> list[dict[str, Any]]:
    """Entries before index ``progress`` are completed; ``progress`` itself is in progress
    if ``running``."""
    entries = []
    for index, (content, priority) in enumerate(PLAN_STEPS):
        if index < progress:
            status = "completed"
        elif index == progress and running:
            status = "in_progress"
        else:
            status = "pending"
        entries.append({"content": content, "priority": priority, "status": status})
    return entries


_FLOOD_SECTIONS = (
    "## Section {n}\n\nStreaming **bold**, *italic* and `code` spans through the renderer, "
    "with a [link](https://agentclientprotocol.com) for good measure.\n\n",
    "- item one of list {n}\n- item two with `inline code`\n  - a nested item\n- item three\n\n",
    "```python\ndef section_{n}(x: int) -> int:\n    # a code block inside a flood\n"
    "    return x * {n} + 1\n```\n\n",
    "| Column | Value | Note |\n| --- | ---: | --- |\n| alpha | {n} | first |\n"
    "| beta | {n}{n} | second |\n| gamma | {n}.5 | third |\n\n",
    "1. numbered step {n}\n2. another step\n3. a final step with ~~strike~~\n\n"
    "> a quote in section {n}\n\n",
)


def flood_text(size: int) -> str:
    """At least ``size`` characters of mixed Markdown, cut to exactly ``size``."""
    pieces: list[str] = []
    total = 0
    n = 0
    while total < size:
        piece = _FLOOD_SECTIONS[n % len(_FLOOD_SECTIONS)].format(n=n // len(_FLOOD_SECTIONS) + 1)
        pieces.append(piece)
        total += len(piece)
        n += 1
    return "".join(pieces)[:size]


SLOW_LINES = (
    "Working on it",
    "still thinking",
    "reading a file that does not exist",
    "considering alternatives",
    "almost there (not really)",
)
