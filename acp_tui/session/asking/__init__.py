"""What the agent asks the person: permission requests (permissions.py, the three
policies) and questions (elicitation.py, elicitation_queue.py), shown one at a time
(dialog_queue.py)."""
