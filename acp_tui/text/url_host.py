"""Where a URL really goes: its host as a browser resolves it, for the person to judge.

A page the agent asks the person to visit shows the site apart from the address, so that
``https://trusted.example.evil.example/`` or ``https://trusted.example@evil.example/`` is read
as evil.example. That only helps if the site shown is the one the browser would open, so the
host is read the way a browser reads it (the WHATWG URL standard, for http and https):

- tabs and line breaks anywhere are dropped, C0 controls and spaces around the URL stripped;
- ``\\`` counts as ``/``, and any run of slashes after ``https:`` is skipped;
- the user info (up to the last ``@``) and the port are not the host;
- the host is percent-decoded, mapped and lower-cased (IDNA: ``ＥＸＡＭＰＬＥ．com`` is
  ``example.com``), then made ASCII (punycode) as DNS sees it;
- a host that ends in a number is an IPv4 address in any of the forms a browser takes
  (``0x7f.1`` and ``2130706433`` are ``127.0.0.1``).

A host in another script is shown by its ASCII (punycode) name first, which is what is looked
up; its Unicode spelling is shown beside it only when each label keeps to one script (a
Cyrillic ``пример.рф``), never when a label mixes scripts (``аpple.com``, Cyrillic ``а``):
those are said to mix scripts instead. Pure Python; the dialog draws what this returns.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import unquote

__all__ = ["SiteHost", "site_host"]

#: Schemes a browser parses as "special" (an authority follows, ``\\`` is ``/``).
_SPECIAL = ("http", "https", "ws", "wss", "ftp")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
#: What a browser removes anywhere in a URL (ASCII tab and newline).
_DROPPED = re.compile("[\t\n\r]")
#: What it strips around a URL (C0 controls and space).
_AROUND = "".join(chr(c) for c in range(0x21))
#: Code points a browser refuses in a domain (WHATWG "forbidden domain code point").
_FORBIDDEN = frozenset("\x00\t\n\r #/:<>?@[\\]^|%\x7f") | frozenset(map(chr, range(0x20)))
#: Scripts that are written together in one label (Japanese, Korean, Chinese with
#: Bopomofo): not a mix.
_TOGETHER = (
    frozenset({"Han", "Hiragana", "Katakana"}),
    frozenset({"Han", "Hangul"}),
    frozenset({"Han", "Bopomofo"}),
)


@dataclass(frozen=True, slots=True)
class SiteHost:
    """A URL's host as a browser resolves it."""

    #: The host looked up: ASCII (punycode labels for other scripts), lower case, an IPv4
    #: address in dotted decimal; or the raw host when a browser would refuse it.
    host: str
    #: The Unicode spelling, when it differs and every label keeps to one script.
    unicode: str = ""
    #: The scripts a label mixes (then no Unicode spelling is offered).
    mixed_scripts: tuple[str, ...] = ()
    #: Why a browser would not open it ("" when it would).
    problem: str = ""


def site_host(url: str) -> SiteHost | None:
    """The host of ``url`` as a browser resolves it; None when it has none (``mailto:``)."""
    cleaned = _DROPPED.sub("", url).strip(_AROUND)
    match = _SCHEME.match(cleaned)
    scheme = match.group(1).lower() if match else ""
    rest = cleaned[len(scheme) + 1 :] if match else cleaned
    if scheme in _SPECIAL:
        rest = rest.lstrip("/\\")
        authority = re.split(r"[/\\?#]", rest, maxsplit=1)[0]
    elif rest.startswith("//"):
        authority = re.split(r"[/?#]", rest[2:], maxsplit=1)[0]
    else:
        return None
    host, port = _host_and_port(authority.rsplit("@", 1)[-1])
    if not host:
        return SiteHost("", problem="no host")
    if port and not port.isdigit():
        return SiteHost(host, problem="not a valid address (its port is not a number)")
    if host.startswith("["):
        return SiteHost(host.lower())  # an IPv6 literal, as written
    if scheme not in _SPECIAL:
        return SiteHost(host)  # an opaque host: not opened by acp-tui, shown as it is
    return _domain(unquote(host, errors="replace"))


def _host_and_port(host_port: str) -> tuple[str, str]:
    if host_port.startswith("["):
        end = host_port.find("]")
        if end < 0:
            return host_port, ""
        return host_port[: end + 1], host_port[end + 2 :]
    if ":" in host_port:
        host, port = host_port.rsplit(":", 1)
        return host, port
    return host_port, ""


def _domain(host: str) -> SiteHost:
    try:
        ascii_host = host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        return SiteHost(host, problem="not a valid host name")
    if any(char in _FORBIDDEN for char in ascii_host):
        return SiteHost(ascii_host, problem="not a valid host name")
    labels = ascii_host.split(".")
    last = labels[-1] if labels[-1] or len(labels) == 1 else labels[-2]
    if _number(last) is not None:
        address = _ipv4(labels)
        if address is None:
            return SiteHost(ascii_host, problem="not a valid address")
        return SiteHost(address)
    if "xn--" not in ascii_host:
        return SiteHost(ascii_host)
    try:
        spelt = ascii_host.encode("ascii").decode("idna")
    except UnicodeError:
        return SiteHost(ascii_host, problem="not a valid host name")
    mixed: list[str] = []
    for label in spelt.split("."):
        scripts = _scripts(label)
        if len(scripts) > 1 and not any(scripts <= together for together in _TOGETHER):
            mixed.extend(script for script in sorted(scripts) if script not in mixed)
    if mixed:
        return SiteHost(ascii_host, mixed_scripts=tuple(mixed))
    return SiteHost(ascii_host, unicode=spelt)


def _scripts(label: str) -> frozenset[str]:
    """The scripts of the letters of ``label`` (digits and hyphens belong to none), named by
    the first word of each letter's Unicode name (LATIN, CYRILLIC, GREEK, CJK...)."""
    found: set[str] = set()
    for char in label:
        if not unicodedata.category(char).startswith("L"):
            continue
        word = unicodedata.name(char, "UNKNOWN").split()[0]
        found.add({"CJK": "Han"}.get(word, word.title()))
    return frozenset(found)


def _number(part: str) -> int | None:
    """One part of an IPv4 address as a browser reads it: decimal, ``0x`` hex or ``0`` octal."""
    if part.startswith(("0x", "0X")):
        digits, base = part[2:], 16
    elif len(part) > 1 and part.startswith("0"):
        digits, base = part[1:], 8
    else:
        digits, base = part, 10
    if digits == "":
        return 0 if base == 16 else None
    try:
        return int(digits, base)
    except ValueError:
        return None


def _ipv4(labels: list[str]) -> str | None:
    """The dotted decimal address of a host ending in a number, or None if it is not one."""
    parts = labels[:-1] if labels[-1] == "" and len(labels) > 1 else labels
    if not 1 <= len(parts) <= 4:
        return None
    numbers = [_number(part) for part in parts]
    if any(number is None for number in numbers):
        return None
    values = [number for number in numbers if number is not None]
    if any(value > 255 for value in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        return None
    address = values[-1]
    for index, value in enumerate(values[:-1]):
        address += value * 256 ** (3 - index)
    return ".".join(str((address >> shift) & 0xFF) for shift in (24, 16, 8, 0))
