"""One agent connection: the controller (controller.py) and its parts over one state
(state.py): turns (turns.py), session calls (calls.py), what the agent sends and asks
(requests.py); what it tells its face (events.py), its traffic (traffic.py), each session's
directories (roots.py), the MCP servers it takes (mcp.py), branch/rename/archive (ops.py)."""
