"""The session layer: the Textual-free controller of one agent connection and what it uses
(permissions, the prompt queue, auth, elicitation, MCP selection, session options).

The TUI, the headless commands and the web mode are views over :mod:`.controller`.
"""
