"""Several agents at once: the running controllers by agent key (workspace.py), agents
started only to list their sessions (listing.py), one session list across agents
(directory.py), and what needs the person across them (attention.py)."""
