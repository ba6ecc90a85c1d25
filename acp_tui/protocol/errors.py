"""The client's failures, each with a message fit for a person (the session layer translates
them into its own words: :mod:`acp_tui.session.errors`)."""

from __future__ import annotations


class AcpError(Exception):
    """Base for client-level failures with a message fit for a person."""


class NotSupportedError(AcpError):
    """The agent did not advertise the capability a call needs."""


class ProtocolVersionError(AcpError):
    """The agent answered initialize with a protocol version this client cannot speak."""


class NotAnAgentError(AcpError):
    """The command answers, but not as an ACP agent (``cat`` sends our requests back)."""


class AgentExitedError(AcpError):
    """The agent process ended while a call was waiting."""
