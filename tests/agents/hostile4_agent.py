"""Round 4 of the hostile agent (issue 36: sizes without bounds): the round 1-3 agent
(:mod:`tests.agents.hostile3_agent`) with prompts of its own.

Prompts (the text of the first text block; arguments after a space):

- ``huge-word MB [end]``: one agent message of MB megabytes (default 5) with no space, newline
  or other break (the base64 alphabet), in chunks of :data:`WORD_CHUNK` characters, starting
  with :data:`WORD_START` and ending with :data:`WORD_END`; the turn is not ended (the person
  cancels it: the cancel is answered) unless ``end`` is given.

- ``many-fields N``: ``elicitation/create`` of a form of N text fields (default 5,000); the
  answer is reported as :data:`FORM_ANSWER` and the JSON of the answer, then the turn ends.

Everything a test asserts on is a constant of this module.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

try:  # imported by the tests
    from tests.agents import hostile3_agent as round3
except ImportError:  # run as a script: this directory is on sys.path
    import hostile3_agent as round3  # type: ignore[import-not-found,no-redef]

base = round3.base
say = base.say
respond = base.respond

#: ``huge-word``: what the word starts and ends with, and its chunks' length.
WORD_START = "WORDSTART"
WORD_END = "WORDEND"
WORD_CHUNK = 65_536
#: ``many-fields``: the start of the reply reporting the form's answer.
FORM_ANSWER = "form answer:"
_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def huge_word(size: int) -> str:
    """A word of ``size`` characters with no break in it, from :data:`WORD_START` to
    :data:`WORD_END`."""
    body = max(0, size - len(WORD_START) - len(WORD_END))
    return WORD_START + (_ALPHABET * (body // len(_ALPHABET) + 1))[:body] + WORD_END


class Agent(round3.Agent):
    """The round 1-3 agent with round 4's prompts."""

    def __init__(self, options: argparse.Namespace) -> None:
        super().__init__(options)
        #: The prompt left running (``huge-word`` without ``end``): answered on a cancel.
        self.running: Any = None

    def handle(self, message: dict[str, Any]) -> None:
        if message.get("method") == "session/cancel" and self.running is not None:
            request_id, self.running = self.running, None
            respond(request_id, {"stopReason": "cancelled"})
            return
        super().handle(message)

    def do_huge_word(self, request_id: Any, argument: str) -> None:
        size_text, _, end = argument.partition(" ")
        word = huge_word(int(float(size_text or "5") * 1_000_000))
        for start in range(0, len(word), WORD_CHUNK):
            say(word[start : start + WORD_CHUNK])
        if end.strip() == "end":
            self.end_turn(request_id)
        else:
            self.running = request_id

    def do_many_fields(self, request_id: Any, argument: str) -> None:
        count = int(argument or "5000")
        properties = {
            f"field{n:05d}": {"type": "string", "title": f"Field {n:05d}", "description": "d"}
            for n in range(count)
        }
        answer = self.request(
            "elicitation/create",
            {
                "sessionId": round3.SESSION_ID,
                "mode": "form",
                "message": f"A form of {count:,} fields",
                "requestedSchema": {"type": "object", "properties": properties},
            },
        )
        shown = {key: (answer or {}).get(key) for key in ("result", "error")}
        say(f"{FORM_ANSWER} {json.dumps(shown, sort_keys=True)}")
        self.end_turn(request_id)


def main(argv: list[str] | None = None) -> None:
    round3.main(argv, agent=Agent)


if __name__ == "__main__":
    main()
