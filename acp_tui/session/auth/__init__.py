"""Signing in: the agent's methods and what each asks of the client (methods.py), and the
sign-in itself, one at a time (signin.py)."""
