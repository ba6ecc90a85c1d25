"""The status line under the prompt: its settings, the session's state it shows (as JSON for
the person's status command, and as built-in items), and the paced runs of that command."""
