"""What the demo agent says: slash commands, help, composed replies and flood text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    description: str
    hint: str | None = None
    #: What /help shows after the name, when the hint alone does not say it.
    usage: str | None = None

    def to_json(self, v2: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "description": self.description}
        if v2:
            data = {"type": "command", **data}
        if self.hint is not None:
            data["input"] = {"type": "text", "hint": self.hint} if v2 else {"hint": self.hint}
        return data

    def usage_line(self) -> str:
        if self.usage is not None:
            return f"/{self.name} {self.usage}"
        return f"/{self.name}" + (f" {self.hint.upper()}" if self.hint else "")


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
        "Edit a file: a diff, a permission request, then the write",
        "path of the file",
    ),
    Command("run", "Run a shell command in a terminal, after asking permission", "command line"),
    Command(
        "change",
        "Change files both ways: write one through the client, create one and delete one "
        "on disk (try a rewind after)",
        "written created deleted (optional)",
        usage="[WRITTEN [CREATED [DELETED]]]",
    ),
    Command(
        "rewrite",
        "Write a file through the client, changed in several places (every tenth line): "
        "try Ctrl+P → Review writes first",
        "path (optional)",
        usage="[PATH]",
    ),
    Command(
        "plan",
        "Show a multi-step plan that progresses during the turn; `clear` removes it",
        "clear (optional)",
        usage="[clear]",
    ),
    Command(
        "think",
        "Stream reasoning (thought chunks) before the answer; the Thinking option sets how much",
        "topic (optional)",
        usage="[TOPIC]",
    ),
    Command(
        "ask",
        "Ask you questions with a form (elicitation); `url` sends you to a web page instead",
        "url [seconds] (optional)",
        usage="[url [SECONDS]]",
    ),
    Command(
        "login",
        "Require sign-in from now on (auth_required until the client authenticates)",
        "off | status (optional)",
        usage="[off | status]",
    ),
    Command(
        "signout",
        "Sign you out on the agent's side (a token that expired), pushed as auth/status_update",
    ),
    Command(
        "compact",
        "Compact the context: compaction updates, a streamed summary, a smaller context",
        "fail (optional)",
        usage="[fail]",
    ),
    Command(
        "notice",
        "Send a live notice (not part of the history)",
        "[info|warning|error] title | description",
        usage="[info|warning|error] TITLE [| DESCRIPTION]",
    ),
    Command("image", "Describe the images and other blocks attached to this prompt"),
    Command("dirs", "List this session's directories (cwd and additional directories)"),
    Command("system", "Show the system prompt the client sent with this session"),
    Command(
        "suggest",
        "Suggest these prompts after this reply (none: withdraw the suggestions)",
        "prompt | another prompt",
        usage="[PROMPT [| PROMPT]...]",
    ),
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
    Command(
        "drop",
        "v2: take this prompt, then exit before answering it (acp-tui reconnects and sends it "
        "again, with the same idempotency key: it is not run twice)",
    ),
    Command(
        "stall",
        "v2: take this prompt and never answer it (kill the agent: acp-tui reconnects and "
        "sends it again, with the same idempotency key: it is not run twice)",
    ),
    Command(
        "subagents",
        "Hand the work to two subagents (child sessions; one asks a permission) and wait",
    ),
    Command(
        "background",
        "Start work that runs on after the turn (a watcher, a terminal, a subagent), "
        "each cancellable",
        "seconds (default 120)",
    ),
    Command(
        "cost",
        "Make this turn cost AMOUNT (the spend ledger and budgets; negative: the total drops)",
        "amount, e.g. 1.25",
    ),
)

COMMAND_NAMES = frozenset(command.name for command in COMMANDS)


def help_text() -> str:
    lines = [
        "## acp-tui demo agent\n\n",
        "I am a real ACP agent with no network and no model: everything I say is composed ",
        "from your prompt. These commands show what the client can do:\n\n",
        "| Command | What it does |\n",
        "| --- | --- |\n",
    ]
    for command in COMMANDS:
        # A pipe inside a table cell must be escaped, even in a code span (GFM).
        usage = command.usage_line().replace("|", "\\|")
        lines.append(f"| `{usage}` | {command.description} |\n")
    lines.append(
        "\nAnything else is echoed back with a little Markdown; attach images or files and "
        "I describe what arrived. The session's options (mode, model, thinking, reply length "
        "and format, asking before tools) change how I answer. Sessions are saved, so you "
        "can list, load, resume, fork, rename, archive and delete them later.\n"
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


def echo_reply(
    text: str,
    extra: list[str],
    *,
    mode: str,
    model_name: str,
    turn: int,
    verbosity: str = "normal",
    plain: bool = False,
    fast: bool = False,
) -> str:
    """The answer to an ordinary prompt, shaped by the reply length, format and speed
    options."""

    def strong(s: str) -> str:
        return s if plain else f"**{s}**"

    def emph(s: str) -> str:
        return s if plain else f"*{s}*"

    def code(s: str) -> str:
        return s if plain else f"`{s}`"

    words = text.split()
    if plain:
        quoted = "\n".join(f"  {line}" for line in text.splitlines()) or "  (empty)"
    else:
        quoted = (
            "\n".join(f"> {line}" if line else ">" for line in text.splitlines()) or "> (empty)"
        )
    parts = [f"You said ({len(words)} words, {len(text)} characters):\n\n{quoted}\n\n"]
    if extra:
        parts.append("Your prompt also carried:\n\n" + "\n".join(extra) + "\n\n")
    if verbosity == "short":
        parts.append(f"Answered briefly by {model_name}.")
        return "".join(parts)
    if mode == "ask":
        parts.append(f"I'm in {strong('Ask')} mode, so I'll just answer. ")
    elif mode == "yolo":
        parts.append(
            f"I'm in {strong('YOLO')} mode (permissions bypassed): {code('/edit')} and {code('/run')} "
            "go ahead without asking you. "
        )
    else:
        parts.append(
            f"I'm in {strong('Code')} mode: try {code('/edit')} or {code('/run')} to see tool calls. "
        )
    parts.append(
        f"This is turn {turn} of this session, answered by {emph(model_name)} "
        + ("at Fast speed " if fast else "")
        + "(a pretend model: no network, no tokens were harmed).\n\n"
    )
    if words:
        longest = max(words, key=len)
        bullet = "-"
        parts.append(
            "A few facts about your message:\n\n"
            f"{bullet} the longest word is {code(longest)}\n"
            f"{bullet} it reads backwards as {emph(' '.join(reversed(words[:8])))}\n"
            f"{bullet} upper-cased: {strong(text[:60].upper())}\n"
        )
        if verbosity == "long":
            vowels = sum(ch in "aeiouAEIOU" for ch in text)
            distinct = len({w.lower() for w in words})
            parts.append(
                f"{bullet} it has {vowels} vowels and {distinct} distinct words\n"
                f"{bullet} its average word is {sum(map(len, words)) / len(words):.1f} letters long\n"
                f"{bullet} the shortest word is {code(min(words, key=len))}\n"
            )
        parts.append("\n")
    parts.append(f"Type {code('/help')} to see every command I know.")
    return "".join(parts)


_THOUGHT_PARAGRAPHS = (
    "First I consider what a real agent would do here: read the request, plan a few steps, "
    "and check them against the workspace.",
    "Then I weigh the alternatives: answer at once, ask a question with a form, or run a "
    "tool. A demo has no workspace to speak of, so showing the reasoning is the point.",
    "I also check the session's options: the mode says how bold to be, the model how much it "
    "costs, and the thinking level how long this part should be.",
    "Finally I decide that, being a demo, the honest answer is to show my reasoning as "
    "thought chunks and then answer briefly.",
)


def thought_text(topic: str, paragraphs: int) -> str:
    """``paragraphs`` paragraphs of reasoning (0: none), opening with the topic."""
    if paragraphs <= 0:
        return ""
    words = topic.split()
    about = f"about “{' '.join(words[:12])}”" if words else "without a topic"
    opening = f"The user asked me to think {about}; the prompt has {len(words)} words. "
    middle = list(_THOUGHT_PARAGRAPHS[1:-1])[: max(0, paragraphs - 2)]
    closing = [_THOUGHT_PARAGRAPHS[-1]] if paragraphs >= 2 else []
    return opening + "\n\n".join([_THOUGHT_PARAGRAPHS[0], *middle, *closing])


def brief_thought(text: str) -> str:
    """The one-line thought before every reply at the High thinking level."""
    return f"Reading the prompt ({len(text.split())} words) before answering."


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


#: What the demo suggests sending next, three at a time, turn by turn.
_NEXT_PROMPTS = ("/edit notes.txt", "/run ls -la", "/plan", "/think why", "/help")


def next_prompts(command: str | None, turn: int) -> list[str]:
    """Three of the demo's commands to try next, not the one just run."""
    ring = [p for p in _NEXT_PROMPTS if command is None or p.split()[0] != f"/{command}"]
    start = turn % len(ring)
    return [ring[(start + i) % len(ring)] for i in range(3)]
