"""Redaction of what is shared: secrets, home directories, e-mail addresses and the person's
own patterns, found in text and replaced, each finding kept or undone by the person.

One engine for every face: the TUI's export review, ``acp-tui export --redact`` and the
redacted copy of a ``--record`` file all find and replace through :class:`Redactor`.

What is found (each rule has a name, said at the top of a redacted export):

- **Secrets by their format**: OpenAI (``sk-``, ``sk-proj-``), Anthropic (``sk-ant-``), GitHub
  (``ghp_`` and its kin, ``github_pat_``), GitLab (``glpat-``), AWS access key ids (``AKIA``...),
  Slack (``xox?-``), Google API keys (``AIza``), Stripe, Hugging Face, npm and PyPI tokens, JWTs.
- **Secrets near key words**: a value given to a name that says key, token, secret, password,
  credential or auth (``API_KEY=...``, ``"token": "..."``, ``password is ...``, ``Bearer ...``)
  when it looks random: long, high in entropy and of mixed characters. A git SHA or any hash in
  prose is not a secret; given to such a name (``token = 3f78...``) it is.
- **Private keys**: a PEM block (``-----BEGIN ... PRIVATE KEY-----`` to its END, or to the end
  of its base64 lines when the END is missing).
- **Passwords in URLs**: ``scheme://user:PASSWORD@host`` (the password only).
- **Home directories**: the running user's home and any ``/home/NAME``, ``/Users/NAME`` or
  ``C:\\Users\\NAME`` become ``~`` (a shared path names no one).
- **E-mail addresses**.
- **The person's patterns** (``[export.redact_patterns]`` in the config: name = regex).

Why patterns of our own rather than a secret-scanning library: detect-secrets (the one on
PyPI that fits offline) reports no positions (only the secret's value, and for a GitHub
token just its prefix), knows neither Anthropic keys nor OpenAI's project keys, flags every
word of prose as a "high entropy string" once its filters for source files are off, marks
only the first line of a private key, and takes half a second to import with requests and
PyYAML. Redaction needs exact spans; these rules are tested by class in
tests/test_redaction.py.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "RULES",
    "Finding",
    "FindingKey",
    "Redactor",
    "compile_patterns",
    "known_secrets",
    "mask",
]

#: The kinds of finding, as the review and the export's note name them.
SECRET = "secret"
PRIVATE_KEY = "private key"
URL_PASSWORD = "password in URL"
HOME = "home directory"
EMAIL = "e-mail address"
PATTERN = "config pattern"


@dataclass(frozen=True, slots=True)
class _Format:
    name: str
    pattern: re.Pattern[str]


# Secrets by their format: the name says what kind of key it is. A format's match must not be
# part of a longer word (the lookarounds), so that "task-ant-..." or an id inside a URL path
# of letters is not taken for a key.
_B = r"(?<![A-Za-z0-9_-])"
_E = r"(?![A-Za-z0-9_-])"
_FORMATS: tuple[_Format, ...] = tuple(
    _Format(name, re.compile(_B + body + _E))
    for name, body in (
        ("Anthropic key", r"(?i:sk-ant-)[A-Za-z0-9_-]{20,}"),
        ("OpenAI key", r"(?i:sk-(?!ant-)(?:proj-|svcacct-|admin-)?)[A-Za-z0-9_-]{20,}"),
        ("GitHub token", r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
        ("GitLab token", r"glpat-[A-Za-z0-9_-]{20,}"),
        ("AWS access key", r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}"),
        ("Slack token", r"xox[abposr]-[A-Za-z0-9-]{10,}"),
        ("Google API key", r"AIza[A-Za-z0-9_-]{35}"),
        ("Stripe key", r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"),
        ("Hugging Face token", r"hf_[A-Za-z0-9]{30,}"),
        ("npm token", r"npm_[A-Za-z0-9]{36}"),
        ("PyPI token", r"pypi-AgE[A-Za-z0-9_-]{50,}"),
        ("JWT", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    )
)

#: Every format in one scan (one pass over the text, not one per format): each its own group.
_ANY_FORMAT = re.compile(
    _B + "(?:" + "|".join(f"({f.pattern.pattern[len(_B) : -len(_E)]})" for f in _FORMATS) + ")" + _E
)

_PRIVATE_KEY = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"
    r"(?:.*?-----END \1-----|[A-Za-z0-9+/=\s:,.-]*)",
    re.DOTALL,
)
_URL_PASSWORD = re.compile(
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@\"'<>]+:([^\s/@\"'<>]+)@"
)
_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@"
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![A-Za-z0-9-])"
)
_HOMES = re.compile(
    r"(?<![A-Za-z0-9_.-])(?:/home/|/Users/|[A-Za-z]:\\Users\\)"
    r"(?!Shared(?![A-Za-z0-9._-]))[A-Za-z0-9._-]+(?![A-Za-z0-9._-])"
)
# A word that says a secret follows (at the end of a name, or inside it: ``DB_PASSWORD``,
# ``api_key_prod``), and what is given to it: ``API_KEY=v``, ``"token": "v"``, ``password is
# v``, ``--secret v``. The value is checked by :func:`_looks_random`. Every repetition is
# bounded, so the scan stays linear over long runs of name characters.
_GIVEN = re.compile(
    r"(?i)(?P<word>key|secret|token|passw(?:or)?d|passphrase|pwd|credential|auth)"
    r"[A-Za-z0-9_.-]{0,40}+[\"']?[ \t]*(?:[:=]|:=|=>|[ \t]+is[ \t]+|[ \t])[ \t]*[\"']?"
    r"(?P<value>[A-Za-z0-9+/=_.~!#$%^&*?@-]{6,512})"
)
_BEARER = re.compile(r"(?i)\bbearer\s+(?P<value>[A-Za-z0-9._~+/=-]{16,})")
_PASSWORD_NAME = re.compile(r"(?i)passw(?:or)?d|passphrase|pwd")
_HEX = re.compile(r"[0-9a-fA-F]+")


def entropy(text: str) -> float:
    """Shannon entropy of ``text``, in bits per character."""
    if not text:
        return 0.0
    counts = Counter(text)
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _classes(text: str) -> int:
    return sum(
        (
            any(c.islower() for c in text),
            any(c.isupper() for c in text),
            any(c.isdigit() for c in text),
        )
    )


def _looks_random(value: str, *, password: bool) -> bool:
    """Whether ``value``, given to a name that says key/token/secret (or password), is a
    secret rather than a word, a name or a placeholder. A password needs a letter and a
    digit or symbol (``hunter2``, ``Tr0ub4dor&3``; not ``self.password``); a key or token
    is long and random: hex of 32 or more (a hash given to a key word counts), or 16 or more
    characters of upper, lower and digits with high entropy."""
    value = value.strip(".,;:!?")
    if set(value) <= set("*xX#.-_<>") or value.lower() in {"changeme", "password", "secret"}:
        return False
    if password:
        symbols = any(not c.isalnum() and c not in "._-" for c in value)
        return (
            len(value) >= 6
            and any(c.isalpha() for c in value)
            and (any(c.isdigit() for c in value) or symbols)
        )
    if len(value) >= 32 and _HEX.fullmatch(value):
        return entropy(value) >= 3.0
    return len(value) >= 16 and _classes(value) == 3 and entropy(value) >= 3.5


def mask(secret: str) -> str:
    """A preview that never shows a secret whole: its first characters (at most 4, at most a
    quarter of it), dots, and how long it is: ``sk-a•••••• (108 chars)``. A private key
    shows its first line's kind; a home directory its first characters."""
    if secret.startswith("-----BEGIN"):
        first = secret.split("\n", 1)[0]
        lines = secret.count("\n") + 1
        return f"{first[:40]} … ({lines} line{'s' if lines != 1 else ''})"
    shown = secret[: min(4, len(secret) // 4)]
    return f"{shown}•••••• ({len(secret)} chars)"


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing found: its kind, the rule that found it, where (the caller's words, and the
    line in that text), its span in the text and what replaces it."""

    kind: str
    rule: str
    where: str
    line: int
    start: int
    end: int
    secret: str
    replacement: str

    @property
    def preview(self) -> str:
        return mask(self.secret)

    @property
    def key(self) -> FindingKey:
        """What identifies it from one pass to the next (where, line, what was found)."""
        return (self.where, self.line, self.secret)


#: A finding's :attr:`Finding.key`.
FindingKey = tuple[str, int, str]


def compile_patterns(patterns: Mapping[str, str]) -> tuple[dict[str, re.Pattern[str]], list[str]]:
    """The person's patterns compiled (name -> regex), and a problem per one that is not a
    valid regular expression (or matches the empty string: it would redact nothing but
    everywhere)."""
    compiled: dict[str, re.Pattern[str]] = {}
    problems: list[str] = []
    for name, source in patterns.items():
        try:
            pattern = re.compile(source)
        except re.error as error:
            problems.append(f"redact pattern {name!r}: {error}")
            continue
        if pattern.fullmatch(""):
            problems.append(f"redact pattern {name!r} matches empty text")
            continue
        compiled[name] = pattern
    return compiled, problems


#: Every built-in rule, as the export's note lists them.
RULES: tuple[str, ...] = (
    "secrets by format (" + ", ".join(f.name for f in _FORMATS) + ")",
    "secrets near key words (key, token, secret, password, credential, auth, Bearer)",
    "private keys",
    "passwords in URLs",
    "home directories (→ ~)",
    "e-mail addresses",
)


def _home_of_user() -> str | None:
    home = os.path.expanduser("~")
    return home if home not in ("~", "/", "") and len(home) > 1 else None


@dataclass
class Redactor:
    """Finds and replaces, text by text, numbering the findings in the order met.

    A face runs its renderer through :meth:`scrub` once to collect the findings, lets the
    person undo some, and runs it again with :attr:`undone` set to their keys: what was undone
    is written as it was, and anything else found (also what came since the first pass, in a
    session still streaming) is redacted."""

    patterns: Mapping[str, re.Pattern[str]] = field(default_factory=dict)
    #: The running user's home (None: none is replaced but the usual /home/NAME ones).
    home: str | None = field(default_factory=_home_of_user)
    #: Numbers of the findings the person undid: left as written.
    undone: frozenset[FindingKey] = frozenset()
    #: Secrets found elsewhere (a recording's whole messages): a piece of one, as a text cut
    #: into streamed chunks has them, is a secret too (see :func:`known_secrets`).
    known: frozenset[str] = frozenset()
    findings: list[Finding] = field(default_factory=list)

    def reset(self, undone: Iterable[Finding] = ()) -> None:
        """Start a new pass over the same texts, leaving ``undone`` as written."""
        self.undone = frozenset(finding.key for finding in undone)
        self.findings = []

    def learn(self) -> None:
        """Start another pass over the same texts knowing every secret found so far: a piece
        of one met anywhere (a line of a private key quoted alone, a key cut in two) is
        redacted too."""
        self.known = self.known | known_secrets(self.findings)
        self.findings = []

    def is_undone(self, finding: Finding) -> bool:
        """Whether the person left ``finding`` as written."""
        return finding.key in self.undone

    @property
    def rules(self) -> list[str]:
        """The rules in force, for the note at the top of the export."""
        own = [f"config pattern {name!r}" for name in self.patterns]
        return [*RULES, *own]

    def scrub(self, text: str, where: str) -> str:
        """``text`` with its findings replaced (those not undone); the findings are added to
        :attr:`findings`. ``where`` says where the text is, for the review."""
        if not text:
            return text
        found = self.find(text)
        out: list[str] = []
        last = 0
        for start, end, kind, rule, replacement in found:
            line = text.count("\n", 0, start) + 1
            finding = Finding(kind, rule, where, line, start, end, text[start:end], replacement)
            self.findings.append(finding)
            out.append(text[last:start])
            out.append(finding.secret if self.is_undone(finding) else replacement)
            last = end
        out.append(text[last:])
        return "".join(out)

    def find(self, text: str) -> list[tuple[int, int, str, str, str]]:
        """(start, end, kind, rule, replacement) of each finding in ``text``, in order, none
        overlapping: where two rules find overlapping text, the one listed first wins
        (private keys, URL passwords, formats, key words, the person's patterns, e-mail,
        homes)."""
        candidates: list[tuple[int, int, str, str, str]] = []
        for match in _PRIVATE_KEY.finditer(text):
            candidates.append(
                (match.start(), match.end(), PRIVATE_KEY, "private keys", "[redacted private key]")
            )
        for match in _URL_PASSWORD.finditer(text):
            candidates.append(
                (match.start(1), match.end(1), URL_PASSWORD, "passwords in URLs", "[redacted]")
            )
        for match in _ANY_FORMAT.finditer(text):
            name = _FORMATS[match.lastindex - 1].name if match.lastindex else "key"
            candidates.append((*match.span(), SECRET, name, f"[redacted {name}]"))
        for given in _GIVEN.finditer(text):
            password = bool(_PASSWORD_NAME.match(given.group("word")))
            value = given.group("value").rstrip(".,;:!?")
            if _looks_random(value, password=password):
                start = given.start("value")
                rule = "password near a key word" if password else "secret near a key word"
                candidates.append((start, start + len(value), SECRET, rule, "[redacted secret]"))
        for match in _BEARER.finditer(text):
            value = match.group("value")
            if _classes(value) >= 2 and entropy(value) >= 3.0:
                span = (match.start("value"), match.end("value"))
                candidates.append((*span, SECRET, "Bearer token", "[redacted secret]"))
        for label, pattern in self.patterns.items():
            for match in pattern.finditer(text):
                if match.end() > match.start():
                    rule = f"config pattern {label!r}"
                    candidates.append((*match.span(), PATTERN, rule, f"[redacted {label}]"))
        for match in _EMAIL.finditer(text):
            candidates.append(
                (match.start(), match.end(), EMAIL, "e-mail addresses", "[redacted e-mail]")
            )
        if self.known:
            for match in _PIECE.finditer(text):
                piece = match.group().lower()
                if any(piece in secret for secret in self.known):
                    rule = "part of a secret found elsewhere"
                    candidates.append((*match.span(), SECRET, rule, "[redacted secret]"))
        for start, end in _home_spans(text, self.home):
            candidates.append((start, end, HOME, "home directories", "~"))
        return _without_overlaps(candidates)


#: A run of key characters long enough to be a recognisable piece of a known secret.
_PIECE = re.compile(r"[A-Za-z0-9+/=_~-]{8,}")


def known_secrets(findings: Iterable[Finding]) -> frozenset[str]:
    """The secrets of ``findings`` (not homes or addresses), lower-cased, for
    :attr:`Redactor.known`: whole, and each line of a private key."""
    known: set[str] = set()
    for finding in findings:
        if finding.kind in (SECRET, PRIVATE_KEY, PATTERN):
            known.add(finding.secret.lower())
            known.update(line.strip().lower() for line in finding.secret.splitlines())
    return frozenset(secret for secret in known if len(secret) >= 8)


def _home_spans(text: str, home: str | None) -> list[tuple[int, int]]:
    spans = [(m.start(), m.end()) for m in _HOMES.finditer(text)]
    if home:
        own = re.compile(r"(?<![A-Za-z0-9_.-])" + re.escape(home) + r"(?![A-Za-z0-9._-])")
        spans += [(m.start(), m.end()) for m in own.finditer(text)]
    return spans


def _without_overlaps(
    candidates: Sequence[tuple[int, int, str, str, str]],
) -> list[tuple[int, int, str, str, str]]:
    """The candidates that overlap none listed before them, in the text's order."""
    taken: list[tuple[int, int, str, str, str]] = []
    for candidate in candidates:
        start, end = candidate[0], candidate[1]
        if all(end <= s or start >= e for s, e, *_ in taken):
            taken.append(candidate)
    return sorted(taken)
