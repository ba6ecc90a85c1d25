"""acp-tui benchmarks: ``python -m bench`` runs them all and prints a table (see README)."""
