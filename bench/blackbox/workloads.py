"""The replies the bench agent streams, as lists of chunks (one ``agent_message_chunk`` each).

Standard library only: the bench agent imports this and must start fast. Every reply starts
with :data:`BEGIN` and ends with :data:`END` (the agent numbers them by turn: :func:`marker`),
words found nowhere else, so "the last word is on
the screen" and "the first words are reachable by scrolling" are plain text checks.
"""

from __future__ import annotations

from collections.abc import Callable

BEGIN = "BEGINMARK"
END = "ENDMARK"


def marker(word: str, turn: int) -> str:
    """The marker the bench agent sends in reply ``turn`` (1 for a session's first prompt)."""
    return f"{word}{turn:03d}"


WORDS = (
    "the agent reads the parser and finds two problems in the greeting code while the tests "
    "keep running and the plan moves on to the next step of the refactoring with care"
).split()


def paragraph(n: int, words: int = 60) -> str:
    body = " ".join(WORDS[(n + k) % len(WORDS)] for k in range(words))
    return body[0].upper() + body[1:] + "."


def paragraphs(count: int) -> list[str]:
    """``count`` Markdown paragraphs, one per chunk."""
    chunks = [paragraph(n) + "\n\n" for n in range(count)]
    chunks[0] = f"{BEGIN} opens the reply. " + chunks[0]
    chunks[-1] = chunks[-1][: -len(".\n\n")] + f" {END}.\n\n"
    return chunks


def tokens(count: int) -> list[str]:
    """``count`` tokens of mixed Markdown (paragraphs, lists, code blocks), one per chunk."""
    unit: list[str] = []
    for n in range(6):
        unit += [WORDS[(n + k) % len(WORDS)] + " " for k in range(60)]
        unit.append(".\n\n")
        unit += [f"- item {n}.{k} with `code_{k}` and **bold** text\n" for k in range(3)]
        unit.append("\n")
        if n % 2 == 0:
            unit += ["```python\n", f"def step_{n}(x: int) -> int:\n", "    return x + 1\n"]
            unit.append("```\n\n")
    chunks = [BEGIN + " "]
    while len(chunks) < count - 1:
        chunks += unit[: count - 1 - len(chunks)]
    fences = sum(chunk.startswith("```") for chunk in chunks)
    chunks.append(("\n```\n\n" if fences % 2 else "") + END)
    return chunks[:count] if count > 1 else [f"{BEGIN} {END}"]


def one_paragraph(count: int) -> list[str]:
    """One paragraph of ``count`` words, a word per chunk (no line break anywhere)."""
    chunks = [BEGIN + " "]
    chunks += [WORDS[n % len(WORDS)] + " " for n in range(1, count - 1)]
    chunks.append(END)
    return chunks


def one_chunk(size: int) -> list[str]:
    """Markdown paragraphs of about ``size`` characters in one chunk."""
    parts = [f"{BEGIN} opens the reply.\n\n"]
    total = len(parts[0])
    n = 0
    while total < size - 100:
        part = paragraph(n) + "\n\n"
        parts.append(part)
        total += len(part)
        n += 1
    parts.append(f"The last words: {END}.\n")
    return ["".join(parts)]


def one_word(size: int) -> list[str]:
    """One word of about ``size`` characters with no break opportunity (base64-like: letters,
    digits, ``+`` and ``/``; no space, newline or hyphen), between the markers, in one chunk."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    body_size = max(1, size - len(BEGIN) - len(END) - 2)
    repeats = -(-body_size // len(alphabet))
    body = (alphabet * repeats)[:body_size]
    return [f"{BEGIN} {body} {END}"]


#: Workload name -> the chunks of its reply. Sizes are part of the name's meaning.
WORKLOADS: dict[str, Callable[[], list[str]]] = {
    "paragraphs": lambda: paragraphs(400),
    "tokens1k": lambda: tokens(1_000),
    "tokens16k": lambda: tokens(16_000),
    "long12k": lambda: one_paragraph(12_000),
    "chunk5mb": lambda: one_chunk(5_000_000),
    "chunk50mb": lambda: one_chunk(50_000_000),
    "chunks200k": lambda: one_paragraph(200_000),
    "word5mb": lambda: one_word(5_000_000),
    "word50mb": lambda: one_word(50_000_000),
    # Tiny ones, for the smoke test.
    "tiny": lambda: paragraphs(3),
    "tinytokens": lambda: tokens(40),
}

#: Seconds between chunks of a paced stream (the issue's "paced at 5 ms per chunk").
PACE = 0.005

#: Sized kinds, for ``KIND:N`` names (``tokens:2000``: a key flood of a chosen length).
KINDS: dict[str, Callable[[int], list[str]]] = {
    "paragraphs": paragraphs,
    "tokens": tokens,
    "paragraph": one_paragraph,
    "chunk": one_chunk,
    "word": one_word,
}


def chunks_for(name: str) -> list[str]:
    """The chunks of workload ``name`` (a key of WORKLOADS, or ``KIND:N``); KeyError if none."""
    if ":" in name:
        kind, _, size = name.partition(":")
        return KINDS[kind](max(2, int(size)))
    return WORKLOADS[name]()
