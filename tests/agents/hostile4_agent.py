"""Round 4 of the hostile agent (issue 36: sizes without bounds): the round 1-3 agent
(:mod:`tests.agents.hostile3_agent`) with prompts of its own.

Prompts (the text of the first text block; arguments after a space):

- ``huge-word MB [end]``: one agent message of MB megabytes (default 5) with no space, newline
  or other break (the base64 alphabet), in chunks of :data:`WORD_CHUNK` characters, starting
  with :data:`WORD_START` and ending with :data:`WORD_END`; the turn is not ended (the person
  cancels it: the cancel is answered) unless ``end`` is given.

- ``many-fields N``: ``elicitation/create`` of a form of N text fields (default 5,000); the
  answer is reported as :data:`FORM_ANSWER` and the JSON of the answer, then the turn ends.

- ``form-storm N``: N ``elicitation/create`` forms at once (default 200); once all are
  answered, :data:`STORM_ANSWERS` and how many of each answer (``cancel: 200``), and the turn
  ends (``cancelled`` if ``session/cancel`` came meanwhile).
- ``mode-to-config``: the session's ``modes`` (see ``--offer modes``) replaced by a config
  option of category ``mode`` with the same values (:data:`CONFIG_MODE`), in a
  ``config_option_update``; the turn ends.

- ``config-options N``: ``config_option_update`` with N select options (default 1,000), five
  values each (:func:`many_options`); the turn ends with :data:`OPTIONS_SENT`.

What ``session/new`` offers is read from :data:`OFFER_FILE` in the agent's directory when it
is there (so that two runs of the same command offer different things): ``modes``
(:data:`STALE_MODES` and :data:`STALE_MODEL`), ``nothing``, or ``config-mode``
(:data:`CONFIG_MODE` and :data:`FRESH_MODEL`); ``session/set_mode`` and
``session/set_config_option`` are then answered as a well-behaved agent does.

``session/fork`` is offered: with :data:`FORK_FILE` in the agent's directory saying
``source``, it is answered with the source session's own id (no branch made).

Everything a test asserts on is a constant of this module.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
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
#: What ``session/new`` offers, when this file is in the agent's directory (see the doc).
OFFER_FILE = "hostile4-offer.txt"
STALE_MODES = {
    "currentModeId": "plan",
    "availableModes": [
        {"id": "plan", "name": "Stale Plan"},
        {"id": "build", "name": "Stale Build"},
    ],
}
STALE_MODEL = {
    "id": "model",
    "name": "Model",
    "category": "model",
    "type": "select",
    "currentValue": "old",
    "options": [{"value": "old", "name": "Stale Model"}],
}
CONFIG_MODE = {
    "id": "mode",
    "name": "Mode",
    "category": "mode",
    "type": "select",
    "currentValue": "plan",
    "options": [{"value": "plan", "name": "Fresh Plan"}, {"value": "build", "name": "Fresh Build"}],
}
FRESH_MODEL = {
    **STALE_MODEL,
    "currentValue": "new",
    "options": [{"value": "new", "name": "Fresh Model"}],
}
MODE_MOVED = "The mode is a config option now."
#: When this file in the agent's directory says ``source``, a fork is answered with the
#: source's own id.
FORK_FILE = "hostile4-fork.txt"
OPTIONS_SENT = "Options sent."
STORM_ANSWERS = "storm answers:"


def many_options(count: int) -> list[dict[str, Any]]:
    """``count`` select options named "Setting 0001"..., five values each."""
    return [
        {
            "id": f"setting{n:04d}",
            "name": f"Setting {n:04d}",
            "category": "other",
            "type": "select",
            "currentValue": "v0",
            "options": [{"value": f"v{k}", "name": f"Value {k}"} for k in range(5)],
        }
        for n in range(1, count + 1)
    ]


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
        method = message.get("method")
        request_id = message.get("id")
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        if method == "session/cancel" and self.running is not None:
            request_id, self.running = self.running, None
            respond(request_id, {"stopReason": "cancelled"})
            return
        if method == "session/fork":
            fork = Path(FORK_FILE)
            source = params.get("sessionId")
            same = fork.exists() and fork.read_text().strip() == "source"
            respond(request_id, {"sessionId": source if same else "hostile-fork-1"})
            return
        offer = self.offer()
        if offer is not None and method == "session/new":
            respond(request_id, {"sessionId": round3.SESSION_ID, **offer})
            return
        if offer is not None and method in ("session/set_mode", "session/set_config_option"):
            respond(request_id, self.configured(params) if "configId" in params else {})
            return
        super().handle(message)

    def more_capabilities(self) -> dict[str, Any]:
        caps = super().more_capabilities()
        sessions = caps.setdefault("sessionCapabilities", {})
        if isinstance(sessions, dict):
            sessions["fork"] = {}
        return caps

    @staticmethod
    def offer() -> dict[str, Any] | None:
        """What ``session/new`` offers (see :data:`OFFER_FILE`); None: the round 1-3 way."""
        path = Path(OFFER_FILE)
        if not path.exists():
            return None
        return {
            "modes": {"modes": STALE_MODES, "configOptions": [STALE_MODEL]},
            "nothing": {},
            "config-mode": {"configOptions": [CONFIG_MODE, FRESH_MODEL]},
        }[path.read_text().strip()]

    def configured(self, params: dict[str, Any]) -> dict[str, Any]:
        offered = (self.offer() or {}).get("configOptions", [])
        options = [
            {**option, "currentValue": params.get("value")}
            if option["id"] == params.get("configId")
            else option
            for option in offered
        ]
        return {"configOptions": options}

    def do_form_storm(self, request_id: Any, argument: str) -> None:
        count = int(argument or "200")
        ids = []
        for n in range(count):
            self.next_request += 1
            ids.append(f"storm-{self.next_request}")
            base.send(
                {
                    "jsonrpc": "2.0",
                    "id": ids[-1],
                    "method": "elicitation/create",
                    "params": {
                        "sessionId": round3.SESSION_ID,
                        "mode": "form",
                        "message": f"Question {n + 1} of {count}",
                        "requestedSchema": {
                            "type": "object",
                            "properties": {"answer": {"type": "string", "title": "Answer"}},
                        },
                    },
                }
            )
        answers: dict[str, int] = {}
        waiting = set(ids)
        cancelled = False
        while waiting:
            message = self.read()
            if message is None:
                return
            if message.get("method") == "session/cancel":
                cancelled = True
            elif "method" not in message and message.get("id") in waiting:
                waiting.discard(message["id"])
                result = message.get("result") or {}
                action = result.get("action", "error") if isinstance(result, dict) else "error"
                answers[action] = answers.get(action, 0) + 1
            else:
                self.handle(message)
        shown = ", ".join(f"{action}: {n}" for action, n in sorted(answers.items()))
        say(f"{STORM_ANSWERS} {shown}")
        respond(request_id, {"stopReason": "cancelled" if cancelled else "end_turn"})

    def do_config_options(self, request_id: Any, argument: str) -> None:
        options = many_options(int(argument or "1000"))
        base.update({"sessionUpdate": "config_option_update", "configOptions": options})
        say(OPTIONS_SENT)
        self.end_turn(request_id)

    def do_mode_to_config(self, request_id: Any, argument: str) -> None:
        base.update(
            {"sessionUpdate": "config_option_update", "configOptions": [CONFIG_MODE, STALE_MODEL]}
        )
        say(MODE_MOVED)
        self.end_turn(request_id)

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
