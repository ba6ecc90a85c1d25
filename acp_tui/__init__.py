"""acp-tui: a terminal chat client for the Agent Client Protocol."""

__version__ = "0.1.0"
