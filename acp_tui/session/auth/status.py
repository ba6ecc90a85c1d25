"""The agent's sign-in state as it reports it (unstable ``auth/status``, pushed as
``auth/status_update``): read tolerantly, worded for the person.

https://agentclientprotocol.com/rfds/get-auth-state: ``state`` is the only field to act on
(an unknown value means ``unknown``); the accounts are for display only, never an identifier,
and are not logged or sent anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from acp_tui.text.safety import one_line
from acp_tui.wire.constants import AuthStateName

__all__ = ["Account", "AuthStatus"]

#: The states this client knows; anything else reads as ``unknown``.
KNOWN_STATES = frozenset(
    {
        AuthStateName.AUTHENTICATED,
        AuthStateName.UNAUTHENTICATED,
        AuthStateName.NOT_REQUIRED,
        AuthStateName.UNKNOWN,
    }
)
#: The longest account text shown (a label, a name, an e-mail address).
ACCOUNT_LIMIT = 60


def _text(raw: dict[str, Any], key: str) -> str | None:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        return None
    return one_line(value, ACCOUNT_LIMIT)


@dataclass(frozen=True, slots=True)
class Account:
    """One account or credential the agent has configured (display information only)."""

    label: str
    name: str | None = None
    email: str | None = None
    organization: str | None = None
    active: bool | None = None

    @classmethod
    def parse(cls, raw: Any) -> Account | None:
        """An ``AuthAccount``; None without a label (skipped, as the schema says)."""
        if not isinstance(raw, dict):
            return None
        label = _text(raw, "label")
        if label is None:
            return None
        active = raw.get("active")
        return cls(
            label=label,
            name=_text(raw, "name"),
            email=_text(raw, "email"),
            organization=_text(raw, "organization"),
            active=active if isinstance(active, bool) else None,
        )

    def describe(self) -> str:
        """``Claude Max (ada@example.com, Acme)``: the label, then who and where."""
        who = [part for part in (self.email or self.name, self.organization) if part]
        return f"{self.label} ({', '.join(who)})" if who else self.label


@dataclass(frozen=True, slots=True)
class AuthStatus:
    """What the agent said of its sign-in, last."""

    state: str
    accounts: tuple[Account, ...] = ()

    @classmethod
    def parse(cls, raw: Any) -> AuthStatus:
        """An ``auth/status`` answer or ``auth/status_update``; whatever is malformed reads
        as ``unknown`` with no accounts."""
        if not isinstance(raw, dict):
            return cls(AuthStateName.UNKNOWN)
        state = raw.get("state")
        accounts = raw.get("accounts")
        parsed = (Account.parse(item) for item in accounts) if isinstance(accounts, list) else ()
        return cls(
            state if isinstance(state, str) and state in KNOWN_STATES else AuthStateName.UNKNOWN,
            tuple(account for account in parsed if account is not None),
        )

    @property
    def signed_in(self) -> bool:
        return self.state == AuthStateName.AUTHENTICATED

    @property
    def needs_sign_in(self) -> bool:
        """The person has to sign in before the agent can start sessions."""
        return self.state == AuthStateName.UNAUTHENTICATED

    @property
    def in_use(self) -> tuple[Account, ...]:
        """The accounts the agent uses: those marked active, else all it listed."""
        active = tuple(account for account in self.accounts if account.active)
        return active or self.accounts

    def headline(self) -> str:
        """A few words for the header: who is signed in, or that nobody is; empty when there
        is nothing to say (no sign-in needed, or the agent cannot tell)."""
        if self.needs_sign_in:
            return "not signed in"
        if not self.signed_in:
            return ""
        accounts = self.in_use
        if not accounts:
            return "signed in"
        first = accounts[0].describe()
        return first if len(accounts) == 1 else f"{first} +{len(accounts) - 1}"

    def details(self) -> str:
        """Every account, one a line (the header's tooltip)."""
        lines = [f"Sign-in: {self.state.replace('_', ' ')}"]
        for account in self.accounts:
            mark = " (in use)" if account.active else ""
            lines.append(f"• {account.describe()}{mark}")
        return "\n".join(lines)
