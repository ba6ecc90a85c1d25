"""Signing in: the agent's methods and what each asks of the client (methods.py), the
sign-in itself, one at a time (signin.py), and a terminal method's process (terminal_run.py)."""
